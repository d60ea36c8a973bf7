"""The chart installed for real: the Helm 3 CLI installs a preset into the test API server, upgrades it
to other values and back, runs its tests and uninstalls it; after each step the test reads what exists.

No kubelet or Job controller runs here, so no pod ever starts and no Job finishes. The install, upgrade
and uninstall cycle therefore uses the download's `gated` mode (an ordinary Job beside the DGD, nothing
for Helm to wait on); the default `hook` mode is checked for what Helm does before its download hook
finishes (the claim and the Job created, the DGD not yet); `helm test` can only time out waiting for its
test pod. Nothing here marks a Job complete or pretends a pod ran (nor in test_chart_upgrade_from_2_1_0.py,
which upgrades from chart 2.1.0 in the hook mode)."""

from __future__ import annotations

import os
import subprocess

import pytest
import yaml
from chart_support import CHART, VALUES_DIR, render
from cluster_support import CLUSTER
from controlplane import ApiError, storage_version

from realtools import require_tool

pytestmark = CLUSTER

RELEASE = "reasoner"


def helm(plane, *args: str, check: bool = True, binary: str = "helm") -> subprocess.CompletedProcess:
    command = [require_tool(binary), *args, "--kubeconfig", str(plane.kubeconfig)]
    environment = {**os.environ, "HELM_CACHE_HOME": str(plane.folder / "helm-cache"),
                   "HELM_CONFIG_HOME": str(plane.folder / "helm-config"),
                   "HELM_DATA_HOME": str(plane.folder / "helm-data")}
    completed = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300, check=False)
    if check:
        assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed


def names(plane, namespace: str, path: str) -> list[str]:
    items = plane.request("GET", f"/{path.format(ns=namespace)}")["items"]
    return sorted(item["metadata"]["name"] for item in items)


def dgd_names(plane, namespace: str, version: str) -> list[str]:
    return names(plane, namespace, f"apis/nvidia.com/{version}/namespaces/{{ns}}/dynamographdeployments")


def holds(stored: object, rendered: object) -> bool:
    """The stored object holds everything rendered (the server may add defaults from the CRD)."""
    if isinstance(rendered, dict):
        return isinstance(stored, dict) and all(key in stored and holds(stored[key], value)
                                                for key, value in rendered.items())
    if isinstance(rendered, list):
        return isinstance(stored, list) and len(stored) == len(rendered) and all(map(holds, stored, rendered))
    return stored == rendered


def stored_dgd(plane, namespace: str, version: str, name: str) -> dict:
    return plane.request("GET", f"/apis/nvidia.com/{version}/namespaces/{namespace}/dynamographdeployments/{name}")


def job_names(plane, namespace: str) -> list[str]:
    return names(plane, namespace, "apis/batch/v1/namespaces/{ns}/jobs")


def claim_names(plane, namespace: str) -> list[str]:
    return names(plane, namespace, "api/v1/namespaces/{ns}/persistentvolumeclaims")


GATED = {"download": {"mode": "gated"}, "model": {"profile": "0123456789abcdef-fp8-tp1"}}


def expected(preset: str, namespace: str, values: dict | None = GATED):
    return render(values, files=(VALUES_DIR / preset,), release=RELEASE, namespace=namespace)


def gated(version: str) -> dict:
    return {**GATED, "operator": {"apiVersion": version}}


