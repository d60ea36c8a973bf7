"""A CEL rule is given only the fields of `self` (and `oldSelf`) it can observe, when every use of the variable
reads a named field: the evaluator converts all of a value it is handed, and a DGD's spec is large. The cut
must never change a result or a message, so every fixture is checked with and without it."""

from __future__ import annotations

import pytest
from fixture_cases import SCHEMA_FIXTURES, relative
from test_schema_fixtures import schema_findings

from dgdlint.schema import cel
from dgdlint.schema.cel import CelRule, CelRuntime, pruned


@pytest.mark.parametrize(("rule", "fields"), [
    ("self.replicas <= 3", {"replicas"}),
    ("!has(self.create) || (has(self.size) && self.size != '')", {"create", "size"}),
    ("self.?restart.orValue('') == ''", {"restart"}),
    ("self . ? restart . hasValue()", {"restart"}),  # spaces are allowed between CEL's tokens
    ("self.services.all(k, self.services[k].replicas >= 0)", {"services"}),  # a call on a field's value
    ("oldSelf.hasValue() || !has(self.restart)", {"restart"}),  # oldSelf is another variable
    ("'self' == 'self'", None),  # inside a string, but read conservatively: a bare use
])
def test_the_fields_a_rule_reads(rule, fields):
    assert CelRule(rule).self_fields == (None if fields is None else frozenset(fields))


@pytest.mark.parametrize("rule", [
    "size(self) <= 3",  # the whole value counted
    "self.all(k, k.startsWith('a'))",  # its keys iterated
    "self.exists(k, k == 'x')",
    "self['replicas'] <= 3",  # indexed: a name the text need not spell as a field
    "self == oldSelf",  # compared whole
    "'replicas' in self",
    "self.size() > 0",  # a method of the value itself
    "[1].all(self, self > 0) && has(self.x)",  # shadowed by a macro variable
])
def test_a_rule_that_can_see_the_whole_value_gets_all_of_it(rule):
    assert CelRule(rule).self_fields is None
    value = {"replicas": 1, "other": 2}
    assert pruned(value, CelRule(rule).self_fields) is value


def test_the_message_expression_counts_too():
    rule = CelRule("self.replicas <= 3", message_expression="'too many: ' + string(self.limit)")
    assert rule.self_fields == frozenset({"replicas", "limit"})
    assert CelRule("self.a > 0", message_expression="string(size(self))").self_fields is None


def test_a_cut_value_gives_the_same_results_and_messages():
    runtime = CelRuntime()
    rule = CelRule("!has(self.minAvailable) || self.minAvailable <= self.replicas",
                   message_expression="'minAvailable ' + string(self.minAvailable) + ' > ' + string(self.replicas)")
    for value in ({"minAvailable": 3, "replicas": 2, "image": "x"}, {"replicas": 2, "image": "x"},
                  {"minAvailable": 1, "replicas": 2}, {"minAvailable": 1, "image": "x"}):
        outcome = runtime.check(rule, value, None, False)
        whole = runtime.evaluate(runtime.compile(rule.rule), {"self": value})
        assert (outcome.passed, outcome.error != "") == (whole[0] is True, whole[1] is not None)
    assert runtime.check(rule, {"minAvailable": 3, "replicas": 2, "image": "x"}, None, False).message == \
        "minAvailable 3 > 2"


FIXTURES = [p for p in SCHEMA_FIXTURES if "DynamoGraphDeployment" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", FIXTURES, ids=relative)
def test_every_fixture_gives_the_same_findings_with_and_without_the_cut(path, monkeypatch):
    def seen(findings):
        return [(f.rule, f.path, f.line, f.message) for f in findings]

    cut = seen(schema_findings(path))
    monkeypatch.setattr(cel, "pruned", lambda value, fields: value)
    assert seen(schema_findings(path)) == cut
