"""The schema stage: DGDs against the CRD of their apiVersion (derived at run time), built-in kinds
against Kubernetes' schemas, every error at its field path, no secret value in a message."""

from __future__ import annotations

import pytest
import yaml

from dgdlint.engine import check_texts
from dgdlint.schema import (
    CrdError,
    SchemaStage,
    openapi_to_jsonschema,
    prune_nulls,
    read_crds_from_cluster,
    zero_nulls,
)

V1BETA1_DGD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  backendFramework: vllm
  components:
    - name: Frontend
      type: frontend
      replicas: 1
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
"""


def schema_findings(text: str, stage) -> list:
    return [f for f in check_texts({"m.yaml": text}, stage).findings if f.stage == "schema"]


def test_objects_with_properties_are_closed_unless_they_preserve_unknown_fields():
    converted = openapi_to_jsonschema({
        "type": "object",
        "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}},
                       "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                                "properties": {"c": {"type": "string"}}},
                       "size": {"x-kubernetes-int-or-string": True, "pattern": "^[0-9]+Gi$"}},
    })
    assert converted["additionalProperties"] is False
    assert converted["properties"]["a"]["additionalProperties"] is False
    assert "additionalProperties" not in converted["properties"]["free"]
    assert converted["properties"]["size"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]


def test_integer_formats_become_the_bounds_of_their_range_and_tighter_bounds_stay():
    converted = openapi_to_jsonschema({"type": "object", "properties": {
        "a": {"type": "integer", "format": "int32"},
        "b": {"type": "integer", "format": "int64", "minimum": 1},
        "c": {"type": "integer", "format": "int32", "maximum": 2**40},
        "d": {"type": "string", "format": "date-time"},
    }})["properties"]
    assert converted["a"] == {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1}
    assert converted["b"] == {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}
    assert converted["c"] == {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1}
    assert converted["d"] == {"type": "string"}


def test_nulls_are_pruned_as_the_api_server_does():
    assert prune_nulls({"a": None, "b": [{"c": None, "d": 1}]}) == {"b": [{"d": 1}]}


def test_a_built_in_kind_reads_a_null_item_or_map_value_as_its_types_zero_value():
    """Go decodes `containers: [null]` as a container without a name (refused), `args: [null]` as "" and a null
    label as the empty label (both accepted), `limits: {cpu: null}` as the quantity 0; a null field is no
    field; an unknown field written as null is still unknown."""
    stage = SchemaStage()
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "labels": {"a": None}},
           "spec": {"backoffLimit": None, "template": {"spec": {"restartPolicy": "Never", "containers": [
               {"name": "c", "image": "busybox:1.36.1", "args": [None], "unknown": None,
                "resources": {"limits": {"cpu": None}}}, None]}}}}
    schema = stage.builtins.validators("batch/v1", "Job")[2]
    zeroed = zero_nulls(job, schema, stage.builtins.definitions())
    container, empty = zeroed["spec"]["template"]["spec"]["containers"]
    assert (zeroed["metadata"]["labels"], "backoffLimit" in zeroed["spec"], empty) == ({"a": ""}, False, {})
    assert (container["args"], container["unknown"], container["resources"]) == ([""], None, {"limits": {"cpu": "0"}})


def test_a_null_field_is_pruned_before_the_schema_sees_it(crd_schema_stage):
    """`replicas: null` is dropped as the API server drops it (no type error), in a document that has a null."""
    text = V1BETA1_DGD.replace("replicas: 1", "replicas: null")
    assert text != V1BETA1_DGD
    assert schema_findings(text, crd_schema_stage) == []
    assert [f.path for f in schema_findings(text.replace("replicas: null", "replicas: one"), crd_schema_stage)] \
        == ["spec.components[0].replicas"]


def test_a_valid_v1beta1_dgd_passes_the_crd(crd_schema_stage):
    assert schema_findings(V1BETA1_DGD, crd_schema_stage) == []


def test_a_nested_typo_is_reported_at_its_own_line_with_a_suggestion(crd_schema_stage):
    text = V1BETA1_DGD.replace("      replicas: 1\n", "      replicas: 1\n      replica: 2\n")
    [finding] = schema_findings(text, crd_schema_stage)
    assert (finding.rule, finding.line, finding.path) == ("crd-schema", 11, "spec.components[0].replica")
    assert "did you mean 'replicas'" in finding.message


def test_every_error_is_reported_not_only_the_first(crd_schema_stage):
    text = V1BETA1_DGD.replace("type: frontend", "type: frontdoor").replace("replicas: 1", "replicas: one")
    found = {(f.path, f.line) for f in schema_findings(text, crd_schema_stage)}
    assert found == {("spec.components[0].type", 9), ("spec.components[0].replicas", 10)}


def test_each_missing_required_field_is_named_for_itself():
    """python-jsonschema gives one error per missing field; each finding names its own (an HPA policy
    missing both `value` and `periodSeconds` said `value` twice)."""
    text = """\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: workers
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: workers}
  maxReplicas: 4
  behavior:
    scaleUp:
      policies:
        - type: Pods
