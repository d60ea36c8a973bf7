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
    # security contexts' single fields: IDs outside 0-2147483647, a profile file path that is absolute
    ({"worker": {"podSecurityContext": {"runAsUser": -1}}}, "at '/worker/podSecurityContext/runAsUser'"),
    ({"tests": {"podSecurityContext": {"fsGroup": 2147483648}}}, "at '/tests/podSecurityContext/fsGroup'"),
    ({"worker": {"securityContext": {"seccompProfile": {"type": "Localhost", "localhostProfile": "/etc/x.json"}}}},
     "at '/worker/securityContext/seccompProfile/localhostProfile'"),
    ({"worker": {"priorityClassName": "High Priority"}}, "at '/worker/priorityClassName'"),
    ({"operator": {"priorityClassName": 5}}, "at '/operator/priorityClassName'"),
])
def test_placement_values_are_closed_and_typed(values, where):
    assert where in render_error(values)


@pytest.mark.parametrize("values, says", [
    # tolerations and security contexts the API server refuses in a pod: the DGD would be taken and its
    # pods refused; the chart fails naming the value and the fix
    ({"worker": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "value": "true"}]}},
     'worker.tolerations[0] has operator Exists and value "true"'),
    ({"worker": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule",
                                  "tolerationSeconds": 60}]}}, "worker.tolerations[0] sets tolerationSeconds"),
    ({"frontend": {"tolerations": [{"operator": "Equal", "value": "gpu"}]}},
     'frontend.tolerations[0] has no key but operator "Equal"'),
    ({"frontend": {"tolerations": [{"value": "gpu"}]}}, 'frontend.tolerations[0] has no key but operator "Equal"'),
    ({"worker": {"securityContext": {"privileged": True}}},
     "worker.securityContext sets privileged: true beside allowPrivilegeEscalation: false"),
    ({"frontend": {"securityContext": {"capabilities": {"add": ["CAP_SYS_ADMIN"]}}}},
     "frontend.securityContext adds CAP_SYS_ADMIN"),
    ({"download": {"securityContext": {"seccompProfile": {"type": "Localhost"}}}},
     "download.securityContext.seccompProfile has type Localhost but no localhostProfile"),
    ({"worker": {"podSecurityContext": {"seccompProfile": {"type": "RuntimeDefault", "localhostProfile": "x.json"}}}},
     "worker.podSecurityContext.seccompProfile has type RuntimeDefault and a localhostProfile"),
    ({"download": {"mode": "gated", "helperSecurityContext": {"privileged": True}}, "model": {"profile": "abc"}},
     "download.helperSecurityContext sets privileged: true beside allowPrivilegeEscalation: false"),
])
def test_pod_settings_the_api_server_refuses_fail_with_the_fix(values, says):
    assert says in render_error(values)


def test_an_overlay_unsets_a_seccomp_profile_file_with_null_and_an_empty_one_is_taken():
    """A base file's Localhost profile switched back to RuntimeDefault by an overlay's null; the API server
    only asks that a Localhost profile names a file, an empty name included."""
    render({"worker": {"securityContext": {"seccompProfile": {"type": "RuntimeDefault", "localhostProfile": None}},
                       "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "value": None,
                                        "tolerationSeconds": None}]},
            "frontend": {"securityContext": {"seccompProfile": {"type": "Localhost", "localhostProfile": ""}}}})


def test_pod_settings_the_api_server_takes_render():
    render({"worker": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                                       {"key": "dedicated", "value": "gpu"},
                                       {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}],
                       "securityContext": {"privileged": True, "allowPrivilegeEscalation": True,
                                           "seccompProfile": {"type": "Localhost", "localhostProfile": "p.json"}}}})
