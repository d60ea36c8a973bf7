"""Every check rule's page shows a failing manifest and its fix: package data under
validate/dgdlint/rules/examples/<rule>.fail.yaml and <rule>.pass.yaml, printed by `dgdlint explain` and
rendered in docs/rules.md.

The examples are run here, so a page cannot show what dgdlint does not do. Checked alone, as
`dgdlint check` would (ignore annotations applied, no CRD): the failing example produces its rule at
the rule's severity, on the lines its `# <-` comments point at, and no other error or warning; the fix
produces no finding of its rule and no error or warning at all, and the CRD schema accepts it."""

from __future__ import annotations

import importlib.resources
import re

import pytest

from dgdlint.docs import examples, explain
from dgdlint.engine import CheckResult, apply_policy, check_texts
from dgdlint.rules import REGISTRY

EXAMPLES = importlib.resources.files("dgdlint.rules") / "examples"
RULES = sorted(REGISTRY)
MARK = "# <-"
FILE_NAME = re.compile(r"^(?P<rule>[a-z0-9-]+)\.(?P<kind>fail|pass)\.yaml$")


def check(rule_name: str, kind: str, text: str, schema_stage=None) -> CheckResult:
    result = check_texts({f"{rule_name}.{kind}.yaml": text}, schema_stage)
    apply_policy(result)
    return result


def pair(rule_name: str) -> tuple[str, str]:
    found = examples(rule_name)
    assert found is not None, f"{rule_name} has no examples"
    return found


def loud(result: CheckResult) -> list[tuple[str, str, int, str]]:
    return [(f.severity, f.rule, f.line, f.message) for f in result.findings if f.severity in ("error", "warning")]


@pytest.mark.parametrize("rule_name", RULES)
def test_every_check_rule_has_a_failing_example_and_its_fix(rule_name: str):
    for kind in ("fail", "pass"):
        path = EXAMPLES / f"{rule_name}.{kind}.yaml"
        assert path.is_file(), f"missing validate/dgdlint/rules/examples/{rule_name}.{kind}.yaml"
        assert MARK in path.read_text(encoding="utf-8"), f"{path.name}: no `{MARK}` comment on the line that matters"


def test_example_files_name_registered_rules():
    for entry in EXAMPLES.iterdir():
        match = FILE_NAME.match(entry.name)
        assert match, f"{entry.name}: examples are <rule>.fail.yaml and <rule>.pass.yaml"
        assert match.group("rule") in REGISTRY, f"{entry.name}: no such check rule"


@pytest.mark.parametrize("rule_name", RULES)
def test_the_failing_example_produces_its_rule_where_it_points(rule_name: str):
    rule = REGISTRY[rule_name]
    text = pair(rule_name)[0]
    result = check(rule_name, "fail", text)
    own = [f for f in result.findings if f.rule == rule_name]
    assert own, f"{rule_name}.fail.yaml does not produce {rule_name}: {loud(result)}"
    assert {f.severity for f in own} == {rule.severity}
    others = [finding for finding in loud(result) if finding[1] != rule_name]
    assert not others, f"{rule_name}.fail.yaml should fail {rule_name} alone: {others}"
    marked = {number for number, line in enumerate(text.splitlines(), 1) if MARK in line}
    assert {f.line for f in own} <= marked, f"{rule_name} reported on {[f.line for f in own]}, marked {sorted(marked)}"


@pytest.mark.parametrize("rule_name", RULES)
def test_the_fix_produces_no_finding_of_its_rule_and_no_error_or_warning(rule_name: str):
    result = check(rule_name, "pass", pair(rule_name)[1])
    assert not [f for f in result.findings if f.rule == rule_name]
    assert not loud(result)
    # A fix may record a reviewed exception only where the rule itself says to.
    for suppressed in result.suppressed:
        assert suppressed.finding.rule == rule_name
        assert f"dgdlint/ignore-{rule_name}" in REGISTRY[rule_name].remediation


@pytest.mark.parametrize("rule_name", RULES)
def test_the_fix_passes_the_crd_schema(crd_schema_stage, rule_name: str):
    result = check(rule_name, "pass", pair(rule_name)[1], crd_schema_stage)
    assert not [(f.line, f.path, f.message) for f in result.findings if f.stage == "schema" and f.severity == "error"]
    assert not loud(result)


@pytest.mark.parametrize("rule_name", RULES)
def test_explain_prints_both_examples(rule_name: str):
    fail, fixed = pair(rule_name)
    page = explain(REGISTRY[rule_name])
    fails_at, passes_at = page.index("\nFails:\n"), page.index("\nPasses (the fix):\n")
    assert fails_at < page.index(_indented(fail)) < passes_at < page.index(_indented(fixed))


def test_the_rules_page_renders_both_examples_as_yaml():
    from dgdlint.tools.gendocs import rules_page

    page = rules_page()
    for rule_name in RULES:
        fail, fixed = pair(rule_name)
        section = page.split(f"## `{rule_name}` ", 1)[1].split("\n## ", 1)[0]
        assert f"**Fails:**\n\n```yaml\n{fail}\n```" in section
        assert f"**Passes (the fix):**\n\n```yaml\n{fixed}\n```" in section


def test_a_rule_without_example_files_has_no_examples_section():
    from dgdlint.diff import DIFF_RULES

    rule = next(iter(DIFF_RULES.values()))
    assert examples(rule.name) is None
    assert "Fails:" not in explain(rule)


def _indented(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())
