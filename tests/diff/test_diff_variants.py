"""Each diff rule says, in tests/diff/cases/<rule>/variants.yaml, which values it compares and which of its
cases pin them against a mutant: another spelling of a value (case, quoting, quantity forms, version
spellings, a default written out) and, for a comparison, a case at its boundary and one away from it on
each side. Entries are case folders of that rule; a case with `expect.txt` fails, one without is a
passing twin. A rule that compares no spelled value and no number says why (`none:`). The mutation test
(tests/rules/test_mutations.py) shows such cases fail when a diff rule reads case-sensitively, drops a
spelling or loosens a comparison.

    reads: what the rule compares (one line)
    spellings: [cases pinning the other spellings]
    boundaries: [cases at and away from each bound: a passing and a failing one at least]
    none: why neither applies (only when both lists are empty)"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dgdlint.rules.catalogue import DIFF_RULES

HERE = Path(__file__).parent / "cases"
DECLARED = sorted(HERE.glob("*/variants.yaml"))
KEYS = {"reads", "spellings", "boundaries", "none"}


def declaration(path: Path) -> dict:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path}: a mapping"
    assert set(data) <= KEYS, f"{path}: unknown keys {sorted(set(data) - KEYS)}"
    return data


def fails(case: Path) -> bool:
    return (case / "expect.txt").is_file()


@pytest.mark.parametrize("path", DECLARED, ids=[p.parent.name for p in DECLARED])
def test_the_declaration_names_cases_of_its_rule_or_says_why_none_apply(path: Path):
    data = declaration(path)
    assert path.parent.name in DIFF_RULES, f"{path}: no such diff rule"
    assert str(data.get("reads") or "").strip(), f"{path}: say what the rule compares"
    spellings, boundaries = data.get("spellings") or [], data.get("boundaries") or []
    if not spellings and not boundaries:
        assert len(str(data.get("none") or "").strip()) >= 20, f"{path}: no variant cases and no reason why"
        return
    assert "none" not in data, f"{path}: `none` says no variant applies, yet cases are listed"
    for name in [*spellings, *boundaries]:
        assert (path.parent / name / "old.yaml").is_file() and (path.parent / name / "new.yaml").is_file(), \
            f"{path}: {name} is not a case of {path.parent.name}"
    if boundaries:
        sides = {fails(path.parent / name) for name in boundaries}
        assert sides == {True, False}, f"{path}: a boundary needs a passing and a failing case"


@pytest.mark.parametrize("rule_name", sorted(DIFF_RULES))
def test_every_diff_rule_declares_the_values_it_compares_and_the_cases_that_pin_them(rule_name: str):
    assert (HERE / rule_name / "variants.yaml").is_file(), \
        f"{rule_name}: no variants.yaml (its other spellings and boundaries, or why none apply)"
