"""`helm install` of chart 2.1.0 (from this repository's git history), then `helm upgrade` to this chart,
with the real Helm 3 CLI against the tier's API server, in a namespace of its own. No controller or
kubelet runs, so no Job ever completes, and the test does not pretend one did. What a bare API server
can show is checked: the upgrade stops at the download hook (Helm waits for a Job that never finishes,
then fails) with the graph untouched and the cache claim kept, so the workers can never start before
the download; the upgrade's manifests applied without hooks keep the DGD's and the claim's names, keep
the claim (its resource policy) and remove 2.1.0's Job; an upgrade with the same values again, hooks
on, renders no download (the deployed DGD records the model) and finishes. That a succeeded hook Job is
deleted needs a Job controller and is left to a real cluster. The DGD is stored as v1alpha1 meanwhile (what both charts
write; no operator converts). Skips, saying why, without the built tools (`make tools`) or chart 2.1.0
in the git history."""

from __future__ import annotations

import os
import subprocess

import pytest
from chart_support import CHART
from cluster_support import CLUSTER
from controlplane import storage_version
from test_chart_upgrade import _old_chart

from realtools import require_tool

pytestmark = [pytest.mark.slow, *CLUSTER]

RELEASE = "cosmos3-reasoner"
PATHS = {"jobs": "/apis/batch/v1/namespaces/{ns}/jobs",
         "pvc": "/api/v1/namespaces/{ns}/persistentvolumeclaims",
         "dgd": "/apis/nvidia.com/v1alpha1/namespaces/{ns}/dynamographdeployments"}


def names(plane, namespace: str, kind: str) -> list[str]:
    return sorted(item["metadata"]["name"] for item in plane.request("GET", PATHS[kind].format(ns=namespace))["items"])


def helm(plane, namespace: str, *args: str) -> subprocess.CompletedProcess:
    environment = {"HELM_CACHE_HOME": str(plane.folder / "helm-cache"),
                   "HELM_CONFIG_HOME": str(plane.folder / "helm-config"),
                   "HELM_DATA_HOME": str(plane.folder / "helm-data")}
    command = [require_tool("helm"), *args, "--namespace", namespace, "--kubeconfig", str(plane.kubeconfig)]
    return subprocess.run(command, env={**os.environ, **environment}, capture_output=True, text=True, timeout=300,
                          check=False)


def test_upgrading_a_2_1_0_release_downloads_before_the_graph_and_keeps_its_dgd_and_cache(control_plane, namespace,
                                                                                         tmp_path):
    plane = control_plane
    old_chart = _old_chart(str(tmp_path))
    with storage_version(plane, "v1alpha1"):
        installed = helm(plane, namespace, "install", RELEASE, str(old_chart))
        assert installed.returncode == 0, installed.stderr
        old_jobs = names(plane, namespace, "jobs")
        assert len(old_jobs) == 1 and old_jobs[0].startswith("cosmos3-reasoner-download-")
        assert names(plane, namespace, "pvc") == ["cosmos3-reasoner-model-cache"]
        assert names(plane, namespace, "dgd") == ["cosmos3-reasoner"]
        graph = f"{PATHS['dgd'].format(ns=namespace)}/cosmos3-reasoner"
        before = plane.request("GET", graph)

        # The download hook runs first and nothing runs it here: Helm waits for it, then gives up.
        upgraded = helm(plane, namespace, "upgrade", RELEASE, str(CHART), "--timeout", "10s")
        assert upgraded.returncode != 0, upgraded.stderr
        assert "pre-upgrade hooks failed" in upgraded.stderr and "timed out" in upgraded.stderr, upgraded.stderr
        hook_jobs = [job for job in plane.request("GET", PATHS["jobs"].format(ns=namespace))["items"]
                     if "pre-upgrade" in job["metadata"].get("annotations", {}).get("helm.sh/hook", "")]
        assert len(hook_jobs) == 1 and not hook_jobs[0].get("status", {}).get("succeeded")
        after = plane.request("GET", graph)
        assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]  # graph untouched
        assert names(plane, namespace, "pvc") == ["cosmos3-reasoner-model-cache"]

        # The upgrade's own manifests, hooks aside: the same names, the claim kept, 2.1.0's Job gone.
        applied = helm(plane, namespace, "upgrade", RELEASE, str(CHART), "--no-hooks", "--timeout", "60s")
        assert applied.returncode == 0, applied.stderr
        assert names(plane, namespace, "dgd") == ["cosmos3-reasoner"]
        assert names(plane, namespace, "pvc") == ["cosmos3-reasoner-model-cache"]  # kept by its resource policy
        assert old_jobs[0] not in names(plane, namespace, "jobs")
        dgd = plane.request("GET", graph)
        assert dgd["metadata"]["labels"]["helm.sh/chart"] != before["metadata"]["labels"]["helm.sh/chart"]
        assert dgd["metadata"]["annotations"]["cosmos3-reasoner/downloaded"].startswith(
            "cosmos3-reasoner-model-cache/")

        # The same values again, hooks on: the deployed DGD records this model on this claim (read with
        # `lookup`), so no download hook is rendered and Helm has no Job to wait for; the claim hook finds
        # the claim and is not re-created.
        again = helm(plane, namespace, "upgrade", RELEASE, str(CHART), "--timeout", "60s")
        assert again.returncode == 0, again.stderr
        hooks = helm(plane, namespace, "get", "hooks", RELEASE).stdout
        assert "kind: Job" not in hooks and "kind: PersistentVolumeClaim" not in hooks
        assert names(plane, namespace, "pvc") == ["cosmos3-reasoner-model-cache"]
