"""The schema stage past structure: CEL rules of a CRD given by the user (reported once when a rule does
not compile) and list keys of built-in kinds."""

from __future__ import annotations

import json

from dgdlint.engine import check_texts
from dgdlint.schema import SchemaStage

WIDGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "spec": {"group": "example.com", "names": {"kind": "Widget"}, "versions": [{
        "name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {
                "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
                "spec": {"type": "object", "properties": {
                "replicas": {"type": "integer"}},
                "x-kubernetes-validations": [
                    {"rule": "self.replicas <= 3", "message": "at most three replicas"},
                    {"rule": "self.replicas.noSuchFunction()", "message": "never evaluated"}]}}}}}]}}
WIDGET = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {name}\nspec:\n  replicas: {replicas}\n"


def findings(texts: dict, stage) -> list:
    return [(f.file, f.line, f.rule, f.severity, f.path, f.message) for f in check_texts(texts, stage).findings
            if f.stage == "schema"]


def test_a_crd_given_brings_its_own_cel_rules_and_an_uncompilable_one_is_reported_once(tmp_path):
    (tmp_path / "widget.json").write_text(json.dumps(WIDGET_CRD))
    stage = SchemaStage([str(tmp_path / "widget.json")])
    found = findings({"a.yaml": WIDGET.format(name="a", replicas=5), "b.yaml": WIDGET.format(name="b", replicas=1)},
                     stage)
    assert found[0] == ("a.yaml", 5, "crd-cel-rule", "error", "spec", "at most three replicas")
    [uncompiled] = [f for f in found if f[2] == "crd-cel-uncompiled"]
    assert uncompiled[3] == "info" and "self.replicas.noSuchFunction()" in uncompiled[5]
    assert len(found) == 2


JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: j
spec:
  template:
    spec:
      restartPolicy: Never
      imagePullSecrets: [{name: ngc}, {name: ngc}]
      containers:
        - name: c
          image: busybox:1.36
          ports: [{containerPort: 80}, {containerPort: 80}]
        - name: c
          image: busybox:1.36
"""


def test_built_in_kinds_have_their_list_keys_checked_as_server_side_apply_checks_them():
    """Errors, also where a create takes the duplicate (ports, pull secrets): server-side apply refuses every
    one (tests/cluster/test_list_duplicates.py shows both on a real API server)."""
    found = findings({"job.yaml": JOB}, SchemaStage())
    assert [(line, rule, severity, path) for _, line, rule, severity, path, _ in found] == [
        (9, "kubernetes-list-duplicate", "error", "spec.template.spec.imagePullSecrets[1]"),
        (13, "kubernetes-list-duplicate", "error", "spec.template.spec.containers[0].ports[1]"),
        (14, "kubernetes-list-duplicate", "error", "spec.template.spec.containers[1]"),
    ]


def test_an_entry_without_its_list_key_is_refused_where_no_default_gives_one():
    """A ServiceAccount's secrets entry without a name: server-side apply cannot place it; a pod's pull secret
    without one takes the name "" by default (tests/cluster/test_list_duplicates.py holds both on a server)."""
    account = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a}\nsecrets: [{name: a}, {namespace: b}]\n"
    found = findings({"sa.yaml": account}, SchemaStage())
    assert [(rule, severity, path) for _, _, rule, severity, path, _ in found] == [
        ("kubernetes-list-duplicate", "error", "secrets[1]")]
    assert findings({"sa.yaml": account.replace("{namespace: b}", "{name: b}")}, SchemaStage()) == []
    assert findings({"job.yaml": JOB.replace("[{name: ngc}, {name: ngc}]", "[{}]")
                    .replace("- name: c\n          image: busybox:1.36\n", "", 1)
                    .replace("[{containerPort: 80}, {containerPort: 80}]", "[]")}, SchemaStage()) == []


def secret_crd(tmp_path, rule: str) -> SchemaStage:
    crd = json.loads(json.dumps(WIDGET_CRD))
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"] = {"key": {"type": "string"}, "kind": {"type": "string", "enum": ["a", "b"]},
                          "replicas": {"type": "integer"}}
    spec["x-kubernetes-validations"] = [{"rule": rule, "message": "never shown"}]
    (tmp_path / "secret.json").write_text(json.dumps(crd))
    return SchemaStage([str(tmp_path / "secret.json")])


def test_a_rule_that_cannot_be_evaluated_never_repeats_the_objects_values(tmp_path):
    """An evaluation error of the evaluator quotes values (here the key itself): the finding keeps only what
    comes before the first quote."""
    stage = secret_crd(tmp_path, "int(self.key) > 0")
    text = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  key: nvapi-SECRET123\n"
    [finding] = [f for f in check_texts({"w.yaml": text}, stage).findings if f.rule == "crd-cel-rule"]
    assert "could not be evaluated" in finding.message
    assert "SECRET" not in finding.message and "nvapi" not in finding.message


def test_a_wrongly_typed_field_leaves_the_cel_rules_unchecked_as_the_api_server_does(tmp_path):
    stage = secret_crd(tmp_path, "self.replicas <= 3")
    base = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  replicas: 5\n"
    assert [f.rule for f in check_texts({"w.yaml": base}, stage).findings if f.stage == "schema"] == ["crd-cel-rule"]
    for wrong in ("  kind: c\n", "  key: 7\n"):  # outside the enum; not a string
        rules = sorted(f.rule for f in check_texts({"w.yaml": base + wrong}, stage).findings if f.stage == "schema")
        assert rules == ["crd-schema"], wrong
