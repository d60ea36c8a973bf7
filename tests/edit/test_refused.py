"""Hostile and unusual YAML in `convert` and `fix`: what the round trip cannot keep is refused at its line with
the file left untouched (exit 1), a value that cannot be read is refused the same way, and what is merely
unusual is edited. Never an internal error (exit 3)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from edit_support import run

GRAPH = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  services:
    Frontend:
      componentType: frontend
      replicas: 1
      extraPodSpec:
        mainContainer:
          image: registry.example/frontend:1.0.0
"""
AFTER_REPLICAS = "      replicas: 1\n"
# The line the tests insert after, and so the 1-based line of the inserted text's first line.
INSERTED_AT = GRAPH.splitlines().index(AFTER_REPLICAS.rstrip("\n")) + 2


def _graph_with(lines: str) -> str:
    return GRAPH.replace(AFTER_REPLICAS, AFTER_REPLICAS + lines, 1)


# (what is inserted in the Frontend service, its line relative to INSERTED_AT, the words of the refusal)
CANNOT_KEEP = {
    "merge-key": ("      base: &base {cpu: '1'}\n      more:\n        <<: *base\n", 2, "a YAML merge key (<<)"),
    "omap": ("      ordered: !!omap [{a: b}]\n", 0, "a value tagged !!omap"),
    "pairs": ("      pairs: !!pairs [{a: b}]\n", 0, "a value tagged !!pairs"),
    "set": ("      set: !!set {a, b}\n", 0, "a value tagged !!set"),
    "local-tag": ("      custom: !custom x\n", 0, "a value tagged !custom"),
    "scalar-tag-on-a-mapping": ("      odd: !!str {a: 1}\n", 0, "a value tagged !!str"),
}


@pytest.mark.parametrize("case", sorted(CANNOT_KEEP))
@pytest.mark.parametrize("to", ["v1beta1", "v1alpha1"])
def test_a_construct_the_round_trip_cannot_keep_refuses_the_edit_at_its_line(capsys, tmp_path, case, to):
    inserted, offset, words = CANNOT_KEEP[case]
    text = _graph_with(inserted)
    if to == "v1alpha1":  # the same construct in a graph that converts back
        text = text.replace("nvidia.com/v1alpha1", "nvidia.com/v1beta1")
        text = text.replace("  services:\n    Frontend:\n", "  components:\n    - name: Frontend\n")
    source = tmp_path / "graph.yaml"
    source.write_text(text)
    code, out, err = run(capsys, "convert", "--to", to, "--write", str(source))
    assert (code, out) == (1, "")
    assert f"{source}:{INSERTED_AT + offset}: error: {words} in a document the edit changes" in err
    assert "[edit-refused]" in err and "nothing written" in err
    assert source.read_text() == text


def test_a_merge_key_in_another_document_does_not_stop_the_graph_s_conversion(capsys, tmp_path):
    """A ConfigMap beside the graph shares values with `<<: *anchor`; the edit does not change it, so it is
    written back byte for byte and the graph is converted."""
    config_map = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\ndata:\n  base: &base\n" \
                 "    a: \"1\"\n  other:\n    <<: *base\n    b: \"2\"\n"
    source = tmp_path / "graph.yaml"
    source.write_text(GRAPH + config_map)
    code, out, err = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0 and "error" not in err
    assert out.startswith("apiVersion: nvidia.com/v1beta1\n") and out.endswith(config_map)


# The loader refuses a value its explicit tag cannot hold ("the value tagged !!int is not an integer"), before
# the round trip reads it; the round trip refuses what it cannot build itself (an int of more than the 4300
# digits Python reads, which the loader reads as a float, as Kubernetes does past int64).
@pytest.mark.parametrize(("value", "words"), [
    ("!!int abc", "value tagged !!int is not an integer"),
    ("!!float abc", "value tagged !!float is not a number"),
    ("!!int nvapi-SECRET123", "value tagged !!int is not an integer"),  # said without the value
    ("9" * 4301, "an integer of 4301 digits, too long for the round trip to read"),
])
@pytest.mark.parametrize("command", [["convert", "--to", "v1beta1"], ["convert", "--to", "v1alpha1"],
                                     ["fix", "--diff"]])
