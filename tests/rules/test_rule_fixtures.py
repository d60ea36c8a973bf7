"""Every rule has failing fixtures and passing twins under tests/rules/<rule>/{fail,pass}/*.yaml.

A fixture is one set of manifests (multi-document YAML). Its header lists what it must produce:

    # expect: <rule> <line> <field path>

A fail fixture produces exactly its expected error and warning findings (parse and rule stages), plus
the info findings of its own rule (so an info rule has failing fixtures too); a pass fixture (no expect
lines) produces none of these. Adding a case is adding a file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dgdlint.engine import check_paths
from dgdlint.rules import REGISTRY

HERE = Path(__file__).parent
EXPECT = re.compile(r"^#\s*expect:\s*(\S+)\s+(\d+)\s+(\S+)\s*$")
CASES = sorted(HERE.glob("*/*/*.yaml"))


def expected_findings(path: Path) -> set[tuple[str, int, str]]:
    expected = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        match = EXPECT.match(line)
        if match:
            expected.add((match.group(1), int(match.group(2)), match.group(3)))
    return expected


def actual_findings(path: Path) -> set[tuple[str, int, str]]:
    own_rule = path.parent.parent.name
    result = check_paths([str(path)])
    return {(f.rule, f.line, f.path) for f in result.findings
            if f.severity in ("error", "warning") or f.rule == own_rule}


@pytest.mark.parametrize("case", CASES, ids=[str(c.relative_to(HERE)) for c in CASES])
def test_fixture_produces_exactly_its_expected_findings(case: Path):
    kind = case.parent.name
    assert kind in ("pass", "fail"), f"{case}: fixtures live in pass/ or fail/"
    expected = expected_findings(case)
    if kind == "pass":
        assert not expected, f"{case}: a pass fixture expects nothing"
    else:
        rule_name = case.parent.parent.name
        assert any(e[0] == rule_name for e in expected), f"{case}: a fail fixture expects its own rule"
    assert actual_findings(case) == expected


@pytest.mark.parametrize("rule_name", sorted(REGISTRY))
def test_every_rule_has_a_failing_fixture_and_a_passing_twin(rule_name: str):
    folder = HERE / rule_name
    assert sorted(folder.glob("fail/*.yaml")), f"no fail fixture for {rule_name}"
    assert sorted(folder.glob("pass/*.yaml")), f"no pass fixture for {rule_name}"


def test_fixture_folders_name_registered_rules():
    folders = {p.name for p in HERE.iterdir() if p.is_dir() and not p.name.startswith("_")}
    assert folders <= set(REGISTRY), f"unknown rule folders: {sorted(folders - set(REGISTRY))}"


def test_pass_fixtures_are_valid_against_the_crd(crd_schema_stage):
    """The passing twins are real manifests: the CRD schema accepts them."""
    from dgdlint.load import load_paths
    from dgdlint.model import build_model

    for case in sorted(HERE.glob("*/pass/*.yaml")):
        model = build_model(load_paths([str(case)]))
        errors = [f for f in crd_schema_stage.check(model.objects) if f.severity == "error"]
        assert not errors, f"{case}: {[(f.line, f.path, f.message) for f in errors]}"
