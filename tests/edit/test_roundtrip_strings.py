"""Strings written over several lines in the part an edit changes: a double-quoted one with a `\\` ending a
line (an escaped line break) or a `\\n` escape continued on the next line, and a double-quoted or plain one
whose blank line is a line break of its value. ruamel writes each on one line, in its own spelling;
the edit used to be refused. Now it goes through, and the oracle is the same edit of the same file with each
string written on one line: where the edit keeps a string's lines (they move with their new parents, as the
file indents its lists) they stay as the file writes them, re-indented alike; where the edit writes a line
anew, it is written as it is from the one-line file. Either way the result reads back, by libyaml as dgdlint
reads, as that edit."""

from __future__ import annotations

import pytest
import yaml
from edit_support import run

from refdata import ROOT

# (a string on one line, the same string over several lines; `{indent}` is the indentation of its first line)
STRINGS = {
    "escaped-line-break": ('"--model Qwen/Qwen3-0.6B"', '"--model \\\n{indent}  Qwen/Qwen3-0.6B"'),
    "newline-escape-then-escaped-break": ('"line one\\nline two"', '"line one\\n\\\n{indent}    line two"'),
    "escaped-break-after-an-escaped-space": ('"a \\tb"', '"a\\\n{indent}  \\ \\tb"'),
    "blank-line-in-double-quotes": ('"first\\nsecond"', '"first\n\n{indent}  second"'),
    "blank-line-in-a-plain-string": ('"plain\\ntext"', "plain\n\n{indent}  text"),
}
ONE_LINE = {name: one for name, (one, _) in STRINGS.items()}

# The graph's lists are not indented: converting it adds levels (podTemplate, spec, containers) and each field
# of the container keeps its own text, moved two columns to the right.
KEPT = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: g
spec:
  services:
    VllmWorker:
      componentType: worker
      extraPodMetadata:
          labels:
            gpu-pool: h100
      extraPodSpec:
        mainContainer:
          image: registry.example/vllm:1.0.0
          args:
          - {escaped-line-break}
          - {blank-line-in-double-quotes}
          - {blank-line-in-a-plain-string}
          env:
          - name: A
            value: {newline-escape-then-escaped-break}   # kept with its line
          - name: B
            value: {escaped-break-after-an-escaped-space}
          - name: C
            value: ["x", {escaped-line-break}]
"""
# The graph's lists are indented: every line of the services moves, and the conversion writes them anew (as a
# line it changes is written); `envs` become the container's `env`, after its other fields.
MOVED = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name:   g   # spaced its own way, and kept so
spec:
  services:
    Frontend:
      componentType: frontend
      envs:
        - name: A
          value: {escaped-line-break}
        - name: B
          value: {newline-escape-then-escaped-break}
      extraPodSpec:
        mainContainer:
          image: registry.example/vllm:1.0.0
          command:
            - python3
          args: ["--a", {blank-line-in-double-quotes}, {escaped-break-after-an-escaped-space}]
"""


def _filled(template: str, over: bool) -> str:
    """The template with each string on one line, or over several lines below the one it starts on."""
    lines = []
    for line in template.splitlines(keepends=True):
        indent = line[:len(line) - len(line.lstrip(" "))]
        for name, (one, several) in STRINGS.items():
            line = line.replace("{" + name + "}", several.format(indent=indent) if over else one)
        lines.append(line)
    return "".join(lines)


def _spread(text: str, names: list[str]) -> str:
    """`text` with each string of `names` on one line put back over several lines, below its line's indentation."""
    lines = []
    for line in text.splitlines(keepends=True):
        indent = line[:len(line) - len(line.lstrip(" "))]
        for name in names:
            one, several = STRINGS[name]
            line = line.replace(one, several.format(indent=indent), 1)
        lines.append(line)
    return "".join(lines)


def _edited(capsys, tmp_path, text: str, *command: str) -> str:
    path = tmp_path / "graph.yaml"
    path.write_text(text)
    code, out, err = run(capsys, *command, str(path))
    assert code == 0 and "error" not in err, err
    return path.read_text() if command[0] == "fix" else out


def _read(text: str) -> list:
    return list(yaml.load_all(text, Loader=yaml.CSafeLoader))


def test_the_one_line_spellings_are_the_strings_over_several_lines():
    """The oracle's premise: each pair is the same string, as libyaml reads it."""
    for one, several in STRINGS.values():
        assert yaml.load(f"k: {one}", Loader=yaml.CSafeLoader) == \
            yaml.load(f"k: {several.format(indent='')}", Loader=yaml.CSafeLoader)


