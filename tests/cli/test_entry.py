"""The `dgdlint` command's entry point (dgdlint.cli.entry): it ends the process at once after `main()`
(no interpreter shutdown over a large heap), so everything it writes must be flushed by then, and an output
that cannot be written is a clear message with exit code 2, never a traceback or an "internal error"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from refdata import ROOT

FULL = Path("/dev/full")
needs_full = pytest.mark.skipif(not FULL.exists(), reason="no /dev/full here (Linux has it): no device to fill")
FAILING = ROOT / "tests" / "rules" / "pod-spec-invalid" / "fail"


def dgdlint(*args: str, stdout=subprocess.PIPE, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dgdlint", *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, check=False, timeout=120, **kwargs)


def test_the_interpreter_does_not_shut_down_after_the_command():
    """An exit handler registered before the command never runs: the process ends with os._exit."""
    code = ("import atexit, sys; atexit.register(lambda: print('shutdown ran', flush=True)); "
            "sys.argv = ['dgdlint', 'rules']; from dgdlint.cli import entry; entry()")
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                               timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert "pod-spec-invalid" in completed.stdout
    assert "shutdown ran" not in completed.stdout


def test_a_report_larger_than_any_buffer_arrives_whole(tmp_path):
    """Copies of failing manifests: a JSON report of hundreds of kilobytes through a pipe, complete."""
    sources = sorted(FAILING.glob("*.yaml"))
    for copy in range(3):
        for source in sources:
            (tmp_path / f"{copy:03d}-{source.name}").write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    completed = dgdlint("check", "--format", "json", str(tmp_path))
    assert completed.returncode == 1, completed.stderr
    assert len(completed.stdout) > 256 * 1024
    report = json.loads(completed.stdout)
    summary = report["summary"]
    assert len(report["findings"]) == summary["errors"] + summary["warnings"] + summary["infos"]
    assert summary["files"] == 3 * len(sources)


@needs_full
@pytest.mark.parametrize("command", [["check", str(ROOT / "examples")], ["rules"], ["explain", "pod-spec-invalid"]])
def test_standard_output_on_a_full_disk_is_a_usage_error(command):
    with FULL.open("w") as full:
        completed = dgdlint(*command, stdout=full)
    assert completed.returncode == 2, completed.stderr
    assert "No space left on device" in completed.stderr
    assert "Traceback" not in completed.stderr and "internal error" not in completed.stderr


def test_a_reader_that_leaves_early_ends_quietly():
    """`dgdlint rules | head -1`: the pipe closes under dgdlint; no traceback, no error message."""
    process = subprocess.Popen([sys.executable, "-m", "dgdlint", "rules"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "80"})
    process.stdout.readline()
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 0
    assert "Traceback" not in stderr and "Exception ignored" not in stderr and "error" not in stderr
