"""Check rules and schema-stage findings that read, on an update, what the cluster kept of the old object:
`dgdlint diff OLD NEW` judges NEW with them as the API server and the webhook judge an update, not a
create. Cases live under tests/diff/updates/<rule>/<case>/{old,new}.yaml; `expect.txt` lists every error
and warning finding of the diff, in test_diff_cases.py's format (without related locations). A case
without it is a passing twin. The ids start with the rule's name, so the mutation test runs them with
the rule's fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_diff_cases import expected_findings as read_expected

from dgdlint.cli import main
from dgdlint.rules import REGISTRY
from dgdlint.rules.catalogue import STAGE_FINDINGS

HERE = Path(__file__).parent / "updates"
CASES = sorted(p for p in HERE.glob("*/*") if p.is_dir())


def expected_findings(case: Path) -> set[tuple]:
    """The diff cases' expect.txt lines (test_diff_cases reads them), which name no related location here."""
    found = read_expected(case)
    assert all(not related for *_, related in found), f"{case}: an update case names no related location"
    return {finding[:5] for finding in found}


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_update_case_produces_exactly_its_expected_findings(case: Path, capsys):
    assert case.parent.name in REGISTRY or case.parent.name in STAGE_FINDINGS, f"{case}: folders name check rules"
    expected = expected_findings(case)
    code = main(["diff", str(case / "old.yaml"), str(case / "new.yaml"), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    got = {(f["rule"], f["severity"], Path(f["file"]).stem, f["line"], f["path"] or "-") for f in findings
           if f["severity"] in ("error", "warning")}
    assert got == expected
    assert code == (1 if any(e[1] == "error" for e in expected) else 0)
    if expected:
        assert any(e[0] == case.parent.name for e in expected), f"{case}: a failing case expects its own rule"
