"""kubernetes-field-dropped: a field the API server drops under its default feature gates, written in a
built-in object or in a DynamoGraphDeployment's pod template, is a warning at that field (the cluster tier,
tests/cluster/test_dropped_fields.py, holds the table to a real server); a null one, or one checked against
another Kubernetes release's schemas, is not."""

from __future__ import annotations

import pytest

from dgdlint.engine import check_texts
from dgdlint.schema import SchemaStage

JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: busybox:1.36.1
          lifecycle: {stopSignal: %s}
          volumeMounts: [{name: data, mountPath: /data, bindMountOptions: [ro]}]
      volumes:
        - {name: data, emptyDir: {mode: 448}}
        - {name: conf, configMap: {name: c, defaultUser: 1000, items: [{key: a, path: a, user: 1000}]}}
"""
ALPHA = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: g}
spec:
  backendFramework: vllm
  services:
    Frontend:
      componentType: frontend
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
          lifecycle: {stopSignal: SIGTERM}
"""
_POD = "spec.template.spec"


def _dropped(text: str, stage: SchemaStage | None = None) -> list[tuple[str, str]]:
    result = check_texts({"m.yaml": text}, stage or SchemaStage())
    assert not [f for f in result.findings if f.severity == "error"], [f.message for f in result.findings]
    return sorted((f.path, f.severity) for f in result.findings if f.rule == "kubernetes-field-dropped")


def test_each_dropped_field_of_a_job_is_a_warning_at_it():
    assert _dropped(JOB % "SIGTERM") == sorted([
        (f"{_POD}.containers[0].lifecycle.stopSignal", "warning"),
        (f"{_POD}.containers[0].volumeMounts[0].bindMountOptions", "warning"),
        (f"{_POD}.volumes[0].emptyDir.mode", "warning"),
        (f"{_POD}.volumes[1].configMap.defaultUser", "warning"),
        (f"{_POD}.volumes[1].configMap.items[0].user", "warning")])


def test_a_null_field_is_no_field():
    assert f"{_POD}.containers[0].lifecycle.stopSignal" not in dict(_dropped(JOB % "null"))


def test_a_graph_s_main_container_is_read_as_the_pod_s_container():
    assert _dropped(ALPHA) == [("spec.services.Frontend.extraPodSpec.mainContainer.lifecycle.stopSignal", "warning")]


@pytest.mark.parametrize("version", ["1.36"])
def test_another_release_s_gates_are_not_assumed(version):
    result = check_texts({"m.yaml": JOB % "SIGTERM"}, SchemaStage([], kubernetes_version=version))
    assert not [f for f in result.findings if f.rule == "kubernetes-field-dropped"]


CLAIM = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: model-cache}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 200Gi}}
  dataSourceRef: {apiGroup: snapshot.storage.k8s.io, kind: VolumeSnapshot, name: weights%s}
"""


def test_a_claim_s_data_source_naming_a_namespace_is_a_warning_at_the_reference():
    result = check_texts({"m.yaml": CLAIM % ", namespace: models"}, SchemaStage())
    assert [(f.rule, f.path, f.severity, f.line) for f in result.findings] == [
        ("kubernetes-field-dropped", "spec.dataSourceRef", "warning", 7)]
    assert "CrossNamespaceVolumeDataSource" in result.findings[0].message


@pytest.mark.parametrize("namespace", ["", ", namespace: ''", ", namespace: null"])
def test_a_claim_s_data_source_in_its_own_namespace_is_kept(namespace):
    assert _dropped(CLAIM % namespace) == []


def test_a_common_name_is_looked_for_only_under_the_keys_its_definition_sits_under():
    """dropped.UNDER: a graph's pod templates are walked only where a key could be a dropped field; for a name
    common elsewhere (a port's protocol), only under the keys through which Kubernetes' pod spec reaches the
    definition that holds the dropped field. Derived here from the definitions, every place of every one."""
    from dgdlint.schema.builtin import BuiltinSchemas
    from dgdlint.schema.dropped import POD_SPEC, UNDER, dropped_table, may_hold

    schemas = BuiltinSchemas()
    schemas.validators("v1", "Pod")
    definitions = schemas.definitions()
    holders = {name: set(fields) for name, fields in dropped_table()[1].items()}
    parents: dict[str, set] = {}
    seen, stack = set(), [POD_SPEC]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        for key, node in (definitions.get(name, {}).get("properties") or {}).items():
            below = node.get("items", node) if isinstance(node, dict) else {}
            target = str(below.get("$ref", "")).rpartition("/")[2] if isinstance(below, dict) else ""
            if target:
                for field in holders.get(target, ()):
                    parents.setdefault(field, set()).add(key)
                stack.append(target)
    for field, keys in UNDER.items():
        assert parents.get(field) and parents[field] <= set(keys), (field, parents.get(field))
    assert not may_hold({"containers": [{"ports": [{"containerPort": 80, "protocol": "TCP"}]}]})
    assert may_hold({"containers": [{"livenessProbe": {"httpGet": {"port": 80, "protocol": "h2c"}}}]})


@pytest.mark.parametrize(("keys", "expected"), [
    ({"containers", "ports", "containerPort", "protocol"}, False),  # a port's protocol: no walk
    ({"containers", "livenessProbe", "httpGet", "port", "protocol"}, True),
    ({"containers", "lifecycle", "stopSignal"}, True),
    ({"containers", "image", "name"}, False),
])
def test_the_keys_the_loader_kept_spare_the_walk_only_where_no_dropped_field_can_be(keys, expected):
    """may_hold's `keys` (Document.keys, every key the document writes) is a prefilter: False only where no key
    is a dropped field's name (a common one under its usual key); the value's own walk decides the rest."""
    from dgdlint.schema.dropped import may_hold

    value = {"containers": [{"lifecycle": {"stopSignal": "SIGUSR1"},
                             "livenessProbe": {"httpGet": {"protocol": "h2c"}}}]}
    assert may_hold(value, frozenset(keys)) is expected


def test_the_loader_keeps_every_key_a_document_writes():
    from dgdlint.load import LoadResult, load_text

    loaded = LoadResult()
    load_text("m.yaml", "base: &b {x: 1}\nspec:\n  <<: *b\n  containers:\n  - name: a\n    'quoted': 2\n", loaded)
    assert loaded.documents[0].keys == {"base", "x", "spec", "containers", "name", "quoted"}
