"""The workers under a scaling adapter, installed and upgraded for real with the Helm 3 and Helm 4 CLIs: the
replica count is the adapter's, so an upgrade must leave the count the adapter set as it is. The operator's
webhook refuses any other change of it (dgdlint diff's update-replicas-scaling-adapter says the same).

No operator runs here: the adapter's change of the count is an update by another field manager, as the
operator's adapter controller writes it. The gated download mode gives Helm no hook to wait for."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import storage_version
from test_chart_install import CHART, RELEASE, VALUES_DIR, expected, gated, helm, stored_dgd, values_file

pytestmark = CLUSTER

WORKER = "ReasonerWorker"


def worker(dgd: dict) -> dict:
    spec = dgd["spec"]
    if "services" in spec:
        return spec["services"][WORKER]
    (entry,) = [c for c in spec["components"] if c["name"] == WORKER]
    return entry


def scale_as_the_adapter(plane, namespace: str, version: str, name: str, replicas: int) -> None:
    dgd = stored_dgd(plane, namespace, version, name)
    worker(dgd)["replicas"] = replicas
    plane.request("PUT", f"/apis/nvidia.com/{version}/namespaces/{namespace}/dynamographdeployments/{name}"
                         "?fieldManager=dynamo-operator", dgd)


def webhook_refusals(tmp_path, before: dict, after: dict) -> list[str]:
    """What `dgdlint diff` says of the graph's update from `before` to `after` (its update-* rules read the
    operator's update validation)."""
    sides = []
    for side, obj in (("old", before), ("new", after)):
        path = tmp_path / f"{side}.yaml"
        path.write_text(yaml.safe_dump(obj), encoding="utf-8")
        sides.append(str(path))
    completed = subprocess.run([sys.executable, "-m", "dgdlint", "diff", "--format", "json", *sides],
                               capture_output=True, text=True, check=False)
    findings = json.loads(completed.stdout)["findings"]
    return [f["message"] for f in findings if f["rule"].startswith("update-")]


@pytest.mark.parametrize("binary", ["helm", "helm4"])
@pytest.mark.parametrize("version", ["v1alpha1", "v1beta1"])
def test_an_upgrade_keeps_the_count_the_adapter_set(control_plane, namespace, tmp_path, version, binary):
    plane = control_plane
    values = values_file(tmp_path, {**gated(version), "worker": {"scalingAdapter": {"enabled": True}}})
    name = expected("nano-fp8.yaml", namespace).dgd["metadata"]["name"]
    with storage_version(plane, version):
        helm(plane, "install", RELEASE, str(CHART), "-n", namespace, "-f", str(VALUES_DIR / "nano-fp8.yaml"),
             "-f", values, binary=binary)
        # A first install writes no count: the operator starts at 1.
        assert "replicas" not in worker(stored_dgd(plane, namespace, version, name))
        scale_as_the_adapter(plane, namespace, version, name, 3)
        before = stored_dgd(plane, namespace, version, name)
        # The same values, then a worker.replicas the adapter makes moot: the count stays the adapter's.
        for extra in ((), ("--set", "worker.replicas=5")):
            helm(plane, "upgrade", RELEASE, str(CHART), "-n", namespace, "-f", str(VALUES_DIR / "nano-fp8.yaml"),
                 "-f", values, *extra, binary=binary)
            after = stored_dgd(plane, namespace, version, name)
            assert worker(after)["replicas"] == 3
            assert webhook_refusals(tmp_path, before, after) == []


@pytest.mark.parametrize("version", ["v1alpha1", "v1beta1"])
def test_turning_the_adapter_on_keeps_the_count_the_release_had(control_plane, namespace, tmp_path, version):
    plane = control_plane
    name = expected("nano-fp8.yaml", namespace).dgd["metadata"]["name"]
    plain = values_file(tmp_path, {**gated(version), "worker": {"replicas": 2}})
    with storage_version(plane, version):
        helm(plane, "install", RELEASE, str(CHART), "-n", namespace, "-f", str(VALUES_DIR / "nano-fp8.yaml"),
             "-f", plain)
        before = stored_dgd(plane, namespace, version, name)
        helm(plane, "upgrade", RELEASE, str(CHART), "-n", namespace, "-f", str(VALUES_DIR / "nano-fp8.yaml"),
             "-f", plain, "--set", "worker.scalingAdapter.enabled=true")
        after = stored_dgd(plane, namespace, version, name)
        assert worker(after)["replicas"] == 2
        assert webhook_refusals(tmp_path, before, after) == []
        # Written as 1 (what the count of a chart without lookup would become), the webhook would refuse it.
        worker(after)["replicas"] = 1
        assert any("replicas change from 2 to 1" in message for message in webhook_refusals(tmp_path, before, after))
