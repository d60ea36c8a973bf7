"""volume-node-affinity-conflict beyond its fixtures: which claims bind to which volumes (none when the volume
controller would not bind them), a pod node-affinity-unsatisfiable already reports, a StatefulSet's replicas
one by one, and messages that stay short on long term lists (the scheduler's verdicts are checked in
test_volume_affinity_oracle.py)."""

from __future__ import annotations

import time

import yaml

from dgdlint.engine import check_texts

RULE = "volume-node-affinity-conflict"


def _volume(name: str, terms: list[dict], claim: str | None = None, storage: str = "10Gi") -> dict:
    spec = {"capacity": {"storage": storage}, "accessModes": ["ReadWriteOnce"], "storageClassName": "",
            "hostPath": {"path": f"/data/{name}"}, "nodeAffinity": {"required": {"nodeSelectorTerms": terms}}}
    if claim:
        spec["claimRef"] = {"namespace": "default", "name": claim}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec}


def _zone(*zones: str) -> list[dict]:
    return [{"matchExpressions": [{"key": "zone", "operator": "In", "values": list(zones)}]}]


def _claim(name: str, volume: str | None = None) -> dict:
    spec = {"accessModes": ["ReadWriteOnce"], "storageClassName": "", "resources": {"requests": {"storage": "10Gi"}}}
    if volume:
        spec["volumeName"] = volume
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec}


def _pod(claims: list[str], node_selector: dict | None = None, terms: list[dict] | None = None) -> dict:
    spec: dict = {"containers": [{"name": "main", "image": "busybox:1.36.1"}],
                  "volumes": [{"name": f"v{index}", "persistentVolumeClaim": {"claimName": claim}}
                              for index, claim in enumerate(claims)]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    if terms is not None:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                             {"nodeSelectorTerms": terms}}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "worker"}, "spec": spec}


def _findings(*objects: dict, rule: str = RULE) -> list:
    text = yaml.safe_dump_all(list(objects))
    return [f for f in check_texts({"set.yaml": text}).findings if f.rule == rule]


def test_a_claim_that_names_its_volume_binds_it():
    (finding,) = _findings(_volume("pv", _zone("b")), _claim("c", "pv"), _pod(["c"], {"zone": "a"}))
    assert "PersistentVolume pv (claim c binds to it)" in finding.message
    assert "zone cannot be =a (the pod's nodeSelector) and In [b] (pv's term 0)" in finding.message


def test_no_volume_bound_no_finding():
    # the volume is reserved for another claim: the claim never binds it (claim-volume-mismatch's)
    assert _findings(_volume("pv", _zone("b"), claim="other"), _claim("c", "pv"), _pod(["c"], {"zone": "a"})) == []
    # reserved for the claim, but too small: the controller binds the claim to another volume, or none
    assert _findings(_volume("pv", _zone("b"), claim="c", storage="1Gi"), _claim("c"), _pod(["c"], {"zone": "a"})) == []
    # the claim is not the set's: which volume it has is the cluster's
    assert _findings(_volume("pv", _zone("b"), claim="c"), _pod(["c"], {"zone": "a"})) == []
    # the claim is in another namespace than the pod
    claim = _claim("c", "pv")
    claim["metadata"]["namespace"] = "other"
    assert _findings(_volume("pv", _zone("b")), claim, _pod(["c"], {"zone": "a"})) == []


def test_a_pod_no_node_takes_alone_is_left_to_node_affinity_unsatisfiable():
    objects = (_volume("pv", _zone("b")), _claim("c", "pv"),
               _pod(["c"], {"zone": "a"}, _zone("c")))
    assert _findings(*objects) == []
    assert len(_findings(*objects, rule="node-affinity-unsatisfiable")) == 1


def test_a_volume_none_of_whose_terms_a_node_meets_is_reported_once_on_the_volume():
    terms = [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]},
                                   {"key": "zone", "operator": "NotIn", "values": ["a"]}]}, {}]
    (finding,) = _findings(_volume("pv", terms), _claim("c", "pv"), _pod(["c"], {"zone": "a"}))
    assert finding.path == "spec.nodeAffinity.required.nodeSelectorTerms"
    assert "term 1 is empty" in finding.message