def test_a_value_that_cannot_be_read_is_refused_at_its_line_without_echoing_it(capsys, tmp_path, value, words,
                                                                                  command):
    source = tmp_path / "graph.yaml"
    text = _graph_with(f"      odd: {value}\n")
    source.write_text(text)
    code, out, err = run(capsys, *command, str(source))
    assert (code, out) == (1, "")
    assert err.startswith(f"{source}:{INSERTED_AT}: error: ") and words in err
    assert "; the file is left untouched [edit-refused]" in err
    assert "nvapi-" not in err and source.read_text() == text


@pytest.mark.parametrize("value", ["!!str 1", "! 12", "!!int 3", "!!null ~", "!!float 1.5", "0x1F", "1_000"])
def test_a_core_tag_or_an_unusual_number_is_edited_and_kept_as_written(capsys, tmp_path, value):
    """Tags of the core schema on their own kind of value are plain YAML: the graph converts, and the line that
    holds one (in the pod spec, which moves as it is) keeps its spelling."""
    source = tmp_path / "graph.yaml"
    source.write_text(GRAPH.replace("        mainContainer:\n", f"        priority: {value}\n        mainContainer:\n"))
    code, out, err = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0, err
    assert f"priority: {value}\n" in out


RULES = Path(__file__).resolve().parents[1] / "rules"
EDGE = RULES / "edge-dflash-enabled" / "fail" / "edge-worker-dflash-on.yaml"


def test_fix_refuses_a_graph_holding_a_merge_key_at_the_key_s_line(capsys, tmp_path):
    target = tmp_path / "edge.yaml"
    shutil.copy(EDGE, target)
    graph_name = "  name: cosmos3-reasoner\n"
    text = EDGE.read_text()
    assert text.count(graph_name) == 1
    text = text.replace(graph_name, graph_name + "  labels:\n    <<: {team: video}\n")
    target.write_text(text)
    # The merge key is the second line after the graph's name.
    line = text.splitlines().index(graph_name.rstrip("\n")) + 3
    code, out, err = run(capsys, "fix", str(target))
    assert code == 1 and target.read_text() == text
    assert f"{target}:{line}: error: a YAML merge key (<<) in a document the edit changes" in err
    assert "[fixed]" not in err and "nothing to fix" not in err


NOT_UTF8 = b"a: b\n# \xff\n"  # the byte 0xff, on line 2, starts no UTF-8 sequence


@pytest.mark.parametrize("command", [["convert", "--to", "v1alpha1"], ["fix", "--diff"]])
def test_a_file_that_is_not_utf8_is_refused_at_the_line_of_the_first_bad_byte(capsys, tmp_path, command):
    source = tmp_path / "latin1.yaml"
    source.write_bytes(NOT_UTF8)
    code, out, err = run(capsys, *command, str(source))
    assert (code, out) == (1, "")
    assert f"{source}:2: error: not UTF-8 text (byte 0xff); the file is left untouched [edit-refused]" in err


def test_stdin_that_is_not_utf8_is_refused_the_same_way(capsys, monkeypatch):
    """Python may read stdin with surrogate escapes (a C locale); convert reads its bytes itself."""
    stdin = io.TextIOWrapper(io.BytesIO(NOT_UTF8), encoding="utf-8", errors="surrogateescape")
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, err = run(capsys, "convert", "--to", "v1alpha1", "-")
    assert (code, out) == (1, "")
    assert "-:2: error: not UTF-8 text (byte 0xff)" in err


