"""Each rule says, in tests/rules/<rule>/variants.yaml, which values it reads and which of its fixtures
pin them against a mutant: another spelling of a value (case, `yes`/`on`/`1`, spaces, quoting) and, for a
comparison, a value at its boundary and one away from it on each side. A rule that reads no spelled value
and compares no number says why (`none:`). The mutation test (test_mutations.py) shows such fixtures
fail when a rule reads case-sensitively, drops a spelling or loosens a comparison.

The format and its reading: tests/variants.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from dgdlint.rules import REGISTRY
from variants import check_declaration

HERE = Path(__file__).parent
DECLARED = sorted(HERE.glob("*/variants.yaml"))


@pytest.mark.parametrize("path", DECLARED, ids=[p.parent.name for p in DECLARED])
def test_the_declaration_names_fixtures_of_its_rule_or_says_why_none_apply(path: Path):
    def problem(name: str) -> str | None:
        if name.split("/")[0] not in ("pass", "fail"):
            return "is not under pass/ or fail/"
        return None if (path.parent / name).is_file() else f"is not a fixture of {path.parent.name}"

    check_declaration(path, REGISTRY, problem, lambda name: name.split("/")[0] == "fail")


@pytest.mark.parametrize("rule_name", sorted(REGISTRY))
def test_every_rule_declares_the_values_it_reads_and_the_fixtures_that_pin_them(rule_name: str):
    assert (HERE / rule_name / "variants.yaml").is_file(), \
        f"{rule_name}: no variants.yaml (its other spellings and boundaries, or why none apply)"
