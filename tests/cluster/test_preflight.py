"""`dgdlint preflight` against the real API server: the test creates the namespace's secrets, a storage
class, a priority class and GPU nodes as ordinary objects (no kubelet: a Node is only an object with a
status), then checks what preflight says about a preset with and without them."""

from __future__ import annotations

import base64
import json
import time

import pytest
from chart_support import CHART, VALUES_DIR
from cluster_support import CLUSTER

from dgdlint.cli import main as dgdlint

pytestmark = CLUSTER

# The worker and the download Job (a hook by default, pinned to the workers' GPU product) each ask for one GPU.


def create(plane, path: str, obj: dict) -> dict:
    return plane.request("POST", path, obj)


def secret(plane, namespace: str, name: str, kind: str, data: dict[str, str]) -> None:
    create(plane, f"/api/v1/namespaces/{namespace}/secrets", {
        "apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "type": kind,
        "data": {key: base64.b64encode(value.encode()).decode() for key, value in data.items()}})


def gpu_node(plane, name: str, product: str, gpus: int, taints: tuple[dict, ...] = ()) -> None:
    node = create(plane, "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node",
                                           "metadata": {"name": name, "labels": {"nvidia.com/gpu.product": product}},
                                           "spec": {"taints": list(taints)}})
    node["status"] = {"capacity": {"nvidia.com/gpu": str(gpus), "cpu": "64", "memory": "512Gi", "pods": "110"},
                      "allocatable": {"nvidia.com/gpu": str(gpus), "cpu": "64", "memory": "512Gi", "pods": "110"}}
    plane.request("PUT", f"/api/v1/nodes/{name}/status", node)


@pytest.fixture
def run(control_plane, dynamo_crds, capsys):
    """preflight of nano-fp8 in a namespace, with `--crd` naming Dynamo 1.1.0's CRDs and the newest (the
    ones the test server holds): (exit code, JSON report)."""
    def preflight(namespace: str, *extra: str) -> tuple[int, dict]:
        code = dgdlint(["preflight", "--chart", str(CHART), "-f", str(VALUES_DIR / "nano-fp8.yaml"),
                        "--namespace", namespace, "--kubeconfig", str(control_plane.kubeconfig),
                        "--crd", str(dynamo_crds.older), "--crd", str(dynamo_crds.newest), "--format", "json",
                        *extra])
        return code, json.loads(capsys.readouterr().out)
    return preflight


def by_subject(report: dict) -> dict[tuple[str, str], dict]:
    return {(check["topic"], check["subject"]): check for check in report["checks"]}


@pytest.fixture
def ready(control_plane, namespace):
    """A namespace with everything nano-fp8 needs, on a product name no other test uses."""
    plane = control_plane
    product = f"TEST-{namespace.upper()}-H100"
    secret(plane, namespace, "ngc-registry-secret", "kubernetes.io/dockerconfigjson",
           {".dockerconfigjson": json.dumps({"auths": {"nvcr.io": {"auth": "JG9hdXRodG9rZW46eA=="}}})})
    secret(plane, namespace, "ngc-api-secret", "Opaque", {"NGC_API_KEY": "nvapi-not-a-real-key"})
    create(plane, "/apis/storage.k8s.io/v1/storageclasses", {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": f"rwx-{namespace}"},
        "provisioner": "nfs.csi.k8s.io"})
    create(plane, "/apis/scheduling.k8s.io/v1/priorityclasses", {
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": f"inference-{namespace}"},
        "value": 100000})
    gpu_node(plane, f"gpu-{namespace}", product, 8)
    return namespace, product


