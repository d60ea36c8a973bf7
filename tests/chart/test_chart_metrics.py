"""The optional PodMonitors (Prometheus Operator): off by default; when on, one per component, selecting
this release's pods by the operator's labels and scraping the ports the operator declares, by name: the
frontend's `http` and the workers' `system`."""

from __future__ import annotations

import pytest
from chart_support import render, render_error


def monitors(values: dict | None = None, **kwargs) -> dict[str, dict]:
    settings = {"enabled": True, **(values or {})}
    rendered = render({"metrics": {"podMonitor": settings}}, **kwargs)
    return {obj["metadata"]["name"]: obj for obj in rendered.of_kind("PodMonitor")}


def selector(component: str, fullname: str = "cosmos3-reasoner") -> dict:
    return {"matchLabels": {"nvidia.com/dynamo-graph-deployment-name": fullname,
                            "nvidia.com/dynamo-component": component}}


def test_no_pod_monitor_by_default():
    assert render().of_kind("PodMonitor") == []


def test_one_monitor_scrapes_the_frontend_and_one_the_workers_system_port():
    found = monitors()
    assert sorted(found) == ["cosmos3-reasoner-frontend", "cosmos3-reasoner-worker"]
    frontend, worker = found["cosmos3-reasoner-frontend"], found["cosmos3-reasoner-worker"]
    for monitor in (frontend, worker):
        assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
        assert monitor["metadata"]["namespace"] == "default"
        assert monitor["metadata"]["labels"]["app.kubernetes.io/component"] == "metrics"
        assert "namespaceSelector" not in monitor["spec"]  # the release's own namespace
    assert frontend["spec"] == {"selector": selector("Frontend"), "podMetricsEndpoints": [
        {"port": "http", "path": "/metrics", "interval": "30s"}]}
    assert worker["spec"] == {"selector": selector("ReasonerWorker"), "podMetricsEndpoints": [
        {"port": "system", "path": "/metrics", "interval": "30s"}]}


@pytest.mark.parametrize("api_version", ["v1alpha1", "v1beta1"])
def test_the_selectors_name_this_releases_graph_and_components(api_version):
    rendered = render({"operator": {"apiVersion": api_version}, "metrics": {"podMonitor": {"enabled": True}}},
                      release="prod")
    for monitor in rendered.of_kind("PodMonitor"):
        labels = monitor["spec"]["selector"]["matchLabels"]
        assert labels["nvidia.com/dynamo-graph-deployment-name"] == rendered.dgd["metadata"]["name"]
        assert labels["nvidia.com/dynamo-component"] in rendered.components


def test_no_endpoint_names_a_port_number_the_operator_could_move():
    for monitor in monitors().values():
        (endpoint,) = monitor["spec"]["podMetricsEndpoints"]
        assert "targetPort" not in endpoint and isinstance(endpoint["port"], str)


def test_labels_interval_timeout_and_paths_are_values():
    found = monitors({"labels": {"release": "kube-prometheus-stack"}, "interval": "15s", "scrapeTimeout": "10s",
                      "frontend": {"path": "/frontend/metrics"}, "worker": {"path": "/system/metrics"}})
    for monitor in found.values():
        assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"
        assert monitor["metadata"]["labels"]["app.kubernetes.io/instance"] == "cosmos3-reasoner"
    assert found["cosmos3-reasoner-frontend"]["spec"]["podMetricsEndpoints"] == [
        {"port": "http", "path": "/frontend/metrics", "interval": "15s", "scrapeTimeout": "10s"}]
    assert found["cosmos3-reasoner-worker"]["spec"]["podMetricsEndpoints"] == [
        {"port": "system", "path": "/system/metrics", "interval": "15s", "scrapeTimeout": "10s"}]


@pytest.mark.parametrize(("switch", "expected"), [
    ({"frontend": {"enabled": False}}, ["cosmos3-reasoner-worker"]),
    ({"worker": {"enabled": False}}, ["cosmos3-reasoner-frontend"]),
])
def test_each_component_can_be_left_unscraped(switch, expected):
    assert sorted(monitors(switch)) == expected


@pytest.mark.parametrize(("settings", "where"), [
    ({"interval": "30"}, "at '/metrics/podMonitor/interval'"),
    ({"scrapeTimeout": "ten seconds"}, "at '/metrics/podMonitor/scrapeTimeout'"),
    ({"worker": {"path": "metrics"}}, "at '/metrics/podMonitor/worker/path'"),
    ({"worker": {"port": 9090}}, "at '/metrics/podMonitor/worker': additional properties 'port' not allowed"),
    ({"labels": {"release": 1}}, "at '/metrics/podMonitor/labels/release'"),
])
def test_metrics_values_are_closed_and_typed(settings, where):
    assert where in render_error({"metrics": {"podMonitor": settings}})
