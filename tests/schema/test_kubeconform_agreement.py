"""kubeconform (built by `make tools`) and dgdlint's schema stage agree on every fixture: the same
objects valid, the same objects invalid, with the schemas `make validate` gives kubeconform (Kubernetes'
from kubernetes-validate made standalone, Dynamo's from the bundled schemas). kubeconform reads the
OpenAPI structure only: it cannot evaluate CEL rules (x-kubernetes-validations) or list-map keys, so
dgdlint's findings of those rules are left out of the comparison, and a test shows kubeconform passing
every object dgdlint rejects only for them. Any other difference is listed in disagreements.yaml."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from fixture_cases import BEYOND_STRUCTURE, RULE_FIXTURES, SCHEMA_FIXTURES, disagreements, documents, header, relative

from dgdlint.engine import check_paths
from dgdlint.schema.bundled import bundled_root, choose_release, read_index
from dgdlint.tools import kubeconform as kc
from realtools import require_tool

NEWEST = choose_release(read_index(bundled_root()), None).name
# kubeconform has one schema per kind and version: fixtures checked against an older release are left out
CASES = [p for p in SCHEMA_FIXTURES if header(p, "release") in (None, NEWEST)] + RULE_FIXTURES


_VERDICTS: dict[str, dict] = {}


def kubeconform_verdicts(binary: str, stage) -> dict[str, dict[tuple[str, str], bool]]:
    """{fixture: {(kind, name): valid}} from one kubeconform run over every fixture (cached)."""
    if binary in _VERDICTS:
        return _VERDICTS[binary]
    with tempfile.TemporaryDirectory() as schemas:
        kc.write_schemas(Path(schemas), kc.kinds_in(CASES), stage)
        report = kc.run(binary, Path(schemas), CASES, missing_ok=True)
    assert not report.get("error"), report.get("error")
    verdicts: dict[str, dict[tuple[str, str], bool]] = {}
    for resource in report["resources"]:
        if resource["status"] == "statusSkipped":
            continue
        assert resource["status"] in ("statusValid", "statusInvalid"), resource
        fixture = relative(Path(resource["filename"]).resolve())
        verdicts.setdefault(fixture, {})[(resource["kind"], resource["name"])] = resource["status"] == "statusValid"
    _VERDICTS[binary] = verdicts
    return verdicts


def schema_errors(path: Path, stage) -> list:
    return [f for f in check_paths([str(path)], stage).findings if f.stage == "schema" and f.severity == "error"]


def object_key(finding) -> tuple[str, str]:
    return finding.object_ref.split("/")[0], finding.object_ref.split("/")[-1]


def dgdlint_verdicts(path: Path, stage, kinds_with_schema: set[str]) -> dict[tuple[str, str], bool]:
    """Valid or not by the structural findings only (the ones kubeconform can also find)."""
    invalid = {object_key(f) for f in schema_errors(path, stage) if f.object_ref and f.rule not in BEYOND_STRUCTURE}
    verdicts = {}
    for document in documents(path):
        metadata = document.get("metadata") or {}
        # kubeconform names an object that has only generateName as "<generateName>{{ generateName }}", and
        # one with neither by an empty name
        generate = metadata.get("generateName")
        name = metadata.get("name") or (f"{generate}{{{{ generateName }}}}" if generate else "")
        key = (str(document.get("kind")), str(name))
        if key[0] in kinds_with_schema:
            verdicts[key] = key not in invalid
    return verdicts


@pytest.mark.parametrize("path", CASES, ids=relative)
def test_kubeconform_and_the_schema_stage_agree_on_each_object(path, crd_schema_stage):
    binary = require_tool("kubeconform")
    theirs = kubeconform_verdicts(binary, crd_schema_stage).get(relative(path), {})
    ours = dgdlint_verdicts(path, crd_schema_stage, {kind for kind, _name in theirs})
    assert set(theirs) == set(ours), "both checked the same objects"
    reason = disagreements("kubeconform").get(relative(path))
    if reason:
        assert theirs != ours, f"listed as a disagreement ({reason}) but they now agree: delete the entry"
    else:
        assert theirs == ours


def test_kubeconform_passes_every_object_only_cel_rules_or_list_keys_reject(crd_schema_stage):
    """Where they differ, shown: each object dgdlint rejects only for a CEL rule or a list key (every CEL and
    list-key fixture) is valid to kubeconform, unless disagreements.yaml says why not."""
    verdicts = kubeconform_verdicts(require_tool("kubeconform"), crd_schema_stage)
    listed = disagreements("kubeconform")
    only_beyond = []
    for path in [p for p in CASES if p.parent.name == "fail" and relative(p) not in listed]:
        errors = schema_errors(path, crd_schema_stage)
        structural = {object_key(f) for f in errors if f.rule not in BEYOND_STRUCTURE}
        only_beyond += [(relative(path), key) for key in {object_key(f) for f in errors if f.rule in BEYOND_STRUCTURE}
                        if key not in structural]
    assert len(only_beyond) >= 40, "the CEL and list-key fixtures"
    assert [case for case in only_beyond if not verdicts[case[0]][case[1]]] == []