def test_preflight_passes_where_everything_the_release_names_exists(run, ready, dynamo_crds):
    namespace, product = ready
    code, report = run(namespace, "--set", f"cache.storageClass=rwx-{namespace}",
                       "--set", f"worker.priorityClassName=inference-{namespace}",
                       "--set-string", f"worker.nodeSelector.nvidia\\.com/gpu\\.product={product}")
    checks = by_subject(report)
    assert code == 0, report
    api = checks[("api", "DynamoGraphDeployment")]
    assert api["status"] == "ok", api
    assert api["detail"] == f"served: v1alpha1 (deprecated), v1beta1 (storage); the same CRD as {dynamo_crds.newest}"
    assert checks[("namespace", namespace)]["status"] == "ok"
    assert checks[("secret", "ngc-registry-secret")]["detail"] == "pull secret present"
    assert checks[("secret", "ngc-api-secret")]["detail"] == "secret present with key NGC_API_KEY"
    storage = checks[("storage", "cosmos3-reasoner-model-cache")]
    assert storage["status"] == "ok" and f"storage class rwx-{namespace} (provisioner nfs.csi.k8s.io)" in \
        storage["detail"] and "ReadWriteMany" in storage["detail"]
    assert checks[("priority", f"inference-{namespace}")]["detail"] == "exists (value 100000)"
    gpu_checks = [c for c in report["checks"] if c["topic"] == "gpu"]
    assert all(c["status"] == "ok" for c in gpu_checks)
    assert any(f"2 nvidia.com/gpu on {product} (dgdlint plan)" in c["detail"] and f"{product}: 8" in c["detail"]
               for c in gpu_checks)
    assert "nvapi-not-a-real-key" not in json.dumps(report)


def test_preflight_names_each_missing_thing(run, namespace):
    code, report = run(namespace, "--set", "cache.storageClass=no-such-class",
                       "--set", "worker.priorityClassName=no-such-priority",
                       "--set-string", "worker.nodeSelector.nvidia\\.com/gpu\\.product=NO-SUCH-GPU")
    checks = by_subject(report)
    assert code == 1
    assert checks[("secret", "ngc-registry-secret")]["detail"] == f"pull secret missing in {namespace}"
    assert checks[("secret", "ngc-api-secret")]["detail"] == f"secret missing in {namespace}"
    assert checks[("storage", "cosmos3-reasoner-model-cache")]["detail"].startswith(
        "storage class no-such-class does not exist")
    assert checks[("priority", "no-such-priority")]["detail"] == "priority class does not exist"
    short = [c for c in report["checks"] if c["topic"] == "gpu" and c["status"] == "error"]
    assert len(short) == 1 and "2 nvidia.com/gpu on NO-SUCH-GPU" in short[0]["detail"]


def test_preflight_reports_an_absent_namespace_and_a_key_missing_from_the_secret(run, control_plane, namespace):
    secret(control_plane, namespace, "ngc-api-secret", "Opaque", {"WRONG_KEY": "x"})
    code, report = run(namespace)
    assert code == 1
    assert by_subject(report)[("secret", "ngc-api-secret")]["detail"] == \
        "has no key NGC_API_KEY (keys: WRONG_KEY)"
    code, report = run(f"{namespace}-absent")
    assert code == 1
    assert by_subject(report)[("namespace", f"{namespace}-absent")]["status"] == "error"


@pytest.mark.parametrize(("modes", "status"), [(["ReadWriteOnce"], "error"), (["ReadWriteMany"], "ok")])
def test_an_existing_claim_must_be_shared_when_the_job_and_the_worker_both_mount_it(run, control_plane, namespace,
                                                                                   modes, status):
    create(control_plane, f"/api/v1/namespaces/{namespace}/persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "models"},
        "spec": {"accessModes": modes, "resources": {"requests": {"storage": "200Gi"}}}})
    _code, report = run(namespace, "--set", "cache.create=false", "--set", "cache.name=models")
    check = by_subject(report)[("storage", "models")]
    assert check["status"] == status, check


def test_without_crd_the_cluster_crd_is_matched_against_the_bundled_releases(control_plane, namespace, capsys):
    # The test cluster carries the newest upstream DGD CRD (schemas/1.5.0-dev was generated from it) or, with
    # nothing beside the repository, the CRD rebuilt from schemas/1.5.0-dev.
    code = dgdlint(["preflight", "--chart", str(CHART), "-f", str(VALUES_DIR / "nano-fp8.yaml"),
                    "--namespace", namespace, "--kubeconfig", str(control_plane.kubeconfig), "--format", "json"])
    api = by_subject(json.loads(capsys.readouterr().out))[("api", "DynamoGraphDeployment")]
    assert code == 1  # the namespace has none of the secrets; the API check itself is what this test reads
    assert api["status"] == "ok", api
    assert api["detail"] == ("served: v1alpha1 (deprecated), v1beta1 (storage); "
                             "the same CRD as Dynamo 1.5.0-dev (bundled)")


