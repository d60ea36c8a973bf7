"""Nulls as the API server stores them: a null map entry or field of a custom resource is dropped before
validation and before any webhook sees the object, while an empty string is kept. dgdlint's schema stage
prunes nulls the same way, and the model reads a null pod annotation as no annotation (the operator's
webhook, reading the stored object, finds none): checked here against a real API server."""

from __future__ import annotations

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import ApiError, install_crd, resource_path

from dgdlint.engine import check_texts
from dgdlint.schema import SchemaStage, prune_declared_nulls, prune_nulls, zero_nulls
from dgdlint.webhook_component import GPU_POWER_LIMIT
from dgdlint.webhook_model import graph_views

pytestmark = CLUSTER

DGD = f"""\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: nulls
spec:
  backendFramework: vllm
  components:
    - name: Frontend
      type: frontend
      replicas: 1
      podTemplate:
        metadata:
          annotations:
            {GPU_POWER_LIMIT}: null
            kept: ""
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
              workingDir: null
              env:
                - name: EMPTY
                  value: null
"""


def stored(plane, namespace: str, text: str) -> dict:
    """The object as the server would store it (a server-side dry-run create, strict field validation)."""
    body = yaml.safe_load(text)
    body["metadata"]["namespace"] = namespace
    path = resource_path(plane, body["apiVersion"], body["kind"], namespace)
    return plane.request("POST", path + "?dryRun=All&fieldValidation=Strict", body)


def test_null_entries_are_dropped_and_empty_strings_kept_as_dgdlint_prunes_them(control_plane, namespace):
    component = stored(control_plane, namespace, DGD)["spec"]["components"][0]
    written = yaml.safe_load(DGD)["spec"]["components"][0]
    assert component["podTemplate"]["metadata"] == prune_nulls(written["podTemplate"]["metadata"])
    assert component["podTemplate"]["metadata"]["annotations"] == {"kept": ""}
    container = component["podTemplate"]["spec"]["containers"][0]
    assert "workingDir" not in container
    assert container["env"] == [{"name": "EMPTY"}]


def test_the_model_reads_a_null_env_value_as_the_empty_value_the_server_keeps(control_plane, namespace):
    [entry] = stored(control_plane, namespace, DGD)["spec"]["components"][0]["podTemplate"]["spec"]["containers"][0][
        "env"]
    [graph] = check_texts({"m.yaml": DGD}).model.graphs
    assert entry.get("value", "") == graph.components[0].main.env_value("EMPTY") == ""


def test_the_model_reads_a_null_power_limit_as_none_and_an_empty_one_as_set(control_plane, namespace):
    annotations = stored(control_plane, namespace, DGD)["spec"]["components"][0]["podTemplate"]["metadata"][
        "annotations"]
    [view] = graph_views(check_texts({"m.yaml": DGD}).model)
    assert GPU_POWER_LIMIT not in annotations
    assert view.components[0].power_limit is None
    empty = DGD.replace(f"{GPU_POWER_LIMIT}: null", f'{GPU_POWER_LIMIT}: ""')
    annotations = stored(control_plane, namespace, empty)["spec"]["components"][0]["podTemplate"]["metadata"][
        "annotations"]
    [view] = graph_views(check_texts({"m.yaml": empty}).model)
    assert annotations[GPU_POWER_LIMIT] == view.components[0].power_limit.text == ""


# A CRD of this test's own: a declared field, a map of strings and a preserve-unknown-fields object with
# one declared property, each under a CEL rule that asks whether a field is there (CEL cannot name the
# undeclared fields of a preserved subtree at all: the server refuses such a rule). The server's verdicts
# are the oracle for where nulls are dropped before the rules run; what it stores shows where they are kept.
PROBE_CRD = yaml.safe_load("""\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: nullprobes.dgdlint.example
spec:
  group: dgdlint.example
  scope: Namespaced
  names: {plural: nullprobes, singular: nullprobe, kind: NullProbe, listKind: NullProbeList}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            apiVersion: {type: string}
            kind: {type: string}
            metadata: {type: object}
            spec:
              type: object
              x-kubernetes-validations:
                - rule: "!has(self.declared)"
                  message: declared is set
              properties:
                declared: {type: string}
                labels:
                  type: object
                  additionalProperties: {type: string}
                  x-kubernetes-validations:
                    - rule: "!('a' in self)"
                      message: label a is set
                free:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true
                partly:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true
                  x-kubernetes-validations:
                    - rule: "!has(self.known)"
                      message: partly known is set
                  properties:
                    known: {type: string}
""")