def values_file(tmp_path, values: dict) -> str:
    path = tmp_path / "values.yaml"
    path.write_text(yaml.safe_dump(values), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("version", ["v1alpha1", "v1beta1"])
def test_install_upgrade_and_back_test_and_uninstall_with_the_helm3_cli(control_plane, namespace, tmp_path, version):
    with storage_version(control_plane, version):
        install_upgrade_back_test_uninstall(control_plane, namespace, values_file(tmp_path, gated(version)),
                                            "nano-fp8.yaml", "nano-bf16.yaml", version)


def install_upgrade_back_test_uninstall(plane, namespace, gated_values, preset, other, version):
    first, second = expected(preset, namespace, gated(version)), expected(other, namespace, gated(version))
    assert not [o for o in first.objects if o["metadata"].get("annotations", {}).get("helm.sh/hook", "test")
                != "test"], "the gated mode has no install or upgrade hook"

    helm(plane, "install", RELEASE, str(CHART), "-n", namespace, "-f", str(VALUES_DIR / preset), "-f", gated_values)
    dgd_name = first.dgd["metadata"]["name"]
    assert dgd_names(plane, namespace, version) == [dgd_name]
    assert job_names(plane, namespace) == [first.job["metadata"]["name"]]
    claim = first.one("PersistentVolumeClaim")["metadata"]["name"]
    assert claim_names(plane, namespace) == [claim]

    upgraded = helm(plane, "upgrade", RELEASE, str(CHART), "-n", namespace, "-f", str(VALUES_DIR / other),
                    "-f", gated_values, check=False)
    assert upgraded.returncode == 0 and "immutable" not in upgraded.stderr, upgraded.stderr
    assert dgd_names(plane, namespace, version) == [dgd_name] == [second.dgd["metadata"]["name"]]
    assert holds(stored_dgd(plane, namespace, version, dgd_name)["spec"], second.dgd["spec"]), "changed in place"
    assert job_names(plane, namespace) == [second.job["metadata"]["name"]] != [first.job["metadata"]["name"]]

    back = helm(plane, "upgrade", RELEASE, str(CHART), "-n", namespace, "-f", str(VALUES_DIR / preset),
                "-f", gated_values, check=False)
    assert back.returncode == 0 and "immutable" not in back.stderr, back.stderr
    assert holds(stored_dgd(plane, namespace, version, dgd_name)["spec"], first.dgd["spec"])
    assert job_names(plane, namespace) == [first.job["metadata"]["name"]]
    history = helm(plane, "history", RELEASE, "-n", namespace, "-o", "json").stdout
    assert history.count('"revision"') == 3

    # helm test creates the test pods, then waits for them to finish: with no kubelet they never start.
    tested = helm(plane, "test", RELEASE, "-n", namespace, "--timeout", "5s", check=False)
    assert tested.returncode != 0 and "timed out waiting for the condition" in tested.stderr, tested.stderr
    test_pods = [o["metadata"]["name"] for o in first.test_hooks if o["kind"] == "Pod"]
    assert test_pods and set(test_pods) <= set(names(plane, namespace, "api/v1/namespaces/{ns}/pods"))

    helm(plane, "uninstall", RELEASE, "-n", namespace)
    assert dgd_names(plane, namespace, version) == []
    assert job_names(plane, namespace) == []
    assert claim_names(plane, namespace) == [claim], "the model cache is kept (helm.sh/resource-policy: keep)"
    with pytest.raises(ApiError):
        plane.request("GET", f"/api/v1/namespaces/{namespace}/secrets/sh.helm.release.v1.{RELEASE}.v1")


def test_in_the_hook_mode_helm_creates_the_claim_and_the_download_job_and_waits_before_the_graph(control_plane,
                                                                                                    namespace):
    """No Job controller: the download hook never completes, so Helm times out waiting for it, having
    created the claim hook and the Job hook, and never the DGD: nothing reaches the GPUs before the model."""
    plane = control_plane
    hooked = expected("nano-fp8.yaml", namespace, None)
    hook_job = [o for o in hooked.objects if o["kind"] == "Job"]
    assert [o["metadata"]["annotations"]["helm.sh/hook"] for o in hook_job] == ["pre-install,pre-upgrade"]
    installed = helm(plane, "install", RELEASE, str(CHART), "-n", namespace, "-f", str(VALUES_DIR / "nano-fp8.yaml"),
                     "--timeout", "15s", check=False)
    assert installed.returncode != 0
    assert "timed out waiting for the condition" in installed.stderr or "context deadline exceeded" in \
        installed.stderr, installed.stderr
    assert job_names(plane, namespace) == [hook_job[0]["metadata"]["name"]]
    assert claim_names(plane, namespace) == [hooked.one("PersistentVolumeClaim")["metadata"]["name"]]
    assert dgd_names(plane, namespace, "v1alpha1") == []


@pytest.mark.parametrize("binary", ["helm", "helm4"])
def test_rollback_applies_the_first_release_again_as_updates_the_server_takes(control_plane, namespace, tmp_path,
                                                                               binary):
    """`helm rollback` after a variant, precision and mode change (gated mode: no hook to wait for). No
    download runs on a rollback (the Job is no pre-rollback hook): the model the first release downloaded is
    still in the kept cache, and the first release's own gated Job comes back by its name."""
    plane, version = control_plane, "v1alpha1"
    values = values_file(tmp_path, gated(version))
    first, second = expected("nano-fp8.yaml", namespace), expected("super-bf16-streaming.yaml", namespace)
    with storage_version(plane, version):
        helm(plane, "install", RELEASE, str(CHART), "-n", namespace, "-f", str(VALUES_DIR / "nano-fp8.yaml"),
             "-f", values, binary=binary)
        helm(plane, "upgrade", RELEASE, str(CHART), "-n", namespace, "-f",
             str(VALUES_DIR / "super-bf16-streaming.yaml"), "-f", values, binary=binary)
        dgd_name = first.dgd["metadata"]["name"]
        assert holds(stored_dgd(plane, namespace, version, dgd_name)["spec"], second.dgd["spec"])
        back = helm(plane, "rollback", RELEASE, "1", "-n", namespace, check=False, binary=binary)
        assert back.returncode == 0 and "immutable" not in back.stderr, back.stderr
        assert holds(stored_dgd(plane, namespace, version, dgd_name)["spec"], first.dgd["spec"])
        assert job_names(plane, namespace) == [first.job["metadata"]["name"]]
        assert claim_names(plane, namespace) == [first.one("PersistentVolumeClaim")["metadata"]["name"]]
