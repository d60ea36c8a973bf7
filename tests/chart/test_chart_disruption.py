"""The optional PodDisruptionBudget of the workers: off by default; when on, it selects this release's
worker pods by the operator's labels and bounds how many a drain or upgrade may evict at once."""

from __future__ import annotations

import kubernetes_validate
import pytest
from chart_support import render, render_error

WORKER_PODS = {"matchLabels": {"nvidia.com/dynamo-graph-deployment-name": "cosmos3-reasoner",
                               "nvidia.com/dynamo-component": "ReasonerWorker"}}


def budget(values: dict | None = None, **kwargs) -> dict:
    settings = {"enabled": True, **(values or {})}
    return render({"worker": {"podDisruptionBudget": settings}}, **kwargs).one("PodDisruptionBudget")


def test_no_budget_by_default():
    assert render().of_kind("PodDisruptionBudget") == []


def test_the_budget_lets_one_worker_go_at_a_time_and_never_holds_back_an_unready_one():
    pdb = budget()
    assert pdb["apiVersion"] == "policy/v1"
    assert pdb["metadata"]["name"] == "cosmos3-reasoner-worker"
    assert pdb["metadata"]["namespace"] == "default"
    assert pdb["metadata"]["labels"]["app.kubernetes.io/instance"] == "cosmos3-reasoner"
    assert pdb["spec"] == {"maxUnavailable": 1, "selector": WORKER_PODS, "unhealthyPodEvictionPolicy": "AlwaysAllow"}


@pytest.mark.parametrize("api_version", ["v1alpha1", "v1beta1"])
def test_the_selector_names_this_releases_graph_and_worker_component(api_version):
    rendered = render({"operator": {"apiVersion": api_version}, "worker": {"podDisruptionBudget": {"enabled": True}}},
                      release="prod")
    labels = rendered.one("PodDisruptionBudget")["spec"]["selector"]["matchLabels"]
    assert labels["nvidia.com/dynamo-graph-deployment-name"] == rendered.dgd["metadata"]["name"]
    assert labels["nvidia.com/dynamo-component"] in rendered.components
    assert labels["nvidia.com/dynamo-component"] == "ReasonerWorker"


@pytest.mark.parametrize(("settings", "bounds"), [
    ({"maxUnavailable": "25%"}, {"maxUnavailable": "25%"}),
    ({"maxUnavailable": 0}, {"maxUnavailable": 0}),
    ({"minAvailable": 2}, {"minAvailable": 2}),
    ({"minAvailable": "50%", "maxUnavailable": None}, {"minAvailable": "50%"}),
])
def test_one_bound_is_written_and_min_available_replaces_max_unavailable(settings, bounds):
    spec = budget(settings)["spec"]
    assert {key: spec[key] for key in ("minAvailable", "maxUnavailable") if key in spec} == bounds


def test_the_kubernetes_default_eviction_policy_can_be_chosen():
    assert budget({"unhealthyPodEvictionPolicy": "IfHealthyBudget"})["spec"]["unhealthyPodEvictionPolicy"] == \
        "IfHealthyBudget"


@pytest.mark.parametrize("settings", [{}, {"minAvailable": 1}, {"maxUnavailable": "10%"}])
def test_the_budget_passes_the_kubernetes_schema(settings):
    kubernetes_validate.validate(budget(settings), "1.30", strict=True)


@pytest.mark.parametrize(("settings", "where"), [
    ({"maxUnavailable": "25"}, "at '/worker/podDisruptionBudget/maxUnavailable'"),
    ({"minAvailable": -1}, "at '/worker/podDisruptionBudget/minAvailable'"),
    ({"unhealthyPodEvictionPolicy": "Always"}, "at '/worker/podDisruptionBudget/unhealthyPodEvictionPolicy'"),
    ({"maxUnavaliable": 1}, "additional properties 'maxUnavaliable' not allowed"),
])
def test_budget_values_are_closed_and_typed(settings, where):
    assert where in render_error({"worker": {"podDisruptionBudget": settings}})