"""
    messages = sorted(f.message.split(" [")[0] for f in schema_findings(text, SchemaStage([])))
    assert messages == ["missing required field 'periodSeconds'", "missing required field 'value'"]


def test_v1alpha1_is_checked_against_its_own_version(crd_schema_stage):
    text = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  services:
    Frontend:
      componentType: frontend
      resources:
        requests:
          gpu: 1
"""
    [finding] = schema_findings(text, crd_schema_stage)
    assert (finding.path, finding.line) == ("spec.services.Frontend.resources.requests.gpu", 11)
    assert "must be string" in finding.message


def test_an_unknown_crd_version_is_an_error(crd_schema_stage):
    [finding] = schema_findings(V1BETA1_DGD.replace("v1beta1", "v9"), crd_schema_stage)
    assert finding.rule == "crd-version-unknown" and "v1alpha1, v1beta1" in finding.message


def test_built_in_kinds_use_kubernetes_schemas_and_never_echo_secret_values():
    stage = SchemaStage([])
    text = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: j
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: busybox:1.36
          env:
            - name: NGC_API_KEY
              value: 12345678901234567890
"""
    [finding] = schema_findings(text, stage)
    assert finding.rule == "kubernetes-schema" and finding.line == 14
    assert "12345678901234567890" not in finding.message


JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: j
spec:
  parallelism: PARALLELISM
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: busybox:1.36
"""


@pytest.mark.parametrize(("parallelism", "refused"), [(2**31 - 1, False), (2**31, True), (-(2**31) - 1, True)])
def test_a_built_in_int32_field_refuses_what_its_format_cannot_hold(parallelism, refused):
    findings = schema_findings(JOB.replace("PARALLELISM", str(parallelism)), SchemaStage([]))
    assert [(f.rule, f.path) for f in findings] == ([("kubernetes-schema", "spec.parallelism")] if refused else [])


@pytest.mark.parametrize(("api_version", "kind"), [("v1", "A" * 300), ("v1", "../../x"), ("../v1", "Pod"),
                                                   ("v" + "1" * 300, "Pod"), ("1.5", "Pod")])
def test_a_kind_or_api_version_no_schema_file_can_have_is_only_unavailable(api_version, kind):
    text = f"apiVersion: '{api_version}'\nkind: '{kind}'\nmetadata:\n  name: a\n"
    assert [(f.rule, f.severity) for f in schema_findings(text, SchemaStage([]))] == [("schema-unavailable", "info")]


def test_without_a_crd_or_bundled_schemas_the_schema_stage_says_once_that_it_skipped():
    two = V1BETA1_DGD + "---\n" + V1BETA1_DGD.replace("name: demo", "name: other")
    findings = schema_findings(two, SchemaStage([], bundled=False))
    assert [(f.rule, f.severity) for f in findings] == [("schema-skipped", "info")]


def test_a_kind_without_schema_is_skipped_with_info(crd_schema_stage):
    text = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"
    [finding] = schema_findings(text, crd_schema_stage)
    assert (finding.rule, finding.severity) == ("schema-unavailable", "info")


