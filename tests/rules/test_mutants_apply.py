"""Each mutant of test_mutations.py still applies: its text is in its module exactly once. The mutants run in
the slow tier; a rule's code moved or reworded would otherwise be noticed only there."""

from __future__ import annotations

from test_mutations import MUTANTS, PACKAGE


def test_every_mutant_s_text_is_in_its_module_once():
    stale = [(module, before[:60]) for module, before, _after, _rule in MUTANTS
             if (PACKAGE / module).read_text(encoding="utf-8").count(before) != 1]
    assert stale == [], f"update these mutants: {stale}"