PROBE_SPECS = {
    "declared-null": "declared: null",
    "declared-set": "declared: d",
    "label-null": "labels: {a: null, b: c}",
    "label-set": "labels: {a: x}",
    "partly-known-null": "partly: {known: null, other: null}",
    "partly-known-set": "partly: {known: k}",
}


@pytest.fixture(scope="module")
def probe_crd(control_plane, tmp_path_factory):
    return install_crd(control_plane, PROBE_CRD, tmp_path_factory.mktemp("crd"))


@pytest.mark.parametrize("case", sorted(PROBE_SPECS))
def test_cel_rules_see_a_field_as_the_api_server_leaves_it(control_plane, namespace, probe_crd, case):
    text = f"apiVersion: dgdlint.example/v1\nkind: NullProbe\nmetadata:\n  name: {case}\nspec:\n  {PROBE_SPECS[case]}\n"
    try:
        stored(control_plane, namespace, text)
        server = set()
    except ApiError as error:
        server = {cause.get("message", "") for cause in error.body.get("details", {}).get("causes", [])}
        assert server, error.body
    findings = check_texts({"probe.yaml": text}, SchemaStage([probe_crd])).findings
    ours = {f.message for f in findings if f.severity == "error"}
    messages = ("declared is set", "label a is set", "partly known is set")
    assert {m for m in messages if any(m in s for s in server)} == {m for m in messages if any(m in s for s in ours)}
    assert bool(server) == bool(ours), (server, ours)


def test_nulls_in_a_preserved_subtree_are_stored_as_written_and_pruned_as_the_server_does(
        control_plane, namespace, probe_crd):
    spec = "free: {x: null, y: {z: null}, l: [null]}\n  partly: {known: null, other: null}"
    text = f"apiVersion: dgdlint.example/v1\nkind: NullProbe\nmetadata:\n  name: preserved\nspec:\n  {spec}\n"
    kept = stored(control_plane, namespace, text)["spec"]
    assert kept == {"free": {"x": None, "y": {"z": None}, "l": [None]}, "partly": {"other": None}}
    schema = SchemaStage([probe_crd]).crds[("dgdlint.example", "NullProbe", "v1")].schema
    assert prune_declared_nulls(yaml.safe_load(text), schema)["spec"] == kept


# A built-in kind is decoded into Go structs: a null list item or map value becomes its type's zero value.
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: nulls
  labels: {a: null, b: c}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: busybox:1.36.1
          args: [a]
"""
JOB_CASES = {
    "arg-item": ("args: [a]", "args: [a, null]"),
    "args": ("args: [a]", "args: null"),
    "env-item": ("args: [a]", "env: [null]"),
    "env-value": ("args: [a]", "env: [{name: A, value: null}]"),
    "limit": ("args: [a]", "resources: {limits: {cpu: null}}"),
    "port-item": ("args: [a]", "ports: [null]"),
    "container-item": ("      containers:\n", "      containers:\n        - null\n"),
    "volume-item": ("      containers:\n", "      volumes: [null]\n      containers:\n"),
    "unknown-field": ("args: [a]", "unknown: null"),
}


@pytest.mark.parametrize("case", sorted(JOB_CASES))
def test_a_built_in_kind_takes_its_nulls_as_the_api_server_decodes_them(control_plane, namespace, case):
    old, new = JOB_CASES[case]
    text = JOB.replace(old, new, 1)
    try:
        stored(control_plane, namespace, text)
        server = ""
    except ApiError as error:
        server = error.body.get("message", "")
    errors = [f"{f.rule} {f.path}: {f.message}" for f in check_texts({"job.yaml": text}, SchemaStage()).findings
              if f.severity == "error"]
    assert bool(server) == bool(errors), (server, errors)


def test_a_null_map_value_of_a_built_in_kind_is_kept_as_its_zero_value(control_plane, namespace):
    labels = stored(control_plane, namespace, JOB)["metadata"]["labels"]
    job = yaml.safe_load(JOB)
    stage = SchemaStage()
    [obj] = check_texts({"job.yaml": JOB}, stage).model.objects
    validators = stage.builtins.validators("batch/v1", "Job")
    assert labels == zero_nulls(job, validators[2], stage.builtins.definitions())["metadata"]["labels"] == {
        "a": "", "b": "c"}
    assert obj.value["metadata"]["labels"] == {"a": None, "b": "c"}  # the model keeps what was written
