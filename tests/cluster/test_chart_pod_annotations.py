"""The chart's pod-annotation guard against a real API server: each pod deletion cost the chart renders (or
refuses) in tests/chart/test_chart_validation.py, on a Pod the server is asked to create."""

from __future__ import annotations

import pytest
from cluster_support import CLUSTER
from controlplane import refused_fields
from test_chart_validation import DELETION_COSTS

pytestmark = CLUSTER


@pytest.mark.parametrize("cost", sorted(DELETION_COSTS))
def test_the_api_server_takes_exactly_the_deletion_costs_the_chart_renders(cost, control_plane, namespace):
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "cost", "annotations": {"controller.kubernetes.io/pod-deletion-cost": cost}},
           "spec": {"containers": [{"name": "main", "image": "busybox:1.36.1"}]}}
    assert (refused_fields(control_plane, namespace, pod) == []) is DELETION_COSTS[cost]