def test_a_cluster_crd_that_is_no_bundled_release_is_a_warning_naming_them(monkeypatch, control_plane, namespace,
                                                                          capsys):
    from dgdlint.preflight import checks

    bundled = checks.bundled_candidates()
    assert set(bundled) == {"Dynamo 1.1.0 (bundled)", "Dynamo 1.5.0-dev (bundled)"}
    monkeypatch.setattr(checks, "bundled_candidates", lambda: {"Dynamo 1.1.0 (bundled)": bundled[
        "Dynamo 1.1.0 (bundled)"]})
    dgdlint(["preflight", "--chart", str(CHART), "-f", str(VALUES_DIR / "nano-fp8.yaml"),
             "--namespace", namespace, "--kubeconfig", str(control_plane.kubeconfig), "--format", "json"])
    api = by_subject(json.loads(capsys.readouterr().out))[("api", "DynamoGraphDeployment")]
    assert api["status"] == "warning", api
    assert api["detail"].endswith("matches none of Dynamo 1.1.0 (bundled) (another operator release)")


def volume(plane, name: str, capacity: str, storage_class: str = "", phase: str = "Available",
           claim_ref: dict | None = None) -> None:
    """A pre-made NFS volume; its phase written into its status as the volume controller (not run here)
    writes it for a volume it has checked."""
    spec = {"capacity": {"storage": capacity}, "accessModes": ["ReadWriteMany"], "storageClassName": storage_class,
            "nfs": {"server": "nfs.example.com", "path": f"/exports/{name}"}}
    if claim_ref:
        spec["claimRef"] = claim_ref
    made = create(plane, "/api/v1/persistentvolumes", {"apiVersion": "v1", "kind": "PersistentVolume",
                                                      "metadata": {"name": name}, "spec": spec})
    made["status"] = {"phase": phase}
    plane.request("PUT", f"/api/v1/persistentvolumes/{name}/status", made)


def claim_file(tmp_path, volume_name: str | None, storage_class: str | None = "", size: str = "200Gi") -> str:
    spec = {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": size}}}
    if volume_name:
        spec["volumeName"] = volume_name
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    path = tmp_path / "claim.yaml"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                "metadata": {"name": "model-cache"}, "spec": spec}))
    return str(path)


def storage_line(control_plane, namespace: str, path: str, capsys) -> dict:
    dgdlint(["preflight", path, "--namespace", namespace, "--kubeconfig", str(control_plane.kubeconfig),
             "--format", "json"])
    return by_subject(json.loads(capsys.readouterr().out))[("storage", "model-cache")]


def test_a_claim_naming_its_volume_is_judged_against_the_cluster_s_volume(control_plane, namespace, tmp_path,
                                                                           capsys):
    absent = storage_line(control_plane, namespace, claim_file(tmp_path, f"nfs-{namespace}-absent"), capsys)
    assert absent["status"] == "error" and "which the cluster does not have" in absent["detail"]

    volume(control_plane, f"nfs-{namespace}-fits", "200Gi")
    fits = storage_line(control_plane, namespace, claim_file(tmp_path, f"nfs-{namespace}-fits"), capsys)
    assert fits["status"] == "ok" and f"binds to PersistentVolume nfs-{namespace}-fits" in fits["detail"]

    volume(control_plane, f"nfs-{namespace}-small", "100Gi")
    small = storage_line(control_plane, namespace, claim_file(tmp_path, f"nfs-{namespace}-small"), capsys)
    assert small["status"] == "error" and "requests 200Gi of storage and the volume holds 100Gi" in small["detail"]

    volume(control_plane, f"nfs-{namespace}-taken", "200Gi", phase="Bound",
           claim_ref={"kind": "PersistentVolumeClaim", "namespace": namespace, "name": "other"})
    taken = storage_line(control_plane, namespace, claim_file(tmp_path, f"nfs-{namespace}-taken"), capsys)
    assert taken["status"] == "error" and f"reserved for claim {namespace}/other" in taken["detail"]

    # No class written, and no default class in this cluster: the claim asks for none.
    volume(control_plane, f"nfs-{namespace}-classed", "200Gi", storage_class="nfs")
    classed = storage_line(control_plane, namespace, claim_file(tmp_path, f"nfs-{namespace}-classed", None), capsys)
    assert classed["status"] == "error" and "the cluster has no default one" in classed["detail"]


