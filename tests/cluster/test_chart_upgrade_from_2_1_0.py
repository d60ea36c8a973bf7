"""`helm install` of chart 2.1.0 (from this repository's git history), then `helm upgrade` to this chart,
with the real Helm 3 CLI against the tier's API server, in a namespace of its own. No controllers run, so
the test does what the Job controller would: it marks the download hook complete once Helm created it.
Checked: the DGD and the cache claim keep their names, the claim survives, the 2.1.0 Job leaves and the
succeeded hook Job is deleted (no orphan), the claim hook is not re-created ("already exists"), and a
second upgrade with the same values finds the model recorded on the DGD and runs no download at all.
The DGD is stored as v1alpha1 meanwhile (what both charts write; no operator converts). Skips, saying
why, without the built tools (`make tools`) or chart 2.1.0 in the git history."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time

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


def complete_jobs_as_the_controller_would(plane, namespace: str, stop: threading.Event) -> None:
    """Mark every download Job Helm creates as succeeded (no Job controller or kubelet runs here)."""
    while not stop.is_set():
        for job in plane.request("GET", PATHS["jobs"].format(ns=namespace))["items"]:
            if job.get("status", {}).get("conditions"):
                continue
            now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            status = {"status": {"startTime": now, "completionTime": now, "succeeded": 1, "conditions": [
                {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": now},
                {"type": "Complete", "status": "True", "lastTransitionTime": now}]}}
            path = f"{PATHS['jobs'].format(ns=namespace)}/{job['metadata']['name']}/status"
            plane.request("PATCH", path, json.dumps(status).encode(), content_type="application/merge-patch+json")
        stop.wait(0.5)


def helm(plane, namespace: str, *args: str) -> subprocess.CompletedProcess:
    environment = {"HELM_CACHE_HOME": str(plane.folder / "helm-cache"),
                   "HELM_CONFIG_HOME": str(plane.folder / "helm-config"),
                   "HELM_DATA_HOME": str(plane.folder / "helm-data")}
    command = [require_tool("helm"), *args, "--namespace", namespace, "--kubeconfig", str(plane.kubeconfig)]
    return subprocess.run(command, env={**os.environ, **environment}, capture_output=True, text=True, timeout=300,
                          check=False)


def test_upgrading_a_2_1_0_release_keeps_its_dgd_and_cache_and_leaves_no_orphaned_job(control_plane, namespace,
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

        stop = threading.Event()
        controller = threading.Thread(target=complete_jobs_as_the_controller_would, args=(plane, namespace, stop),
                                      daemon=True)
        controller.start()
        try:
            upgraded = helm(plane, namespace, "upgrade", RELEASE, str(CHART), "--timeout", "120s")
        finally:
            stop.set()
            controller.join()
        assert upgraded.returncode == 0, upgraded.stderr
        assert names(plane, namespace, "dgd") == ["cosmos3-reasoner"]
        assert names(plane, namespace, "pvc") == ["cosmos3-reasoner-model-cache"]  # kept by its resource policy
        # The 2.1.0 Job left with the old manifest; the hook Job, once it succeeded, was deleted by its policy.
        assert names(plane, namespace, "jobs") == []
        dgd = plane.request("GET", f"{PATHS['dgd'].format(ns=namespace)}/cosmos3-reasoner")
        assert dgd["metadata"]["annotations"]["cosmos3-reasoner/downloaded"].startswith(
            "cosmos3-reasoner-model-cache/")

        # The same values again: the DGD records the model, so no download hook is rendered, and nothing has
        # to complete a Job for Helm to finish (no controller runs now). The claim hook is not re-created.
        again = helm(plane, namespace, "upgrade", RELEASE, str(CHART), "--timeout", "60s")
        assert again.returncode == 0, again.stderr
        assert names(plane, namespace, "jobs") == []
        assert names(plane, namespace, "pvc") == ["cosmos3-reasoner-model-cache"]
        manifest = helm(plane, namespace, "get", "hooks", RELEASE).stdout
        assert "kind: Job" not in manifest and "kind: PersistentVolumeClaim" not in manifest
