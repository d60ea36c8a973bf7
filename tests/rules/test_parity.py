"""The parity table (validate/dgdlint/data/webhook-parity.yaml, rendered as docs/parity.md) cannot drift from
the rule catalogue: every rule it names exists, every admission rule and every update rule of `dgdlint
diff` is in it, and, where the operator's source is at hand, every Go function it cites exists there."""

from __future__ import annotations

import re

import pytest

from dgdlint.parity import parity_data, parity_page
from dgdlint.rules import REGISTRY
from dgdlint.rules.catalogue import DIFF_RULES, find_rule
from dgdlint.rules.webhook_update import UPDATE_RULES
from refdata import REFERENCE, require_reference

DATA = parity_data()
ENTRIES = DATA["webhook"]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["what"][:60] for e in ENTRIES])
def test_each_webhook_rule_says_when_where_and_who_checks_it(entry):
    assert entry["when"] in ("create", "update")
    assert entry["what"] and entry["source"]
    assert ("rule" in entry) != ("live" in entry), "exactly one of rule and live"
    if "live" in entry:
        assert len(entry["live"]) > 20, "say why only a live cluster can decide it"


def test_every_rule_the_table_names_is_in_the_catalogue():
    named = {e["rule"] for e in ENTRIES if "rule" in e} | {e["rule"] for e in DATA["extra"]}
    assert sorted(name for name in named if find_rule(name) is None) == []


def test_update_rules_are_diff_rules_and_create_rules_check_rules():
    for entry in ENTRIES:
        if "rule" in entry and entry["rule"] != "restart-order-invalid":  # spec.restart exists only on update
            where = DIFF_RULES if entry["when"] == "update" else REGISTRY
            assert entry["rule"] in where, entry["what"]


def test_every_admission_rule_appears_in_the_table():
    named = {e.get("rule") for e in ENTRIES} | {e["rule"] for e in DATA["extra"]}
    admission = {name for name, rule in REGISTRY.items() if rule.family == "admission"}
    assert sorted(admission - named) == []


def test_every_update_rule_of_diff_appears_in_the_table():
    named = {e.get("rule") for e in ENTRIES if e["when"] == "update" or e.get("rule") == "restart-order-invalid"}
    assert sorted({r.name for r in UPDATE_RULES} - named) == []


def test_the_page_lists_every_entry_once():
    page = parity_page()
    rows = [line for line in page.splitlines() if line.startswith("| ") and "`" in line and "---" not in line]
    assert len(rows) == len(ENTRIES) + len(DATA["extra"])
    assert "needs a live cluster: the ClusterTopologyBinding is a cluster object" in page


def _go_functions() -> set[str]:
    root = require_reference(REFERENCE / "dynamo-operator")
    names = set()
    for path in root.rglob("*.go"):
        names.update(re.findall(r"^func (?:\([^)]*\) )?(\w+)", path.read_text(encoding="utf-8"), re.MULTILINE))
    return names


def test_every_function_the_table_cites_is_in_the_operator_source():
    functions = _go_functions()
    cited = {name.strip().rpartition(".")[2] for e in ENTRIES for name in e["source"].split(",")}
    # the Grove-shape check and the identity check live in packages outside the copied files
    outside = {"validateKnownGroveShape", "CanModifyDGDReplicas", "IsElasticEPRayLaunch"}
    assert sorted(cited - functions - outside) == []
