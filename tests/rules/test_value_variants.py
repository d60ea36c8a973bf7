"""Each rule says, in tests/rules/<rule>/variants.yaml, which values it reads and which of its fixtures
pin them against a mutant: another spelling of a value (case, `yes`/`on`/`1`, spaces, quoting) and, for a
comparison, a value at its boundary and one away from it on each side. A rule that reads no spelled value
and compares no number says why (`none:`). The mutation test (test_mutations.py) shows such fixtures
fail when a rule reads case-sensitively, drops a spelling or loosens a comparison.

    reads: what the rule reads (one line)
    spellings: [fixtures pinning the other spellings]
    boundaries: [fixtures at and away from each bound: a pass and a fail at least]
    none: why neither applies (only when both lists are empty)"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dgdlint.rules import REGISTRY

HERE = Path(__file__).parent
DECLARED = sorted(HERE.glob("*/variants.yaml"))
KEYS = {"reads", "spellings", "boundaries", "none"}


def declaration(path: Path) -> dict:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path}: a mapping"
    assert set(data) <= KEYS, f"{path}: unknown keys {sorted(set(data) - KEYS)}"
    return data


@pytest.mark.parametrize("path", DECLARED, ids=[p.parent.name for p in DECLARED])
def test_the_declaration_names_fixtures_of_its_rule_or_says_why_none_apply(path: Path):
    data = declaration(path)
    assert path.parent.name in REGISTRY, f"{path}: no such rule"
    assert str(data.get("reads") or "").strip(), f"{path}: say what the rule reads"
    spellings, boundaries = data.get("spellings") or [], data.get("boundaries") or []
    if not spellings and not boundaries:
        assert len(str(data.get("none") or "").strip()) >= 20, f"{path}: no variant fixtures and no reason why"
        return
    assert "none" not in data, f"{path}: `none` says no variant applies, yet fixtures are listed"
    for name in [*spellings, *boundaries]:
        assert (path.parent / name).is_file(), f"{path}: {name} is not a fixture of {path.parent.name}"
        assert name.split("/")[0] in ("pass", "fail"), f"{path}: {name} is not under pass/ or fail/"
    if boundaries:
        sides = {name.split("/")[0] for name in boundaries}
        assert sides == {"pass", "fail"}, f"{path}: a boundary needs a passing and a failing fixture"


@pytest.mark.parametrize("rule_name", sorted(REGISTRY))
def test_every_rule_declares_the_values_it_reads_and_the_fixtures_that_pin_them(rule_name: str):
    assert (HERE / rule_name / "variants.yaml").is_file(), \
        f"{rule_name}: no variants.yaml (its other spellings and boundaries, or why none apply)"
