"""Taint and toleration matching of `dgdlint preflight`'s placement check, as Kubernetes' Toleration.ToleratesTaint
reads them (the cluster tier checks the whole check against nodes on a real API server)."""

from __future__ import annotations

from functools import partial

import pytest

from dgdlint.model import KObject, PodSettings
from dgdlint.preflight.placement import refusals, tolerates
from dgdlint.rules.volume_affinity import volume_refusal

GPU = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


@pytest.mark.parametrize(("toleration", "matches"), [
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}, True),  # the chart's default
    ({"key": "nvidia.com/gpu", "operator": "Exists"}, True),  # any effect
    ({"operator": "Exists"}, True),  # no key: every taint
    ({"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}, True),  # Equal is the default
    ({"key": "nvidia.com/gpu", "operator": "Equal", "value": "true"}, False),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}, False),
    ({"key": "dedicated", "operator": "Exists"}, False),
])
def test_a_toleration_matches_a_taint_as_kubernetes_decides(toleration, matches):
    assert tolerates(toleration, GPU) is matches


def test_a_node_refuses_for_each_untolerated_taint_and_unmet_label_but_not_for_its_state():
    node = {"metadata": {"name": "gpu-1", "labels": {"pool": "h100"}},
            "spec": {"taints": [GPU, {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"},
                                {"key": "spot", "effect": "PreferNoSchedule"}]}}
    def pod(tolerations: list, selector: dict, **spec) -> PodSettings:
        return PodSettings(None, ("spec",), {"tolerations": tolerations, "nodeSelector": selector, **spec})

    assert refusals(node, pod([], {"pool": "h100"})) == ["taint nvidia.com/gpu=present:NoSchedule not tolerated"]
    assert refusals(node, pod([{"operator": "Exists"}], {"pool": "a100"})) == ["no label pool=a100"]
    assert refusals(node, pod([{"key": "nvidia.com/gpu", "operator": "Exists"}], {})) == []
    # the required node affinity is read too: one term of it must hold (the scheduler's reading is checked
    # against its own Go code in tests/rules/test_node_affinity_oracle.py)
    def required(*terms: dict) -> dict:
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}

    exists = [{"operator": "Exists"}]
    a100 = {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a100"]}]}
    h100 = {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["h100", "h200"]}]}
    assert refusals(node, pod(exists, {}, affinity=required(a100))) == [
        "required node affinity unmet (term 0: pool is not In [a100])"]
    assert refusals(node, pod(exists, {}, affinity=required(a100, h100))) == []
    named = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["gpu-2"]}]}
    assert refusals(node, pod(exists, {}, affinity=required(named))) == [
        "required node affinity unmet (term 0: metadata.name is not In [gpu-2])"]


def test_a_node_refuses_a_pod_whose_volume_it_cannot_use():
    """The node affinity of a volume the pod's claim is bound to is read against the node's labels alone, as
    the scheduler's VolumeBinding filter reads it: a volume's matchFields are never checked (the Go oracle in
    tests/rules/test_volume_affinity_oracle.py holds the reading)."""
    def volume(*terms: dict) -> KObject:
        affinity = {"required": {"nodeSelectorTerms": list(terms)}}
        return KObject.read_from("the cluster", {"apiVersion": "v1", "kind": "PersistentVolume",
                                                 "metadata": {"name": "cache"}, "spec": {"nodeAffinity": affinity}})

    node = {"metadata": {"name": "gpu-1", "labels": {"zone": "a"}}}
    pod = PodSettings(None, ("spec",), {})
    zone_b = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}
    assert refusals(node, pod, volumes=(partial(volume_refusal, volume(zone_b)),)) == [
        "PersistentVolume cache's required node affinity unmet (term 0: zone is not In [b])"]
    named = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["gpu-2"]}]}
    assert refusals(node, pod, volumes=(partial(volume_refusal, volume(zone_b, named)),)) == []
    assert refusals(node, pod, volumes=(partial(volume_refusal, volume({**zone_b, **named})),)) == [
        "PersistentVolume cache's required node affinity unmet (term 0: zone is not In [b])"]