def test_stdin_and_stdout_are_utf8_whatever_the_locale_says(tmp_path):
    """Under an ASCII locale the text goes through as it came, in UTF-8 (the real command, whose streams the
    locale sets up)."""
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: café}\n"
    environment = {**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONUTF8": "0", "LC_ALL": "C"}
    done = subprocess.run([str(Path(sys.executable).with_name("dgdlint")), "convert", "--to", "v1beta1", "-"],
                          input=text.encode(), capture_output=True, env=environment, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (0, text.encode())


@pytest.mark.parametrize("command", [["convert", "--to", "v1beta1"], ["fix"]])
def test_a_directory_is_called_a_directory_not_a_missing_file(capsys, tmp_path, command):
    code, out, err = run(capsys, *command, str(tmp_path))
    assert (code, out) == (2, "")
    assert err == f"dgdlint {command[0]}: error: {tmp_path}: is a directory; give the YAML files in it\n"


@pytest.mark.parametrize("command", [["convert", "--to", "v1beta1"], ["fix", "--diff"]])
def test_a_named_pipe_is_called_a_named_pipe_and_never_read(capsys, tmp_path, command):
    """Nothing writes to the pipe: reading it would wait for ever, so the answer must come before any read."""
    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)
    code, out, err = run(capsys, *command, str(pipe))
    assert (code, out) == (2, "")
    assert f"dgdlint {command[0]}: error: {pipe}: is a named pipe (FIFO), not a regular file; give a YAML file" in err


def test_a_broken_symbolic_link_is_said_to_be_one(capsys, tmp_path):
    link = tmp_path / "graph.yaml"
    link.symlink_to(tmp_path / "gone.yaml")
    code, _, err = run(capsys, "convert", "--to", "v1beta1", str(link))
    assert code == 2 and err == f"dgdlint convert: error: {link}: no such file (a broken symbolic link)\n"


EDIT_PACKAGE = Path(__file__).resolve().parents[2] / "validate" / "dgdlint" / "edit"


def test_explain_says_what_each_note_code_of_convert_and_fix_means(capsys):
    """Every code the edit modules put in a note (a quoted kebab-case word starting edit-, convert- or fix-,
    or `fixed`, `would-fix`) has a meaning that `dgdlint explain` prints, so a code seen in the output can be
    looked up."""
    import re

    from dgdlint.edit.notes import EDIT_NOTES

    code_pattern = re.compile(r'"((?:edit|convert|fix)-[a-z-]+|fixed|would-fix)"')
    used = {code for path in EDIT_PACKAGE.glob("*.py") for code in code_pattern.findall(path.read_text())}
    assert "edit-refused" in used and sorted(used) == sorted(EDIT_NOTES)
    for code in sorted(used):
        status, out, _ = run(capsys, "explain", code.upper())
        commands, severity, meaning = EDIT_NOTES[code]
        assert (status, out) == (0, f"{code} (a note of dgdlint {commands}, {severity})\n\n{meaning}\n")


def test_explain_suggests_a_note_code_spelled_nearly_right(capsys):
    code, _, err = run(capsys, "explain", "edit-refuse")
    assert code == 2 and "did you mean edit-refused?" in err


def test_stdin_or_a_file_named_twice_is_converted_once(capsys, monkeypatch, tmp_path):
    """Stdin can be read only once: naming it twice read the graph, then nothing, and said there was nothing
    to convert. The output holds the converted graph once, as for one name."""
    source = tmp_path / "graph.yaml"
    source.write_text(GRAPH)
    _, once, _ = run(capsys, "convert", "--to", "v1beta1", str(source))
    _, twice, _ = run(capsys, "convert", "--to", "v1beta1", str(source), str(source))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(GRAPH.encode())))
    code, from_stdin, err = run(capsys, "convert", "--to", "v1beta1", "-", "-")
    assert (code, err) == (0, "") and once == twice == from_stdin


@pytest.mark.parametrize("diff", [False, True])
def test_a_fix_left_unwritten_by_another_file_s_refusal_is_never_called_fixed(capsys, tmp_path, diff):
    """All files or none: a file that does not parse stops the writing of a fixable one beside it, so its notes
    say what fix would do (`[would-fix]`), never `[fixed]`, in place as with --diff."""
    fixable, broken = tmp_path / "edge.yaml", tmp_path / "broken.yaml"
    shutil.copy(EDGE, fixable)
    broken.write_text("kind: [\n")
    code, _, err = run(capsys, "fix", *(["--diff"] if diff else []), str(fixable), str(broken))
    assert code == 1 and fixable.read_text() == EDGE.read_text() and broken.read_text() == "kind: [\n"
    assert f"{broken}:2: error: YAML syntax error" in err and "[edit-refused]" in err
    assert "[fixed]" not in err and f"{fixable}:118: info: " in err and "[edge-dflash-enabled] [would-fix]" in err
    assert err.splitlines()[-1] == "dgdlint: would fix 1 finding in 1 file; nothing written" + \
        ("" if diff else ": fix the errors above first (all files or none)")