def test_a_claim_without_a_class_needs_an_available_volume_without_one(control_plane, namespace, tmp_path, capsys):
    # storageClassName "": no dynamic provisioning. Volumes are cluster-wide: the claim asks for more than
    # other tests' volumes hold.
    path = claim_file(tmp_path, None, size="7000Gi")
    none = storage_line(control_plane, namespace, path, capsys)
    assert none["status"] == "error" and "stays Pending until one is made" in none["detail"]
    volume(control_plane, f"nfs-{namespace}-pending", "8Ti", phase="Pending")  # not yet checked by the controller
    volume(control_plane, f"nfs-{namespace}-classed", "8Ti", storage_class="nfs")
    volume(control_plane, f"nfs-{namespace}-small", "6Ti")
    assert storage_line(control_plane, namespace, path, capsys)["status"] == "error"
    volume(control_plane, f"nfs-{namespace}-free", "8Ti")
    free = storage_line(control_plane, namespace, path, capsys)
    assert free["status"] == "ok" and f"nfs-{namespace}-free" in free["detail"]
    assert not any(f"nfs-{namespace}-{name}" in free["detail"] for name in ("pending", "classed", "small"))


def test_a_claim_without_a_class_is_given_the_newest_default_class(control_plane, namespace, tmp_path, capsys):
    """The DefaultStorageClass plugin reads either annotation (the GA one or the beta one) and, of several
    classes marked default, writes in the newest. Classes are cluster-wide: they are deleted afterwards, as
    a default class would reach other tests' claims."""
    older, newer = f"older-default-{namespace}", f"newer-default-{namespace}"
    made = []
    try:
        for name, annotation in ((older, "storageclass.kubernetes.io/is-default-class"),
                                 (newer, "storageclass.beta.kubernetes.io/is-default-class")):
            create(control_plane, "/apis/storage.k8s.io/v1/storageclasses", {
                "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                "metadata": {"name": name, "annotations": {annotation: "true"}}, "provisioner": "nfs.csi.k8s.io"})
            made.append(name)
            time.sleep(1.1)  # creation times are kept to the second
        line = storage_line(control_plane, namespace, claim_file(tmp_path, None, None), capsys)
        assert line["status"] == "ok" and f"created with storage class {newer} " in line["detail"], line
        # The server agrees: a claim without a class is stored with the newer one.
        stored = create(control_plane, f"/api/v1/namespaces/{namespace}/persistentvolumeclaims?dryRun=All", {
            "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "model-cache"},
            "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "200Gi"}}}})
        assert stored["spec"]["storageClassName"] == newer
    finally:
        for name in made:
            control_plane.request("DELETE", f"/apis/storage.k8s.io/v1/storageclasses/{name}")


def kept_claim(plane, namespace: str, release: str = "cosmos3-reasoner", modes=("ReadWriteMany",)) -> None:
    """The cache claim as `helm uninstall` of the release left it (its resource policy keeps it)."""
    create(plane, f"/api/v1/namespaces/{namespace}/persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "cosmos3-reasoner-model-cache",
                     "annotations": {"meta.helm.sh/release-name": release,
                                     "meta.helm.sh/release-namespace": namespace}},
        "spec": {"accessModes": list(modes), "storageClassName": f"rwx-{namespace}",
                 "resources": {"requests": {"storage": "200Gi"}}}})


@pytest.mark.parametrize(("values", "says"), [
    ([], None),
    (["--set", "cache.size=214748364800"], None),
    (["--set", "cache.storageClass=other"], "the release asks for storage class 'other', the claim has 'rwx-{ns}'"),
    (["--set", "cache.accessMode=ReadWriteOnce"], "the release asks for ReadWriteOnce, the claim is ReadWriteMany"),
    (["--set", "cache.size=100Gi"], "the release asks for 100Gi, the claim requests 200Gi: a claim never shrinks"),
    (["--set", "cache.size=400Gi"], "the release asks for 400Gi, the claim requests 200Gi: the API server resizes "
                                    "only a bound claim"),
], ids=["same", "same-size-in-bytes", "class", "access-mode", "shrink", "grow-unbound"])
def test_a_kept_claim_is_compared_with_what_the_release_asks(run, ready, control_plane, values, says):
    """What `helm template` (and Argo CD) cannot see: the claim an earlier install kept. Each refusal
    named here is the API server's for that update (tests/cluster/test_chart_existing_claim.py)."""
    namespace, _product = ready
    kept_claim(control_plane, namespace)
    _code, report = run(namespace, "--set", f"cache.storageClass=rwx-{namespace}", *values)
    check = by_subject(report)[("storage", "cosmos3-reasoner-model-cache")]
    if says is None:
        assert check["status"] == "ok" and check["detail"].endswith("Helm adopts it"), check
    else:
        assert check["status"] == "error" and says.format(ns=namespace) in check["detail"], check


GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}  # as GKE taints GPU nodes


@pytest.mark.parametrize(("taints", "values", "says"), [
    ((GPU_TAINT,), [], None),
    ((GPU_TAINT,), ["--set", "worker.tolerations[0].key=dedicated", "--set", "worker.tolerations[0].value=vision",
                    "--set", "worker.tolerations[0].effect=NoSchedule"],
     "taint nvidia.com/gpu=present:NoSchedule not tolerated"),
    ((GPU_TAINT, {"key": "maintenance", "effect": "NoExecute"}), [], "taint maintenance:NoExecute not tolerated"),
    ((), ["--set", "worker.nodeSelector.pool=a100"], "no label pool=a100"),
    ((), [option for setting in ("key=pool", "operator=In", "values={a100}") for option in
          ("--set", "worker.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
           f".matchExpressions[0].{setting}")],
     "required node affinity unmet (term 0: pool is not In [a100])"),
], ids=["gpu-taint-tolerated", "tolerations-replaced", "other-taint", "selector-unmet", "affinity-unmet"])
def test_a_gpu_node_must_admit_the_workers_and_the_download_job(run, control_plane, namespace, taints, values, says):
    """The GPU count alone fits in every case: the node's taints and labels decide whether a pod lands."""
    product = f"TEST-{namespace.upper()}-L40S"
    gpu_node(control_plane, f"tainted-{namespace}", product, 8, taints)
    _code, report = run(namespace, "--set", f"worker.nodeSelector.nvidia\\.com/gpu\\.product={product}", *values)
    checks = by_subject(report)
    assert checks[("gpu", "nvidia.com/gpu")]["status"] == "ok"
    placement = {subject: check for (topic, subject), check in checks.items() if topic == "placement"}
    assert len(placement) == 2, placement  # the worker and the download Job (it takes the workers' placement)
    for check in placement.values():
        if says is None:
            assert check["status"] == "ok" and check["detail"].startswith("1 of 1 nodes with nvidia.com/gpu"), check
        else:
            assert check["status"] == "error" and says in check["detail"] and "stays Pending" in check["detail"], check


@pytest.mark.parametrize("fits", [True, False], ids=["fits", "conflict"])
@pytest.mark.parametrize("bound", ["existing-claim", "created-claim"])
def test_a_gpu_node_must_meet_the_node_affinity_of_the_cache_volume(run, ready, control_plane, bound, fits):
    """The cache claim is bound to a volume of the cluster (an existing claim's volumeName, or the one the
    created claim names) that only nodes of one GPU product can use: the scheduler's VolumeBinding filter
    keeps the worker and the download Job off every other node (volume-node-affinity-conflict is the same
    check on a volume the release ships)."""
    namespace, product = ready
    volume = f"cache-{namespace}"
    wanted = product if fits else "TEST-OTHER-PRODUCT"
    create(control_plane, "/api/v1/persistentvolumes", {
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": volume},
        "spec": {"capacity": {"storage": "200Gi"}, "accessModes": ["ReadWriteMany"], "storageClassName": "",
                 "nfs": {"server": "nfs.example.com", "path": "/exports/cache"},
                 "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                     {"key": "nvidia.com/gpu.product", "operator": "In", "values": [wanted]}]}]}}}})
    values = ["--set", f"worker.nodeSelector.nvidia\\.com/gpu\\.product={product}"]
    if bound == "existing-claim":
        create(control_plane, f"/api/v1/namespaces/{namespace}/persistentvolumeclaims", {
            "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "models"},
            "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "", "volumeName": volume,
                     "resources": {"requests": {"storage": "200Gi"}}}})
        values += ["--set", "cache.create=false", "--set", "cache.name=models"]
    else:
        values += ["--set", "cache.storageClass=-", "--set", f"cache.volumeName={volume}"]
    _code, report = run(namespace, *values)
    placement = {subject: check for (topic, subject), check in by_subject(report).items() if topic == "placement"}
    assert len(placement) == 2, placement  # the worker and the download Job, which mount the cache
    for check in placement.values():
        if fits:
            assert check["status"] == "ok" and f"node affinity of PersistentVolume {volume}" in check["detail"], check
        else:
            assert check["status"] == "error" and (
                f"PersistentVolume {volume}'s required node affinity unmet (term 0: nvidia.com/gpu.product is not "
                "In [TEST-OTHER-PRODUCT])") in check["detail"], check


def test_claims_of_a_release_across_two_namespaces_are_looked_up_in_their_own(control_plane, namespace, tmp_path,
                                                                               capsys):
    """Two Jobs mount a claim `model-cache`, one in the release's namespace, where the claim exists, and one
    in another, where it does not: each is looked up where its pod runs and named namespace/name."""
    other = f"{namespace}-b"
    create(control_plane, "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": other}})
    create(control_plane, f"/api/v1/namespaces/{namespace}/persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "model-cache"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})

    def mounting(name: str, where: str | None) -> dict:
        metadata = {"name": name, **({"namespace": where} if where else {})}
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": {"template": {"spec": {
            "restartPolicy": "Never",
            "volumes": [{"name": "cache", "persistentVolumeClaim": {"claimName": "model-cache"}}],
            "containers": [{"name": "probe", "image": "busybox:1.36",
                            "volumeMounts": [{"name": "cache", "mountPath": "/cache"}]}]}}}}

    path = tmp_path / "jobs.yaml"
    path.write_text(json.dumps(mounting("here", None)) + "\n---\n" + json.dumps(mounting("there", other)))
    dgdlint(["preflight", str(path), "--namespace", namespace, "--kubeconfig", str(control_plane.kubeconfig),
             "--format", "json"])
    lines = by_subject(json.loads(capsys.readouterr().out))
    assert lines[("storage", f"{namespace}/model-cache")]["status"] == "ok"
    missing = lines[("storage", f"{other}/model-cache")]
    assert (missing["status"], missing["detail"]) == ("error", f"existing claim not found in {other}")


