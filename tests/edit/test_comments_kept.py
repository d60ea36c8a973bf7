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
