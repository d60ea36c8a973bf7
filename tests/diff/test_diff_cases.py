"""Every diff rule has pairs of fixtures under tests/diff/cases/<rule>/<case>/{old,new}.yaml.

A case's `expect.txt` lists every error and warning finding of `dgdlint diff old.yaml new.yaml`, one a
line: the rule, its severity, the side and line and field path it is reported on, then for a diff rule
each related location in order:

    diff-sessions-lost warning new:92 spec.components[1].replicas related old:92 spec.components[1].replicas

A path `-` is the whole file. A case without `expect.txt` is a passing twin: no error or warning.
Adding a case is adding a folder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dgdlint.cli import main
from dgdlint.rules.catalogue import DIFF_RULES

HERE = Path(__file__).parent / "cases"
CASES = sorted(p for p in HERE.glob("*/*") if p.is_dir())
EXPECT = re.compile(r"^(\S+) (error|warning) (old|new):(\d+) (\S+)((?: related (?:old|new):\d+ \S+)*)$")
RELATED = re.compile(r" related (old|new):(\d+) (\S+)")


def expected_findings(case: Path) -> set[tuple]:
    expect = case / "expect.txt"
    found = set()
    for line in expect.read_text(encoding="utf-8").splitlines() if expect.exists() else []:
        match = EXPECT.match(line)
        assert match, f"{expect}: cannot read {line!r}"
        related = tuple((side, int(number), path) for side, number, path in RELATED.findall(match.group(6)))
        found.add((match.group(1), match.group(2), match.group(3), int(match.group(4)), match.group(5), related))
    return found


def run_case(case: Path, capsys) -> tuple[int, list[dict]]:
    code = main(["diff", str(case / "old.yaml"), str(case / "new.yaml"), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)["findings"]


def side(file: str) -> str:
    return Path(file).stem


def as_expected(finding: dict) -> tuple:
    related = ()
    if finding["rule"] in DIFF_RULES:
        related = tuple((side(r["file"]), r["line"], r["path"] or "-") for r in finding.get("related", []))
    return (finding["rule"], finding["severity"], side(finding["file"]), finding["line"], finding["path"] or "-",
            related)


@pytest.mark.parametrize("case", CASES, ids=[str(c.relative_to(HERE)) for c in CASES])
def test_case_produces_exactly_its_expected_findings(case: Path, capsys):
    expected = expected_findings(case)
    code, findings = run_case(case, capsys)
    assert {as_expected(f) for f in findings if f["severity"] in ("error", "warning")} == expected
    assert code == (1 if any(e[1] == "error" for e in expected) else 0)


@pytest.mark.parametrize("case", [c for c in CASES if (c / "expect.txt").exists()],
                         ids=lambda c: str(c.relative_to(HERE)))
def test_a_failing_case_expects_its_own_rule(case: Path):
    assert any(e[0] == case.parent.name for e in expected_findings(case))


@pytest.mark.parametrize("rule_name", sorted(DIFF_RULES))
def test_every_diff_rule_has_a_failing_case_and_a_passing_twin(rule_name: str):
    folders = [c for c in CASES if c.parent.name == rule_name]
    assert any((c / "expect.txt").exists() for c in folders), f"no failing case for {rule_name}"
    assert any(not (c / "expect.txt").exists() for c in folders), f"no passing twin for {rule_name}"


def test_case_folders_name_diff_rules():
    assert {p.name for p in HERE.iterdir() if p.is_dir()} <= set(DIFF_RULES)


def test_deletions_are_reported_on_the_old_side_and_everything_else_on_the_new():
    for case in CASES:
        for rule, _severity, reported, *_ in expected_findings(case):
            if rule.startswith("diff-"):
                dropped = case.name.endswith("dropped") and rule in ("diff-deleted", "diff-cache-changed")
                assert reported == ("old" if dropped else "new"), f"{case}: {rule} on the {reported} side"


def test_messages_say_how_many_worker_pods_lose_their_sessions(capsys):
    _, findings = run_case(HERE / "diff-sessions-lost" / "streaming-scale-down", capsys)
    [lost] = [f for f in findings if f["rule"] == "diff-sessions-lost"]
    assert "from 2 to 1 worker pod" in lost["message"] and "1 removed pod" in lost["message"]
    _, findings = run_case(HERE / "diff-sessions-lost" / "streaming-worker-env-changed", capsys)
    [lost] = [f for f in findings if f["rule"] == "diff-sessions-lost"]
    assert "NIM_DYNAMO_PROXY_PORT" in lost["message"] and "its 2 worker pods" in lost["message"]


def test_a_stale_download_is_stated_as_what_the_change_did(capsys):
    _, findings = run_case(HERE / "diff-download-not-rerun" / "precision-changed-job-unchanged", capsys)
    [stale] = [f for f in findings if f["rule"] == "diff-download-not-rerun"]
    assert "moves NIM_PRECISION from 'fp8' to 'bf16'" in stale["message"]
    assert "is unchanged: it still has 'fp8' and does not run again" in stale["message"]


def test_diff_cache_changed_says_helm_keeps_a_dropped_chart_claim_only_under_exactly_keep(capsys):
    _, findings = run_case(HERE / "diff-cache-changed" / "chart-pvc-dropped", capsys)
    [kept] = [f for f in findings if f["rule"] == "diff-cache-changed"]
    assert "Helm keeps it (resource-policy keep)" in kept["message"]
    _, findings = run_case(HERE / "diff-cache-changed" / "chart-pvc-policy-recased-dropped", capsys)
    [deleted] = [f for f in findings if f["rule"] == "diff-cache-changed"]
    assert "Helm deletes it on upgrade, with the cached model" in deleted["message"]