def _stateful_set(mounted: str, templates: list) -> dict:
    """A StatefulSet `store` of two replicas with these claim templates, its container mounting `mounted`."""
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "store"}, "spec": {
        "replicas": 2, "serviceName": "store", "selector": {"matchLabels": {"app": "store"}},
        "template": {"metadata": {"labels": {"app": "store"}}, "spec": {"containers": [{
            "name": "store", "image": "busybox:1.36", "volumeMounts": [{"name": mounted, "mountPath": "/data"}]}]}},
        "volumeClaimTemplates": templates}}


def _storage_lines(control_plane, namespace: str, path, capsys) -> dict:
    """preflight's storage lines for the manifests in `path`, by subject (a claim's name)."""
    dgdlint(["preflight", str(path), "--namespace", namespace, "--kubeconfig", str(control_plane.kubeconfig),
             "--format", "json"])
    return {subject: check for (topic, subject), check in by_subject(json.loads(capsys.readouterr().out)).items()
            if topic == "storage"}


def test_a_stateful_set_s_provisioned_claims_are_class_checked_per_replica(control_plane, namespace, tmp_path,
                                                                            capsys):
    """A StatefulSet of two replicas whose claim templates name no volume: each replica's claim is judged as
    the release's other claims for a provisioner are. A class it names must exist; one that names none is
    given the cluster's default class, as the DefaultStorageClass plugin gives it (the server agrees), and is
    an error while the cluster has none. The default class is deleted afterwards (classes are cluster-wide)."""
    fast, default = f"fast-{namespace}", f"default-{namespace}"
    templates = [{"metadata": {"name": name}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                       "resources": {"requests": {"storage": "10Gi"}}, **extra}}
                 for name, extra in (("data", {"storageClassName": fast}), ("scratch", {}))]
    stateful_set = _stateful_set("data", templates)
    path = tmp_path / "store.yaml"
    path.write_text(json.dumps(stateful_set))

    before = _storage_lines(control_plane, namespace, path, capsys)
    assert sorted(before) == ["data-store-0", "data-store-1", "scratch-store-0", "scratch-store-1"]
    assert all(before[f"data-store-{i}"]["status"] == "error"
               and f"storage class {fast} does not exist" in before[f"data-store-{i}"]["detail"] for i in (0, 1))
    assert all(before[f"scratch-store-{i}"]["status"] == "error"
               and "names no storage class and the cluster has no default one" in before[f"scratch-store-{i}"]["detail"]
               for i in (0, 1)), before
    create(control_plane, "/apis/storage.k8s.io/v1/storageclasses", {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": fast},
        "provisioner": "ebs.csi.aws.com"})
    try:
        create(control_plane, "/apis/storage.k8s.io/v1/storageclasses", {
            "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "provisioner": "nfs.csi.k8s.io",
            "metadata": {"name": default, "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}})
        after = _storage_lines(control_plane, namespace, path, capsys)
        for i in (0, 1):
            assert after[f"data-store-{i}"]["status"] == "ok", after
            assert f"created with storage class {fast} (provisioner ebs.csi.aws.com), ReadWriteOnce, 10Gi" \
                in after[f"data-store-{i}"]["detail"]
            assert after[f"scratch-store-{i}"]["status"] == "ok", after
            assert f"created with storage class {default} " in after[f"scratch-store-{i}"]["detail"]
        # The server agrees: the StatefulSet's claim without a class is stored with the default one.
        stored = create(control_plane, f"/api/v1/namespaces/{namespace}/persistentvolumeclaims?dryRun=All", {
            "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "scratch-store-0"},
            "spec": templates[1]["spec"]})
        assert stored["spec"]["storageClassName"] == default
    finally:
        control_plane.request("DELETE", f"/apis/storage.k8s.io/v1/storageclasses/{default}")


def test_a_stateful_set_s_claim_template_naming_a_volume_is_judged_per_replica(control_plane, namespace, tmp_path,
                                                                               capsys):
    """A StatefulSet of two replicas whose claim template names a pre-made volume: each replica's claim
    (cache-store-0, cache-store-1) is judged against the cluster's volume."""
    name = f"nfs-{namespace}-store"
    stateful_set = _stateful_set("cache", [{"metadata": {"name": "cache"}, "spec": {
        "accessModes": ["ReadWriteMany"], "storageClassName": "", "volumeName": name,
        "resources": {"requests": {"storage": "200Gi"}}}}])
    path = tmp_path / "store.yaml"
    path.write_text(json.dumps(stateful_set))

    absent = _storage_lines(control_plane, namespace, path, capsys)
    assert sorted(absent) == ["cache-store-0", "cache-store-1"]
    assert all(c["status"] == "error" and "which the cluster does not have" in c["detail"] for c in absent.values())
    volume(control_plane, name, "100Gi")
    small = _storage_lines(control_plane, namespace, path, capsys)
    assert all(c["status"] == "error" and "requests 200Gi of storage and the volume holds 100Gi" in c["detail"]
               for c in small.values()), small
