"""Taint and toleration matching of `dgdlint preflight`'s placement check, as Kubernetes' Toleration.ToleratesTaint
reads them (the cluster tier checks the whole check against nodes on a real API server)."""

from __future__ import annotations

import pytest

from dgdlint.preflight.placement import refusals, tolerates

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
    assert refusals(node, [], {"pool": "h100"}) == ["taint nvidia.com/gpu=present:NoSchedule not tolerated"]
    assert refusals(node, [{"operator": "Exists"}], {"pool": "a100"}) == ["no label pool=a100"]
    assert refusals(node, [{"key": "nvidia.com/gpu", "operator": "Exists"}], {}) == []
