"""Kubernetes' CEL libraries as dgdlint evaluates them, each function against the behaviour the Kubernetes
CEL documentation describes (examples written here from that description), plus cel-go's strings
extension as the evaluator ships it."""

from __future__ import annotations

import pytest

from dgdlint.schema.cel import CelRule, CelRuntime, field_path_parts


@pytest.fixture(scope="module")
def runtime():
    return CelRuntime()


def holds(runtime, expression: str, value=None) -> bool:
    outcome = runtime.check(CelRule(expression), value, None, False)
    assert not outcome.error, outcome.error
    return outcome.passed


@pytest.mark.parametrize("expression", [
    # quantities
    "quantity('1.5G').isGreaterThan(quantity('1Gi'))",
    "quantity('50M').isLessThan(quantity('50Mi'))",
    "quantity('200M').compareTo(quantity('0.2G')) == 0",
    "quantity('1') == quantity('1000m')",
    "quantity('50k').add(20).isGreaterThan(quantity('50k'))",
    "quantity('200M').sub(quantity('100M')) == quantity('100M')",
    "quantity('50k').isInteger() && quantity('50k').asInteger() == 50000",
    "!quantity('1.5').isInteger()",
    "quantity('1.5').asApproximateFloat() == 1.5",
    "sign(quantity('-3')) == -1 && sign(quantity('0')) == 0",
    "isQuantity('1.3G') && !isQuantity('1.3 G') && !isQuantity('')",
    # lists
    "[1, 2, 3].isSorted() && !['b', 'a'].isSorted()",
    "[1, 2, 3].sum() == 6 && [1.5, 2.5].sum() == 4.0",
    "[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3",
    # regular expressions
    "'abc 123'.find('[0-9]+') == '123' && 'abc'.find('[0-9]+') == ''",
    "'123 abc 456'.findAll('[0-9]+') == ['123', '456']",
    "'123 abc 456'.findAll('[0-9]+', 1) == ['123']",
    # strings (cel-go's extension)
    "'TacoCat'.lowerAscii() == 'tacocat' && 'TacoCat'.upperAscii() == 'TACOCAT'",
    "'hello mellow'.split(' ') == ['hello', 'mellow'] && 'a/b/c'.split('/', 2) == ['a', 'b/c']",
    "['a', 'b'].join('-') == 'a-b' && ' x '.trim() == 'x'",
    "'hello'.replace('l', 'L') == 'heLLo' && 'hello'.substring(1, 3) == 'el'",
    "'hello'.indexOf('l') == 2 && 'hello'.lastIndexOf('l') == 3 && 'hello'.charAt(1) == 'e'",
    # core macros and has()
    "[1, 2, 3].all(x, x > 0) && [1, 2, 3].exists(x, x == 2) && [1, 2, 3].filter(x, x > 1).size() == 2",
    "[1, 2].map(x, x * 2) == [2, 4] && has(self.a) && !has(self.b)",
])
def test_a_documented_behaviour_holds(runtime, expression):
    assert holds(runtime, expression, {"a": 1})


def test_sign_is_a_function_not_a_method(runtime):
    # Kubernetes' quantity library documents `<Quantity>.sign()` but declares a global overload only (cel.Overload,
    # not cel.MemberOverload): the API server refuses the method call when it compiles the rule.
    outcome = runtime.check(CelRule("quantity('1').sign() == 1"), {}, None, False)
    assert outcome.passed and outcome.error, outcome


def test_a_string_that_is_no_quantity_is_an_evaluation_error(runtime):
    outcome = runtime.check(CelRule("quantity(self).isGreaterThan(quantity('0'))"), "eight gigs", None, False)
    assert not outcome.passed and "quantities must match" in outcome.error


def test_optional_old_self_has_no_value_on_create_and_the_stored_value_on_update(runtime):
    rule = CelRule("oldSelf.hasValue() || !has(self.restart)", optional_old_self=True)
    assert not runtime.check(rule, {"restart": {"id": "a"}}, None, False).passed
    assert runtime.check(rule, {"restart": {"id": "a"}}, {}, True).passed
    assert runtime.check(CelRule("oldSelf.orValue(1) == 1", optional_old_self=True), {}, None, False).passed


def test_a_transition_rule_runs_only_on_an_update(runtime):
    rule = CelRule("self == oldSelf", message="immutable")
    assert runtime.check(rule, 2, None, False) is None
    assert runtime.check(rule, 2, 1, True).message == "immutable"


def test_message_expression_reason_and_defaults(runtime):
    rule = CelRule("self.size() < 3", message_expression="'has ' + string(self.size()) + ' items'")
    assert runtime.check(rule, [1, 2, 3], None, False).message == "has 3 items"
    assert runtime.check(CelRule("self > 1"), 0, None, False).message == "failed rule: self > 1"


def test_a_rule_that_does_not_compile_says_so_and_is_compiled_once(runtime):
    outcome = runtime.check(CelRule("self.nosuchfunction("), 1, None, False)
    assert outcome.passed and outcome.error.startswith("does not compile")
    assert runtime.compile("self.nosuchfunction(") is runtime.compile("self.nosuchfunction(")


def test_field_paths_are_parsed_as_kubernetes_writes_them():
    assert field_path_parts(".spec.items['a.b'][0].name") == ("spec", "items", "a.b", 0, "name")
    assert field_path_parts("spec") is None


def test_a_violation_sits_at_the_field_path_and_names_a_reason_other_than_invalid():
    from dgdlint.schema.validations import SchemaWalker

    schema = {"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-validations": [
        {"rule": "has(self.size)", "message": "size is required", "fieldPath": ".size", "reason": "FieldValueRequired"},
        {"rule": "self.mode != 'x'", "messageExpression": "'mode ' + self.mode + ' is retired'"}]}}}
    violations = list(SchemaWalker(schema, CelRuntime()).violations({"spec": {"mode": "x"}}))
    assert [(v.path, v.message, v.reason) for v in violations] == [
        (("spec", "size"), "size is required", "FieldValueRequired"),
        (("spec",), "mode x is retired", "FieldValueInvalid")]
