"""`run_plan(*args)`: run `dgdlint plan` in-process from the repository root and give (exit code, stdout)."""

from __future__ import annotations

import json

import pytest

from refdata import ROOT


@pytest.fixture
def run_plan(capsys, monkeypatch):
    from dgdlint.cli import main

    monkeypatch.delenv("DGDLINT_CRD", raising=False)
    monkeypatch.chdir(ROOT)

    def run(*args: str) -> tuple[int, str]:
        capsys.readouterr()
        code = main(["plan", *args])
        return code, capsys.readouterr().out

    return run


@pytest.fixture
def plan_json(run_plan):
    def run(*args: str) -> tuple[int, dict]:
        code, out = run_plan(*args, "--format", "json")
        return code, json.loads(out)

    return run
