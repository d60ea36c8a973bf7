"""A report is the same from one run to the next."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from refdata import ROOT


@pytest.mark.slow
def test_a_report_does_not_depend_on_string_hashing():
    """Python salts string hashes per process: nothing the report says may follow a set's order. (It did: a
    graph's download Jobs were looked up by a set of model keys, so which of several Jobs a finding named
    changed from run to run.)"""
    reports = set()
    for seed in ("1", "2"):
        environment = dict(os.environ, PYTHONHASHSEED=seed)
        completed = subprocess.run([sys.executable, "-m", "dgdlint", "check", "--format", "json",
                                    "tests/rules", "tests/hostile/inputs", "examples"],
                                   capture_output=True, text=True, cwd=ROOT, env=environment, timeout=600)
        reports.add(completed.stdout)
    assert len(reports) == 1