def test_each_replica_of_a_stateful_set_with_its_own_volume():
    stateful_set = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "ss"}, "spec": {
        "serviceName": "ss", "replicas": 3, "selector": {"matchLabels": {"app": "ss"}},
        "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "storageClassName": "", "resources": {"requests": {"storage": "10Gi"}}}}],
        "template": {"metadata": {"labels": {"app": "ss"}}, "spec": {
            "nodeSelector": {"zone": "a"}, "containers": [{"name": "main", "image": "busybox:1.36.1"}]}}}}
    volumes = [_volume(f"pv-{n}", _zone(zone), claim=f"data-ss-{n}") for n, zone in enumerate("aba")]
    (finding,) = _findings(stateful_set, *volumes)
    assert finding.message.startswith("StatefulSet ss pod ss-1: no node can take it with PersistentVolume pv-1")
    # replicas whose claims name one volume (claim-volume-mismatch says only one binds) are reported once
    template = stateful_set["spec"]["volumeClaimTemplates"][0]["spec"]
    template["volumeName"] = "shared"
    assert len(_findings(stateful_set, _volume("shared", _zone("b")))) == 1


def test_volumes_clash_with_each_other_only_together():
    objects = (_volume("pv-a", _zone("a", "b"), claim="one"), _volume("pv-b", _zone("b", "c"), claim="two"),
               _volume("pv-c", _zone("c", "a"), claim="three"),
               _claim("one"), _claim("two"), _claim("three"), _pod(["one", "two", "three"]))
    (finding,) = _findings(*objects)
    assert "pv-a (claim one binds to it) and PersistentVolume pv-b" in finding.message and "together" in finding.message
    assert finding.line and len(finding.related) == 3
    assert _findings(*objects[:2], *objects[3:5], _pod(["one", "two"])) == []  # zone b has both


def test_long_term_lists_are_explained_a_few_at_a_time_and_stay_quick():
    pod_terms = [{"matchExpressions": [{"key": "zone", "operator": "In", "values": [f"a{n}"]}]} for n in range(60)]
    volume_terms = [{"matchExpressions": [{"key": "zone", "operator": "In", "values": [f"b{n}"]}]} for n in range(60)]
    started = time.monotonic()
    (finding,) = _findings(_volume("pv", volume_terms), _claim("c", "pv"), _pod(["c"], terms=pod_terms))
    assert time.monotonic() - started < 10
    assert finding.message.endswith("and 3596 more combinations of terms, none of which a node can meet either")
    assert len(finding.message) < 1000
    refused = [{"matchExpressions": [{"key": "zone", "operator": "Gt", "values": [f"{n}.5"]}]} for n in range(500)]
    (finding,) = _findings(_volume("pv", refused), _claim("c", "pv"), _pod(["c"]))
    assert finding.message.count("compares with no integer") == 4 and "and 496 more terms" in finding.message


def test_a_volume_the_scheduler_may_translate_to_csi_is_not_judged():
    # an in-tree GCE disk: on a node whose CSINode says the plugin is migrated, the scheduler matches the CSI
    # translation, whose zone key is the driver's (topology.gke.io/zone), not the one written
    volume = _volume("pv", _zone("b"))
    del volume["spec"]["hostPath"]
    volume["spec"]["gcePersistentDisk"] = {"pdName": "cache"}
    assert _findings(volume, _claim("c", "pv"), _pod(["c"], {"zone": "a"})) == []


def test_a_v1beta1_compilation_cache_claim_is_one_the_pod_mounts():
    graph = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "demo"},
             "spec": {"backendFramework": "vllm", "components": [{
                 "name": "VllmWorker", "type": "worker", "compilationCache": {"pvcName": "c", "mountPath": "/cache"},
                 "podTemplate": {"spec": {"nodeSelector": {"zone": "a"}, "containers": [
                     {"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0"}]}}}]}}
    (finding,) = _findings(_volume("pv", _zone("b")), _claim("c", "pv"), graph)
    assert finding.path == "spec.components[0].compilationCache.pvcName"
    assert finding.message.startswith("DynamoGraphDeployment demo component VllmWorker: no node can take it")


def test_a_pod_given_its_node_is_not_the_scheduler_s():
    pod = _pod(["c"], {"zone": "a"})
    pod["spec"]["nodeName"] = "gpu-1"
    assert _findings(_volume("pv", _zone("b")), _claim("c", "pv"), pod) == []