def test_a_path_that_is_no_crd_is_a_usage_error(tmp_path):
    (tmp_path / "x.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n")
    with pytest.raises(CrdError):
        SchemaStage([str(tmp_path / "x.yaml")])
    with pytest.raises(CrdError):
        SchemaStage([str(tmp_path / "missing.yaml")])


def test_the_cluster_adapter_turns_the_client_object_into_a_crd(dynamo_crds):
    """No API server runs here: this tests the adapter alone, on the object the `kubernetes` client returns."""
    from kubernetes import client

    crd_dict = yaml.safe_load(dynamo_crds.dgd.read_text())

    import json

    # The typed object the client's read_custom_resource_definition returns, built by the client itself.
    returned = client.ApiClient().deserialize(json.dumps(crd_dict), "V1CustomResourceDefinition", "application/json")

    class OneCrdApi:
        def read_custom_resource_definition(self, name):
            if name == "dynamographdeployments.nvidia.com":
                return returned
            raise client.exceptions.ApiException(status=404, reason="Not Found")

    crds = read_crds_from_cluster(api=OneCrdApi())
    assert len(crds) == 1
    assert crds[0]["spec"]["names"]["kind"] == "DynamoGraphDeployment"
    from dgdlint.schema import crd_versions

    assert [v.version for v in crd_versions(crds[0], "cluster")] == ["v1alpha1", "v1beta1"]


def test_the_whole_crd_directory_loads_every_dynamo_kind(dynamo_crds):
    stage = SchemaStage([str(dynamo_crds.newest)])
    kinds = {kind for _, kind, _ in stage.crds}
    assert {"DynamoGraphDeployment", "DynamoGraphDeploymentRequest", "DynamoComponentDeployment"} <= kinds
    if dynamo_crds.upstream:  # the kinds the bundled schemas leave out
        assert {"DynamoModel", "DynamoGraphDeploymentScalingAdapter"} <= kinds


def test_converted_crds_are_cached_by_content_and_give_the_same_schemas(tmp_path, monkeypatch, dynamo_crds):
    dgd_crd = dynamo_crds.dgd
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = SchemaStage([str(dgd_crd)])
    [entry] = list((tmp_path / "dgdlint").glob("crd-*.json"))
    second = SchemaStage([str(dgd_crd)])
    assert {k: v.schema for k, v in first.crds.items()} == {k: v.schema for k, v in second.crds.items()}
    entry.write_text("not json")  # a damaged cache entry is ignored and rewritten
    assert SchemaStage([str(dgd_crd)]).crds.keys() == first.crds.keys()
    monkeypatch.setenv("DGDLINT_NO_CACHE", "1")
    entry.unlink()
    SchemaStage([str(dgd_crd)])
    assert not entry.exists()


def test_a_crd_can_come_from_a_url(tmp_path, dynamo_crds):
    """An http(s) URL is fetched once (here from a server on 127.0.0.1 serving the reference CRD)."""
    import functools
    import http.server
    import threading

    dgd_crd = dynamo_crds.dgd
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(dgd_crd.parent))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/{dgd_crd.name}"
        stage = SchemaStage([url])
        assert ("nvidia.com", "DynamoGraphDeployment", "v1beta1") in stage.crds
        assert schema_findings(V1BETA1_DGD, stage) == []
        with pytest.raises(CrdError):
            SchemaStage([url.replace(dgd_crd.name, "missing.yaml")])
    finally:
        server.shutdown()


def test_when_the_explaining_validator_names_nothing_the_object_still_fails(monkeypatch):
    """jsonschema-rs answers valid or not; python-jsonschema names the fields. Should they ever disagree on an
    object, the object fails at its kind with a note, rather than passing in silence."""
    stage = SchemaStage()
    crd = next(iter(stage.crds.values()))

    class NamesNothing:
        def iter_errors(self, _instance):
            return iter(())

    monkeypatch.setattr(type(crd), "validator", lambda _self: NamesNothing())
    findings = schema_findings(V1BETA1_DGD.replace("replicas: 1", "replicas: one"), stage)
    assert [(f.rule, f.severity, f.path) for f in findings] == [("crd-schema", "error", "")]
    assert "names no field" in findings[0].message
