"""Placement passed through to the DGD's pods: topology spread constraints and priority classes for the
frontend and the workers (never the download Job's), and the graph-level priority class of Grove."""

from __future__ import annotations

import pytest
from chart_support import render, render_error

API_VERSIONS = ("v1alpha1", "v1beta1")
BY_HOST = {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"}
BY_ZONE = {"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
           "minDomains": 2, "nodeTaintsPolicy": "Honor",
           "labelSelector": {"matchLabels": {"team": "vision"}}}


def operator_labels(component: str, fullname: str = "cosmos3-reasoner") -> dict:
    return {"matchLabels": {"nvidia.com/dynamo-graph-deployment-name": fullname,
                            "nvidia.com/dynamo-component": component}}


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_no_placement_is_written_by_default(api_version):
    rendered = render({"operator": {"apiVersion": api_version}})
    for component in rendered.components.values():
        assert "topologySpreadConstraints" not in component["pod"]
        assert "priorityClassName" not in component["pod"]
    assert "priorityClassName" not in rendered.dgd["spec"]


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_a_constraint_without_a_selector_counts_the_components_own_pods(api_version):
    rendered = render({"operator": {"apiVersion": api_version}, "worker": {"topologySpreadConstraints": [BY_HOST]},
                       "frontend": {"topologySpreadConstraints": [BY_HOST]}}, release="prod")
    assert rendered.worker["pod"]["topologySpreadConstraints"] == [
        {**BY_HOST, "labelSelector": operator_labels("ReasonerWorker", "prod-cosmos3-reasoner")}]
    assert rendered.frontend["pod"]["topologySpreadConstraints"] == [
        {**BY_HOST, "labelSelector": operator_labels("Frontend", "prod-cosmos3-reasoner")}]


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_a_constraint_with_its_own_selector_is_passed_through_unchanged(api_version):
    rendered = render({"operator": {"apiVersion": api_version},
                       "worker": {"topologySpreadConstraints": [BY_ZONE, BY_HOST]}})
    assert rendered.worker["pod"]["topologySpreadConstraints"] == [
        BY_ZONE, {**BY_HOST, "labelSelector": operator_labels("ReasonerWorker")}]
    assert "topologySpreadConstraints" not in rendered.frontend["pod"]


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_priority_classes_reach_each_components_pods_and_the_graph(api_version):
    rendered = render({"operator": {"apiVersion": api_version, "priorityClassName": "grove-serving"},
                       "frontend": {"priorityClassName": "frontend-high"},
                       "worker": {"priorityClassName": "gpu-serving"}})
    assert rendered.frontend["pod"]["priorityClassName"] == "frontend-high"
    assert rendered.worker["pod"]["priorityClassName"] == "gpu-serving"
    assert rendered.dgd["spec"]["priorityClassName"] == "grove-serving"


def test_the_download_job_keeps_its_own_priority_class_and_takes_no_worker_spread():
    rendered = render({"worker": {"priorityClassName": "gpu-serving", "topologySpreadConstraints": [BY_HOST]},
                       "download": {"priorityClassName": "model-download"}})
    spec = rendered.job["spec"]["template"]["spec"]
    assert spec["priorityClassName"] == "model-download"
    assert "topologySpreadConstraints" not in spec
    assert "priorityClassName" not in render({"worker": {"priorityClassName": "gpu-serving"}}).job["spec"][
        "template"]["spec"]


def test_placement_does_not_rename_the_download_job():
    assert render({"worker": {"priorityClassName": "x", "topologySpreadConstraints": [BY_HOST]}}).job["metadata"][
        "name"] == render().job["metadata"]["name"]


@pytest.mark.parametrize(("values", "where"), [
    ({"worker": {"topologySpreadConstraints": [{"maxSkew": 1, "topologykey": "zone",
                                                "whenUnsatisfiable": "DoNotSchedule"}]}},
     "at '/worker/topologySpreadConstraints/0'"),
    ({"frontend": {"topologySpreadConstraints": [{**BY_HOST, "whenUnsatisfiable": "Never"}]}},
     "at '/frontend/topologySpreadConstraints/0/whenUnsatisfiable'"),
    ({"worker": {"topologySpreadConstraints": [{**BY_HOST, "maxSkew": 0}]}},
     "at '/worker/topologySpreadConstraints/0/maxSkew'"),
    # tolerations the API server refuses in a pod: Exists with a value, tolerationSeconds without NoExecute,
    # no key without Exists (each would pass the DGD and leave its pods refused)
    ({"worker": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "value": "true"}]}},
     "at '/worker/tolerations/0/value'"),
    ({"worker": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule",
                                  "tolerationSeconds": 60}]}}, "at '/worker/tolerations/0/effect'"),
    ({"frontend": {"tolerations": [{"operator": "Equal", "value": "gpu"}]}}, "at '/frontend/tolerations/0/operator'"),
    ({"frontend": {"tolerations": [{"key": "", "value": "gpu"}]}}, "at '/frontend/tolerations/0'"),
    ({"worker": {"priorityClassName": "High Priority"}}, "at '/worker/priorityClassName'"),
    ({"operator": {"priorityClassName": 5}}, "at '/operator/priorityClassName'"),
])
def test_placement_values_are_closed_and_typed(values, where):
    assert where in render_error(values)