@pytest.mark.parametrize("mode", ["stdout", "--write", "--diff"])
def test_a_conversion_keeps_strings_over_several_lines_in_the_lines_it_moves(capsys, tmp_path, mode):
    one, over = _filled(KEPT, False), _filled(KEPT, True)
    expected = _edited(capsys, tmp_path, one, "convert", "--to", "v1beta1")
    assert all(o in expected for o in ONE_LINE.values())  # every string is written on one line there
    path = tmp_path / "over.yaml"
    path.write_text(over)
    code, out, err = run(capsys, "convert", "--to", "v1beta1", *([mode] if mode != "stdout" else []), str(path))
    assert code == (1 if mode == "--diff" else 0), err
    if mode == "--diff":
        assert path.read_text() == over and "+++ b/" in out
        return
    written = path.read_text() if mode == "--write" else out
    assert written == _spread(expected, list(STRINGS))
    assert _read(written) == _read(expected)


def test_a_conversion_writes_the_lines_it_moves_anew_strings_and_all_and_keeps_the_others(capsys, tmp_path):
    names = list(STRINGS)[:3] + ["blank-line-in-double-quotes"]
    one, over = _filled(MOVED, False), _filled(MOVED, True)
    expected = _edited(capsys, tmp_path, one, "convert", "--to", "v1beta1")
    written = _edited(capsys, tmp_path, over, "convert", "--to", "v1beta1")
    assert written == expected and "  name:   g   # spaced its own way, and kept so\n" in written
    assert all(ONE_LINE[name] in written for name in names)


@pytest.mark.parametrize("layout", ["kept", "moved"])
def test_converting_back_keeps_the_strings_over_several_lines_it_keeps_and_writes_anew_those_it_moves(
        capsys, tmp_path, layout):
    """The v1beta1 graphs the conversions above write, with their strings over several lines again. Converting
    them back takes the container's fields two columns to the left (kept as written) in the one, and writes
    every line of the components anew in the other (refused before)."""
    one = _edited(capsys, tmp_path, _filled(KEPT if layout == "kept" else MOVED, False), "convert", "--to", "v1beta1")
    expected = _edited(capsys, tmp_path, one, "convert", "--to", "v1alpha1")
    written = _edited(capsys, tmp_path, _spread(one, list(STRINGS)), "convert", "--to", "v1alpha1")
    assert written == (_spread(expected, list(STRINGS)) if layout == "kept" else expected)
    assert _read(written) == _read(expected)


MULTIMODAL = ROOT / "tests" / "rules" / "multimodal-flag-missing" / "fail" / "decode-worker-missing-v1alpha1.yaml"
COMMAND = '          command: ["python3", "-m", "dynamo.vllm"]\n'
ARGS = '          args: ["--model", "Qwen/Qwen3-VL-8B-Instruct", "--disaggregation-mode", "decode"]\n'


def test_a_fix_keeps_a_string_over_several_lines_beside_the_line_it_changes_and_writes_that_line_anew(
        capsys, tmp_path):
    """The fix adds --enable-multimodal to the command: the command, a string of it written over two lines,
    is written anew on one line (as a list folded over two lines is); the args right below it, a string of
    them over two lines too, stay as written."""
    text = MULTIMODAL.read_text()
    assert text.count(COMMAND + ARGS) == 1
    command = COMMAND.replace('"dynamo.vllm"', '"dynamo.\\\n            vllm"')
    args = ARGS.replace('"Qwen/Qwen3-VL-8B-Instruct"', '"Qwen/Qwen3-VL-8B-\\\n            Instruct"')
    expected = _edited(capsys, tmp_path, text, "fix")
    assert expected.count(ARGS) == 1 and COMMAND + ARGS not in expected
    written = _edited(capsys, tmp_path, text.replace(COMMAND + ARGS, command + args), "fix")
    assert written == expected.replace(ARGS, args)
    assert _read(written) == _read(expected)


STREAMING = ROOT / "tests" / "rules" / "streaming-worker-env" / "fail" / "worker-not-a-dynamo-worker.yaml"
WORKER = '                - name: NIM_DYNAMO_WORKER\n                  value: "false"\n'


def test_a_fix_of_a_value_written_over_several_lines_writes_it_on_one(capsys, tmp_path):
    text = STREAMING.read_text()
    assert text.count(WORKER) == 1
    expected = _edited(capsys, tmp_path, text, "fix")
    over = WORKER.replace('"false"', '"fal\\\n                    se"')
    written = _edited(capsys, tmp_path, text.replace(WORKER, over), "fix")
    assert written == expected and WORKER.replace('"false"', '"true"') in written
