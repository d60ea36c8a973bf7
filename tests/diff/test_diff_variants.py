"""Each diff rule says, in tests/diff/cases/<rule>/variants.yaml, which values it compares and which of its
cases pin them against a mutant: another spelling of a value (case, quoting, quantity forms, version
spellings, a default written out) and, for a comparison, a case at its boundary and one away from it on
each side. Entries are case folders of that rule; a case with `expect.txt` fails, one without is a
passing twin. A rule that compares no spelled value and no number says why (`none:`). The mutation test
(tests/rules/test_mutations.py) shows such cases fail when a diff rule reads case-sensitively, drops a
spelling or loosens a comparison.

The format and its reading: tests/variants.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from dgdlint.rules.catalogue import DIFF_RULES
from variants import check_declaration

HERE = Path(__file__).parent / "cases"
DECLARED = sorted(HERE.glob("*/variants.yaml"))


@pytest.mark.parametrize("path", DECLARED, ids=[p.parent.name for p in DECLARED])
def test_the_declaration_names_cases_of_its_rule_or_says_why_none_apply(path: Path):
    def problem(name: str) -> str | None:
        case = path.parent / name
        has_both = (case / "old.yaml").is_file() and (case / "new.yaml").is_file()
        return None if has_both else f"is not a case of {path.parent.name}"

    check_declaration(path, DIFF_RULES, problem, lambda name: (path.parent / name / "expect.txt").is_file())


@pytest.mark.parametrize("rule_name", sorted(DIFF_RULES))
def test_every_diff_rule_declares_the_values_it_compares_and_the_cases_that_pin_them(rule_name: str):
    assert (HERE / rule_name / "variants.yaml").is_file(), \
        f"{rule_name}: no variants.yaml (its other spellings and boundaries, or why none apply)"
