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
