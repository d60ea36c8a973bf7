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
