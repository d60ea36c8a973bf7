"""Hostile input in the commands that write or transform files (`fix`, `fix --diff`, `convert`, and `diff` and
`plan` beside them): the kept hostile inputs and the rule fixtures give a clear note or finding at a line with a
documented exit code, never an internal error or a hang, and a refused edit leaves the file as it was."""

from __future__ import annotations

import hashlib
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_hostile import EXPECTED

from dgdlint.cli import main

INPUTS = Path(__file__).with_name("inputs")
DGDLINT = str(Path(sys.executable).with_name("dgdlint"))
FOUR_GB = 4 * 1024 ** 3


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (FOUR_GB, FOUR_GB))


def dgdlint(*args: str, stdin=None, input: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([DGDLINT, *args], stdin=stdin, input=input, capture_output=True, timeout=60,
                          preexec_fn=_limit_memory, check=False)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("args", [["convert", "--to", "v1beta1", "-"], ["convert", "--to", "v1alpha1", "-"]])
def test_an_endless_stdin_is_refused_at_the_size_limit_not_read_to_the_end(args):
    with open("/dev/zero", "rb") as endless:
        completed = dgdlint(*args, stdin=endless)
    assert completed.returncode == 1, completed.stderr
    assert completed.stderr.decode().startswith("-:1: error: over the 64 MiB limit for one manifest file")


@pytest.mark.parametrize("args", [["fix"], ["fix", "--diff"], ["convert", "--to", "v1beta1"],
                                  ["convert", "--to", "v1beta1", "--write"]])
def test_a_file_over_the_size_limit_is_refused_untouched(capsys, tmp_path, args):
    big = tmp_path / "huge.yaml"
    big.write_bytes(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: v\n")
    with open(big, "ab") as handle:  # sparse: 300 MB on the disk of none
        handle.truncate(300 * 1024 * 1024)
    before = _digest(big)
    code = main([*args, str(big)])
    out, err = capsys.readouterr()
    assert code == 1, err
    assert f"{big}:1: error: over the 64 MiB limit" in err
    assert _digest(big) == before and out == ""


# The kept inputs `convert` reads but cannot write: (target version, line of the error note).
CONVERT_ERRORS = {("wrong-types-dgd.yaml", "v1beta1"): 13,  # a mount without mountPoint
                  ("wrong-types-dgd.yaml", "v1alpha1"): 26}  # a component without a name
PASSING = Path(__file__).parents[1] / "rules" / "_base" / "streaming-v1beta1.yaml"


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    output = captured.out + captured.err
    assert "internal error" not in output and "Traceback" not in output, output
    return code, output


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_kept_hostile_input_is_refused_at_check_s_line_or_edited_and_never_crashes(capsys, tmp_path, name):
    """An input `check` finds unreadable (a yaml-* finding) is refused by every edit command at the same line,
    the file untouched; any other is fixed or converted, or refused at the line of what cannot be written."""
    code, rule, line = EXPECTED[name]
    unreadable = code == 1 and rule.startswith("yaml-")
    target = tmp_path / name
    target.write_bytes((INPUTS / name).read_bytes())
    before = target.read_bytes()
    commands = [("fix", "--diff"), ("fix",)] + [("convert", "--to", to, *write) for to in ("v1beta1", "v1alpha1")
                                                for write in ((), ("--write",))]
    for command in commands:
        error_line = line if unreadable else CONVERT_ERRORS.get((name, command[-1] if command[-1] != "--write"
                                                                  else command[2]))
        if command[0] == "fix" and not unreadable:
            error_line = None
        exit_code, output = _run(capsys, *command, str(target))
        # fix --diff exits 1 while a fix waits (conversion-record-huge-integer.yaml: a record the operator ignores)
        pending = command == ("fix", "--diff") and not error_line and "[would-fix]" in output
        assert exit_code == (1 if error_line or pending else 0), (command, output)
        if error_line:
            assert f"{target}:{error_line}: error: " in output, (command, output)
            assert ("[edit-refused]" in output) == unreadable, (command, output)
        if exit_code == 1 or "--write" not in command and command != ("fix",):
            assert target.read_bytes() == before, command
        else:  # bom-crlf-valid.yaml and conversion-record-huge-integer.yaml convert (and fix the latter)
            list(yaml.safe_load_all(target.read_text(encoding="utf-8-sig")))
            target.write_bytes(before)
    for command in (("diff", target, target), ("diff", PASSING, target), ("diff", target, PASSING), ("plan", target)):
        exit_code, output = _run(capsys, *map(str, command))
        assert exit_code in (0, 1), (command, output)
        if unreadable:
            assert exit_code == 1 and f"{target}:{line}:" in output and f" {rule} " in output, (command, output)
