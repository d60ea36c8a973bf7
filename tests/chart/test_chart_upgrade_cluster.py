"""Cluster tier: `helm install` of chart 2.1.0 (from this repository's git history), then `helm upgrade` to
this chart, with the real Helm 3 CLI against a real API server (etcd and kube-apiserver on 127.0.0.1,
started here, with the Dynamo CRD). No controllers run, so the test does what the Job controller would:
it marks the download hook complete once Helm created it. Checked: the DGD and the cache claim keep their
names, the claim survives, the 2.1.0 Job leaves and the succeeded hook Job is deleted (no orphan), the
claim hook is not re-created ("already exists"), and a second upgrade with the same values finds the
model recorded on the DGD and runs no download at all. The CRD is applied without its conversion webhook
(the operator's), storing v1alpha1. Skips, saying why, without the built tools (`make tools`), openssl,
kubectl, the CRD or git history."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
import time

import pytest
import yaml
from chart_support import CHART, CRD_FILE, REPO
from test_chart_upgrade import _old_chart

pytestmark = pytest.mark.slow

TOOLS = REPO / ".tools" / "bin"
RELEASE = "cosmos3-reasoner"


def _tool(name: str) -> str:
    path = TOOLS / name
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.skip(f"{name} is not built in .tools/bin (run `make tools`): cluster tier skipped")
    return str(path)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(check, what: str, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A kubeconfig for a fresh API server; etcd and kube-apiserver stop when the module ends."""
    etcd, apiserver = _tool("etcd"), _tool("kube-apiserver")
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not on PATH (the API server needs a service-account key): cluster tier skipped")
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH (the test reads the cluster with it): cluster tier skipped")
    if not CRD_FILE.is_file():
        pytest.skip(f"the Dynamo DGD CRD is not at {CRD_FILE}: cluster tier skipped")
    work = tmp_path_factory.mktemp("cluster")
    key = work / "sa.key"
    subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True, capture_output=True)
    (work / "tokens.csv").write_text('test-admin-token,admin,admin,"system:masters"\n', encoding="utf-8")
    etcd_port, peer_port, api_port = _free_port(), _free_port(), _free_port()
    logs = [open(work / "etcd.log", "wb"), open(work / "apiserver.log", "wb")]  # noqa: SIM115 (closed below)
    processes = [subprocess.Popen([
        etcd, "--data-dir", str(work / "etcd"), "--listen-client-urls", f"http://127.0.0.1:{etcd_port}",
        "--advertise-client-urls", f"http://127.0.0.1:{etcd_port}",
        "--listen-peer-urls", f"http://127.0.0.1:{peer_port}",
        "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer_port}",
        "--initial-cluster", f"default=http://127.0.0.1:{peer_port}"], stdout=logs[0], stderr=logs[0])]
    processes.append(subprocess.Popen([
        apiserver, "--etcd-servers", f"http://127.0.0.1:{etcd_port}", "--bind-address", "127.0.0.1",
        "--secure-port", str(api_port), "--cert-dir", str(work / "certs"),
        "--token-auth-file", str(work / "tokens.csv"), "--authorization-mode", "AlwaysAllow",
        "--service-account-issuer", "https://kubernetes.default.svc", "--service-account-key-file", str(key),
        "--service-account-signing-key-file", str(key), "--service-cluster-ip-range", "10.96.0.0/16",
        "--disable-admission-plugins", "ServiceAccount"], stdout=logs[1], stderr=logs[1]))
    kubeconfig = work / "kubeconfig"
    kubeconfig.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "test",
        "clusters": [{"name": "test", "cluster": {"server": f"https://127.0.0.1:{api_port}",
                                                  "insecure-skip-tls-verify": True}}],
        "users": [{"name": "admin", "user": {"token": "test-admin-token"}}],
        "contexts": [{"name": "test", "context": {"cluster": "test", "user": "admin", "namespace": "default"}}],
    }), encoding="utf-8")
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "HELM_CACHE_HOME": str(work / "helm-cache"),
           "HELM_CONFIG_HOME": str(work / "helm-config"), "HELM_DATA_HOME": str(work / "helm-data")}
    try:
        def ready() -> bool:
            done = subprocess.run(["kubectl", "get", "namespace", "default"], env=env, capture_output=True)
            return done.returncode == 0
        _wait_for(ready, "the API server and its default namespace")
        crd = yaml.safe_load(CRD_FILE.read_text(encoding="utf-8"))
        # No operator runs, so no conversion webhook: store v1alpha1 (what both charts write) as it is.
        crd["spec"]["conversion"] = {"strategy": "None"}
        for version in crd["spec"]["versions"]:
            version["storage"] = version["name"] == "v1alpha1"
        (work / "crd.json").write_text(json.dumps(crd), encoding="utf-8")
        done = subprocess.run(["kubectl", "apply", "--server-side", "-f", str(work / "crd.json")], env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, f"kubectl apply: {done.stderr}"

        def established() -> bool:
            crd = kubectl_json(env, "get", "crd", "dynamographdeployments.nvidia.com")
            return any(c["type"] == "Established" and c["status"] == "True"
                       for c in crd.get("status", {}).get("conditions") or [])
        _wait_for(established, "the DGD CRD to be established")
        yield env
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        for log in logs:
            log.close()


def kubectl_json(env, *args) -> dict:
    done = subprocess.run(["kubectl", *args, "-o", "json"], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def names(env, kind: str) -> list[str]:
    return sorted(item["metadata"]["name"] for item in kubectl_json(env, "get", kind)["items"])


def complete_jobs_as_the_controller_would(env, stop: threading.Event) -> None:
    """Mark every download Job Helm creates as succeeded (no Job controller or kubelet runs here)."""
    while not stop.is_set():
        for job in kubectl_json(env, "get", "jobs")["items"]:
            if job.get("status", {}).get("conditions"):
                continue
            now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            status = {"status": {"startTime": now, "completionTime": now, "succeeded": 1, "conditions": [
                {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": now},
                {"type": "Complete", "status": "True", "lastTransitionTime": now}]}}
            subprocess.run(["kubectl", "patch", "job", job["metadata"]["name"], "--subresource=status",
                            "--type=merge", "-p", json.dumps(status)], env=env, capture_output=True)
        stop.wait(0.5)


def helm(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run([_tool("helm"), *args], env=env, capture_output=True, text=True, timeout=300)


def test_upgrading_a_2_1_0_release_keeps_its_dgd_and_cache_and_leaves_no_orphaned_job(cluster, tmp_path):
    env = cluster
    old_chart = _old_chart(str(tmp_path))
    installed = helm(env, "install", RELEASE, str(old_chart), "--namespace", "default")
    assert installed.returncode == 0, installed.stderr
    old_jobs = names(env, "jobs")
    assert len(old_jobs) == 1 and old_jobs[0].startswith("cosmos3-reasoner-download-")
    assert names(env, "pvc") == ["cosmos3-reasoner-model-cache"]
    assert names(env, "dynamographdeployments.nvidia.com") == ["cosmos3-reasoner"]

    stop = threading.Event()
    controller = threading.Thread(target=complete_jobs_as_the_controller_would, args=(env, stop), daemon=True)
    controller.start()
    try:
        upgraded = helm(env, "upgrade", RELEASE, str(CHART), "--namespace", "default", "--timeout", "120s")
    finally:
        stop.set()
        controller.join()
    assert upgraded.returncode == 0, upgraded.stderr
    assert names(env, "dynamographdeployments.nvidia.com") == ["cosmos3-reasoner"]
    assert names(env, "pvc") == ["cosmos3-reasoner-model-cache"]  # kept by its resource policy
    # The 2.1.0 Job left with the old manifest; the hook Job, once it succeeded, was deleted by its policy.
    assert names(env, "jobs") == []
    dgd = kubectl_json(env, "get", "dynamographdeployments.nvidia.com", "cosmos3-reasoner")
    assert dgd["metadata"]["annotations"]["cosmos3-reasoner/downloaded"].startswith("cosmos3-reasoner-model-cache/")

    # The same values again: the DGD records the model, so no download hook is rendered, and nothing has
    # to complete a Job for Helm to finish (no controller runs now). The claim hook is not re-created.
    again = helm(env, "upgrade", RELEASE, str(CHART), "--namespace", "default", "--timeout", "60s")
    assert again.returncode == 0, again.stderr
    assert names(env, "jobs") == []
    assert names(env, "pvc") == ["cosmos3-reasoner-model-cache"]
    manifest = helm(env, "get", "hooks", RELEASE, "--namespace", "default").stdout
    assert "kind: Job" not in manifest and "kind: PersistentVolumeClaim" not in manifest
