"""A file full of comments converts and fixes with every comment still there, and byte for byte the same
outside the keys that change."""

from __future__ import annotations

import difflib
import shutil
from collections import Counter
from pathlib import Path

from edit_support import comments, run

COMMENTED = Path(__file__).with_name("cases") / "commented-edge-streaming.v1alpha1.yaml"


def _changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    removed, added = [], []
    for line in difflib.ndiff(before.splitlines(), after.splitlines()):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return removed, added


def test_fix_changes_only_the_repaired_values_and_the_added_entries(capsys, tmp_path):
    target = tmp_path / COMMENTED.name
    shutil.copy(COMMENTED, target)
    code, _, _ = run(capsys, "fix", str(target))
    after = target.read_text()
    assert code == 0
    assert _changed_lines(COMMENTED.read_text(), after) == (
        ['          value: "1"   # copied from a Nano manifest',
         '          value: "0"   # left from the regular mode'],
        ['          value: "0"   # copied from a Nano manifest',
         '          value: "1"   # left from the regular mode',
         "        - name: NIM_STREAMING_SPEC_METHOD",
         "          value: none",
         "        - name: NIM_DYNAMO_STREAMING_ENDPOINT",
         "          value: cosmos3-reasoner.backend.streaming"])
    assert comments(after) == comments(COMMENTED.read_text())


def test_convert_keeps_every_comment_and_everything_outside_spec_byte_for_byte(capsys):
    source = COMMENTED.read_text()
    code, out, _ = run(capsys, "convert", "--to", "v1beta1", str(COMMENTED))
    assert code == 0
    assert Counter(comments(out)) == Counter(comments(source))
    head, _, _ = source.partition("\nspec:\n")
    assert out.startswith(head.replace("nvidia.com/v1alpha1  #", "nvidia.com/v1beta1  #") + "\nspec:\n")
    assert out.endswith("\n# end of the graph\n")
    assert "              # exec, so that signals reach the server\n" in out  # block scalar text, moved whole


def test_convert_then_fix_and_fix_then_convert_keep_every_comment(capsys, tmp_path):
    first = tmp_path / "a.yaml"
    shutil.copy(COMMENTED, first)
    assert run(capsys, "convert", "--to", "v1beta1", "--write", str(first))[0] == 0
    assert run(capsys, "fix", str(first))[0] == 0
    second = tmp_path / "b.yaml"
    shutil.copy(COMMENTED, second)
    assert run(capsys, "fix", str(second))[0] == 0
    assert run(capsys, "convert", "--to", "v1beta1", "--write", str(second))[0] == 0
    expected = Counter(comments(COMMENTED.read_text()))
    assert Counter(comments(first.read_text())) == expected == Counter(comments(second.read_text()))
    for converted_and_fixed in (first, second):
        _, out, _ = run(capsys, "check", str(converted_and_fixed))
        assert "0 errors, 0 warnings" in out, out


# A null item of a block list, with or without an end-of-line comment, each as written: a line the edit only
# moves keeps its own spelling of the null (`~`, `null`, nothing), and the comment stays as far from the dash
# as it was. ruamel spells every null as nothing and pads its line after the dash (`- `): the comment came out
# one column further (`-  # note`), a bare `-` ended in a space, and `- ~` lost its `~`.
NULL_ITEMS = [("- # note", "- # note"), ("-   # note", "-   # note"), ("- ~  # tilde", "- ~  # tilde"),
              ("- null # spelled", "- null # spelled"), ("-", "-")]
GRAPH_WITH_NULLS = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: g
spec:
  services:
    Frontend:
      componentType: frontend
      extraPodSpec:
        mainContainer:
          image: registry.example/vllm:1.0.0
          command:
            - python3
{items}"""


def test_a_null_list_item_written_anew_keeps_its_comment_where_it_was_and_no_trailing_space(capsys, tmp_path):
    """Converting the graph (its lists indented) writes every line of the service anew, and so each null item;
    converting the result back writes them anew again."""
    source = tmp_path / "graph.yaml"
    source.write_text(GRAPH_WITH_NULLS.format(items="".join(f"            {item}\n" for item, _ in NULL_ITEMS)))
    code, _, err = run(capsys, "convert", "--to", "v1beta1", "--write", str(source))
    assert code == 0, err
    converted = source.read_text()
    assert "                - python3\n" + "".join(f"                {line}\n" for _, line in NULL_ITEMS) in converted
    assert comments(converted) == ["# note", "# note", "# tilde", "# spelled"]
    code, _, err = run(capsys, "convert", "--to", "v1alpha1", "--write", str(source))
    assert code == 0, err
    assert source.read_text() == GRAPH_WITH_NULLS.format(
        items="".join(f"            {line}\n" for _, line in NULL_ITEMS))
