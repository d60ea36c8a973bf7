"""The `variants.yaml` a rule's test cases carry (check rules' fixtures, diff rules' cases): what the rule
reads and which cases pin the other spellings of those values and both sides of each bound, or why
neither applies. One reading for both kinds of case, shared by test_value_variants and test_diff_variants.

    reads: what the rule reads (one line)
    spellings: [cases pinning the other spellings]
    boundaries: [cases at and away from each bound: a passing and a failing one at least]
    none: why neither applies (only when both lists are empty)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import yaml

KEYS = {"reads", "spellings", "boundaries", "none"}


def check_declaration(path: Path, rules, case_problem: Callable[[str], str | None],
                      fails: Callable[[str], bool]) -> None:
    """Assert that `path` names cases of its rule (`case_problem(name)` says what is wrong with an entry, or
    None) and that each boundary list holds a failing and a passing case (`fails(name)`)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path}: a mapping"
    assert set(data) <= KEYS, f"{path}: unknown keys {sorted(set(data) - KEYS)}"
    assert path.parent.name in rules, f"{path}: no such rule"
    assert str(data.get("reads") or "").strip(), f"{path}: say what the rule reads"
    spellings, boundaries = data.get("spellings") or [], data.get("boundaries") or []
    if not spellings and not boundaries:
        assert len(str(data.get("none") or "").strip()) >= 20, f"{path}: no variant cases and no reason why"
        return
    assert "none" not in data, f"{path}: `none` says no variant applies, yet cases are listed"
    for name in [*spellings, *boundaries]:
        problem = case_problem(name)
        assert problem is None, f"{path}: {name} {problem}"
    if boundaries:
        assert {fails(name) for name in boundaries} == {True, False}, \
            f"{path}: a boundary needs a passing and a failing case"
