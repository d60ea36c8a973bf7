"""Hostile input: every case is a clear finding at file:line (exit 1) or a usage message (exit 2),
never a traceback, a hang or unbounded memory. Each runs as the real command in a child process
limited to 4 GB of address space and 60 seconds. The inputs are kept as regression fixtures."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

INPUTS = Path(__file__).with_name("inputs")
DGDLINT = str(Path(sys.executable).with_name("dgdlint"))
FOUR_GB = 4 * 1024 ** 3

# input -> (exit code, the finding it must produce, 1-based line of that finding)
EXPECTED = {
    "alias-bomb.yaml": (1, "yaml-limits", 6),
    "binary-garbage.yaml": (1, "yaml-encoding", 1),
    "bom-crlf-valid.yaml": (0, None, None),
    "control-characters.yaml": (1, "yaml-encoding", 4),
    "deep-block-nesting.yaml": (1, "yaml-limits", 201),
    "deep-flow-nesting.yaml": (1, "yaml-syntax", 1),
    "duplicate-keys.yaml": (1, "yaml-duplicate-key", 5),
    "empty-documents.yaml": (1, "no-objects", 1),  # empty input is not a pass
    "invalid-utf8.yaml": (1, "yaml-encoding", 4),
    "list-document.yaml": (1, "not-an-object", 1),
    "no-api-version.yaml": (1, "not-an-object", 1),
    "no-kind.yaml": (1, "not-an-object", 1),
    "recursive-alias.yaml": (1, "yaml-limits", 2),
    "scalar-document.yaml": (1, "not-an-object", 1),
    "tabs.yaml": (1, "yaml-syntax", 4),
    "unclosed-quote.yaml": (1, "yaml-syntax", 5),
    "wrong-types-dgd.yaml": (1, "main-image-missing", 7),
    # From review R5: a rule met a map where a request's name goes, and a number of 4,400 digits (Python reads
    # at most 4,300 as an int; Go skips such a record): both were internal errors.
    "dra-config-request-not-a-name.yaml": (1, "kubernetes-schema", 11),
    "conversion-record-huge-integer.yaml": (1, "operator-conversion-annotation", 6),
    # Found by the Kubernetes oracle: writing a divisor of exponent 7891234 back overflowed Python's decimal.
    "divisor-huge-exponent.yaml": (1, "env-source-invalid", 17),
}


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (FOUR_GB, FOUR_GB))


def dgdlint(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([DGDLINT, *args], input=stdin, capture_output=True, timeout=60, preexec_fn=_limit_memory,
                          check=False)


def test_every_kept_input_has_an_expectation():
    assert sorted(p.name for p in INPUTS.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("with_crd", [False, True], ids=["rules", "schema+rules"])
def test_hostile_input_is_a_finding_at_a_line(name, with_crd, dynamo_crds):
    code, rule, line = EXPECTED[name]
    args = ["check", str(INPUTS / name)]
    if with_crd:
        args += ["--crd", str(dynamo_crds.newest)]
    completed = dgdlint(*args)
    output = completed.stdout.decode() + completed.stderr.decode()
    assert "Traceback" not in output and "internal" not in output
    assert completed.returncode == code, output
    if rule:
        assert f"{INPUTS / name}:{line}:" in output and f" {rule} " in output, output


def test_a_file_of_hundreds_of_megabytes_is_refused_by_size(tmp_path):
    big = tmp_path / "huge.yaml"
    with open(big, "wb") as handle:
        handle.truncate(300 * 1024 * 1024)
    completed = dgdlint("check", str(big))
    assert completed.returncode == 1 and b"yaml-limits" in completed.stdout


def test_a_large_stream_on_stdin_is_bounded():
    chunk = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\n"
    completed = dgdlint("check", "-", stdin=chunk * (70 * 1024 * 1024 // len(chunk)))
    assert completed.returncode == 1 and b"yaml-limits" in completed.stdout


def test_a_fifo_or_device_is_not_read(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    completed = dgdlint("check", str(fifo))
    assert completed.returncode == 1 and b"not a regular file" in completed.stdout


def test_a_directory_symlink_loop_is_walked_once(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "ok.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    (tmp_path / "d" / "loop").symlink_to(tmp_path / "d")
    (tmp_path / "d" / "up").symlink_to(tmp_path)
    completed = dgdlint("check", str(tmp_path))
    assert completed.returncode == 0 and b"in 1 file" in completed.stdout


def test_a_dangling_symlink_is_a_finding(tmp_path):
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "missing.yaml")
    completed = dgdlint("check", str(tmp_path / "gone.yaml"))
    assert completed.returncode == 1 and b"file-unreadable" in completed.stdout


def test_usage_errors_are_messages_not_tracebacks(tmp_path):
    for args in (["check", str(tmp_path / "nope")], ["check", "--format", "xml", "x"], ["frobnicate"],
                 ["check", "--crd", "http://127.0.0.1:9/none.yaml", str(INPUTS / "no-kind.yaml")]):
        completed = dgdlint(*args)
        assert completed.returncode == 2 and b"Traceback" not in completed.stderr, args


def test_standard_input_named_twice_is_read_once():
    completed = dgdlint("check", "-", "-", stdin=b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
    output = (completed.stdout + completed.stderr).decode()
    assert completed.returncode == 0, output
    assert "in 1 file (1 object" in output


def test_a_file_name_with_a_newline_stays_on_its_own_line(tmp_path):
    (tmp_path / "bad\nname.yaml").write_text("a: [\n")
    completed = dgdlint("check", str(tmp_path))
    assert completed.returncode == 1
    [line] = [text for text in completed.stdout.decode().splitlines() if "yaml-syntax" in text]
    assert line.startswith(f"{tmp_path}/bad\\nname.yaml:2:1: error yaml-syntax")
