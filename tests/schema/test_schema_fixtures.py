"""Every CEL rule and list key of the bundled DGD schemas: each fixture in fixtures/fail/ produces exactly
the schema findings its `# expect: RULE PATH [MESSAGE]` lines name, and its twin in fixtures/pass/ none.

Fixture header: `# release: R` (the bundled release to check against), `# old: FILE` (the object is an
update of FILE, as `dgdlint diff` and the API server see it: transition rules compare the two)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from fixture_cases import RULE_FIXTURES, SCHEMA_FIXTURES, relative

from dgdlint.engine import check_texts
from dgdlint.load import LoadResult, load_text
from dgdlint.model import build_model
from dgdlint.schema import SchemaStage

FIXTURES = Path(__file__).parent / "fixtures"
EXPECT = re.compile(r"^# expect: (\S+) (\S+)(?: (.+))?$", re.M)


def fixtures(kind: str) -> list[Path]:
    return sorted(p for p in (FIXTURES / kind).glob("*.yaml") if not p.name.endswith(".old.yaml"))


def header(path: Path, key: str) -> str | None:
    match = re.search(rf"^# {key}: (\S+)", path.read_text(), re.M)
    return match.group(1) if match else None


def schema_findings(path: Path, also: frozenset = frozenset()) -> list:
    """The schema stage's findings, and those of the rules in `also` (a list key a rule reports: env)."""
    stage = SchemaStage(dynamo_version=header(path, "release"))
    old = header(path, "old")
    if old:
        loaded = LoadResult()
        load_text(old, (path.parent / old).read_text(), loaded)
        stage.previous = {obj.ref: obj for obj in build_model(loaded).objects}
    result = check_texts({path.name: path.read_text()}, stage)
    return [f for f in result.findings if f.stage == "schema" or f.rule in also]


@pytest.mark.parametrize("path", fixtures("fail"), ids=lambda p: p.stem)
def test_a_failing_fixture_gives_exactly_its_expected_findings(path):
    expected = EXPECT.findall(path.read_text())
    assert expected, f"{path.name} names no expected finding"
    found = schema_findings(path, frozenset(rule for rule, _, _ in expected))
    assert sorted((f.rule, f.path) for f in found) == sorted((rule, where) for rule, where, _ in expected)
    for rule, where, message in expected:
        [finding] = [f for f in found if (f.rule, f.path) == (rule, where) and (not message or f.message == message)]
        assert finding.severity == "error"
        if rule.endswith("list-duplicate") or rule == "duplicate-env":
            first, *later = finding.related  # the first occurrence, then those after this, the second
            assert first.line < finding.line and all(other.line > finding.line for other in later)
            assert bool(later) == finding.message.endswith(" times")


@pytest.mark.parametrize("path", fixtures("fail"), ids=lambda p: p.stem)
def test_every_failing_fixture_has_a_passing_twin(path):
    assert (FIXTURES / "pass" / path.name).is_file()


@pytest.mark.parametrize("path", fixtures("pass"), ids=lambda p: p.stem)
def test_a_passing_twin_has_no_schema_finding(path):
    assert [(f.rule, f.path, f.message) for f in schema_findings(path, frozenset({"duplicate-env"}))] == []


def test_the_fixtures_cover_every_cel_rule_of_the_bundled_dgd_schemas():
    import json

    from dgdlint.schema.bundled import bundled_root

    rules: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            rules.update(entry["rule"] for entry in node.get("x-kubernetes-validations") or [])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for release in ("1.1.0", "1.5.0-dev"):
        for schema in (bundled_root() / release / "nvidia.com").glob("dynamographdeployment_*.json"):
            walk(json.loads(schema.read_text()))
    messages = {message for path in fixtures("fail") for _, _, message in EXPECT.findall(path.read_text())}
    crd_messages = set()

    def messages_of(node):
        if isinstance(node, dict):
            crd_messages.update((entry["rule"], entry.get("message")) for entry in
                                node.get("x-kubernetes-validations") or [])
            for value in node.values():
                messages_of(value)
        elif isinstance(node, list):
            for value in node:
                messages_of(value)

    for release in ("1.1.0", "1.5.0-dev"):
        for schema in (bundled_root() / release / "nvidia.com").glob("dynamographdeployment_*.json"):
            messages_of(json.loads(schema.read_text()))
    uncovered = sorted(rule for rule, message in crd_messages if message not in messages)
    assert uncovered == [], "CEL rules without a failing fixture"
    assert rules


def test_dgdlint_diff_checks_transition_rules_against_the_old_side(tmp_path):
    import subprocess
    import sys

    new = FIXTURES / "fail" / "min-available-changed-v1beta1.yaml"
    old = FIXTURES / "fail" / "min-available-changed-v1beta1.old.yaml"
    completed = subprocess.run([sys.executable, "-m", "dgdlint", "diff", str(old), str(new)], capture_output=True,
                               text=True, check=False, timeout=120)
    assert completed.returncode == 1
    assert f"{new}:11:5: error crd-cel-rule spec.components[0]: minAvailable is immutable after creation" \
           in completed.stdout
    same = subprocess.run([sys.executable, "-m", "dgdlint", "diff", str(old), str(old)], capture_output=True,
                          text=True, check=False, timeout=120)
    assert "crd-cel-rule" not in same.stdout


def list_keys_of_the_bundled_dgd_schemas() -> set[str]:
    """The name of every list with a list type (map or set) in the bundled DGD schemas, status excluded (the
    API server ignores status on create and update of the main resource)."""
    import json

    from dgdlint.schema.bundled import bundled_root

    names: set[str] = set()

    def walk(node, name):
        if not isinstance(node, dict):
            return
        if node.get("x-kubernetes-list-type") in ("map", "set"):
            names.add(name)
        for key, child in (node.get("properties") or {}).items():
            if key != "status":
                walk(child, key)
        for key in ("items", "additionalProperties"):
            walk(node.get(key), name)

    for release in ("1.1.0", "1.5.0-dev"):
        for schema in (bundled_root() / release / "nvidia.com").glob("dynamographdeployment_*.json"):
            walk(json.loads(schema.read_text()), "")
    return names


def test_the_fixtures_cover_every_list_key_of_the_bundled_dgd_schemas():
    covered = set()
    for path in fixtures("fail"):
        for rule, where, _ in EXPECT.findall(path.read_text()):
            if rule in ("crd-list-duplicate", "duplicate-env"):
                covered.add(re.sub(r"\[\d+\](\.name)?$", "", where).rpartition(".")[2])
    assert sorted(list_keys_of_the_bundled_dgd_schemas() - covered) == []


def test_every_fixture_reads_the_same_under_pyyaml_and_kubernetes_typing():
    """The API-server and kubeconform comparisons send the fixtures as PyYAML reads them (JSON bodies, JSON
    files). That is the object Kubernetes reads only while no fixture holds a scalar the two type apart
    (`y`, `12:30`, `1e3`; load/resolve.py): write such a value quoted, or send that fixture as YAML."""
    differ = []
    for path in SCHEMA_FIXTURES + RULE_FIXTURES:
        text = path.read_text(encoding="utf-8")
        try:
            theirs = [d for d in yaml.safe_load_all(text) if d is not None]
        except yaml.YAMLError:
            continue  # a fixture of malformed YAML: neither sends it
        loaded = load_text(path.name, text)
        if not loaded.findings and [d.value for d in loaded.documents] != theirs:
            differ.append(relative(path))
    assert differ == []
