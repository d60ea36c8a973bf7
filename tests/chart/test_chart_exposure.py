"""Exposure of the frontend, off by default: v1alpha1 through the operator's own ingress settings of the
Frontend service (the operator writes the Ingress), v1beta1 through an Ingress the chart renders to the
operator's Service; annotations on the operator's Service where the API has a field for them."""

from __future__ import annotations

import kubernetes_validate
import pytest
from chart_support import notes, render, render_error, validate_against_crd

HOST = "reasoner.vision.example.com"


def frontend_service(rendered) -> dict:
    return rendered.dgd["spec"]["services"]["Frontend"]


@pytest.mark.parametrize("api_version", ["v1alpha1", "v1beta1"])
def test_nothing_is_exposed_by_default(api_version):
    rendered = render({"operator": {"apiVersion": api_version}})
    assert rendered.of_kind("Ingress") == []
    if api_version == "v1alpha1":
        assert not {"ingress", "annotations"} & set(frontend_service(rendered))


def test_v1alpha1_asks_the_operator_for_the_ingress_with_the_host_split_at_its_first_dot():
    rendered = render({"ingress": {"enabled": True, "host": HOST, "className": "nginx",
                                   "tls": {"secretName": "reasoner-tls"},
                                   "annotations": {"nginx.ingress.kubernetes.io/proxy-body-size": "16m"}}})
    assert rendered.of_kind("Ingress") == []  # the operator writes it
    assert frontend_service(rendered)["ingress"] == {
        "enabled": True, "host": "reasoner", "hostSuffix": "vision.example.com",
        "ingressControllerClassName": "nginx", "tls": {"secretName": "reasoner-tls"},
        "annotations": {"nginx.ingress.kubernetes.io/proxy-body-size": "16m"}}
    assert "ingress" not in rendered.dgd["spec"]["services"]["ReasonerWorker"]


def test_v1alpha1_ingress_without_tls_or_annotations_states_neither():
    rendered = render({"ingress": {"enabled": True, "host": "reasoner.example.com", "className": "nginx"}})
    assert frontend_service(rendered)["ingress"] == {"enabled": True, "host": "reasoner", "hostSuffix": "example.com",
                                                     "ingressControllerClassName": "nginx"}


def test_v1beta1_gets_an_ingress_to_the_operators_frontend_service():
    rendered = render({"operator": {"apiVersion": "v1beta1"},
                       "ingress": {"enabled": True, "host": HOST, "className": "nginx",
                                   "tls": {"secretName": "reasoner-tls"},
                                   "annotations": {"nginx.ingress.kubernetes.io/proxy-read-timeout": "300"}}},
                      release="prod", namespace="vision")
    ingress = rendered.one("Ingress")
    assert ingress["apiVersion"] == "networking.k8s.io/v1"
    assert ingress["metadata"]["name"] == "prod-cosmos3-reasoner-frontend"
    assert ingress["metadata"]["namespace"] == "vision"
    assert ingress["metadata"]["annotations"] == {"nginx.ingress.kubernetes.io/proxy-read-timeout": "300"}
    assert ingress["spec"] == {
        "ingressClassName": "nginx",
        "tls": [{"hosts": [HOST], "secretName": "reasoner-tls"}],
        "rules": [{"host": HOST, "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": {
            "service": {"name": "prod-cosmos3-reasoner-frontend", "port": {"number": 8000}}}}]}}],
    }
    kubernetes_validate.validate(ingress, "1.30", strict=True)


def test_v1beta1_ingress_may_leave_class_and_tls_to_the_cluster():
    ingress = render({"operator": {"apiVersion": "v1beta1"},
                      "ingress": {"enabled": True, "host": "reasoner.example.com"}}).one("Ingress")
    assert set(ingress["spec"]) == {"rules"}
    assert "annotations" not in ingress["metadata"]
    kubernetes_validate.validate(ingress, "1.30", strict=True)


def test_the_ingress_backend_is_the_service_the_test_pods_call():
    rendered = render({"operator": {"apiVersion": "v1beta1"}, "ingress": {"enabled": True, "host": HOST}})
    backend = rendered.one("Ingress")["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    api_test = next(pod for pod in rendered.test_hooks if pod["kind"] == "Pod")
    assert api_test["spec"]["containers"][0]["args"][1] == f"http://{backend['name']}.default.svc:{backend['port']['number']}"


def test_the_v1alpha1_ingress_and_service_annotations_pass_the_crd_schema():
    validate_against_crd(render({"frontend": {"serviceAnnotations": {"a": "b"}}, "ingress": {
        "enabled": True, "host": HOST, "className": "nginx", "tls": {"secretName": "t"},
        "annotations": {"c": "d"}}}).dgd)


def test_service_annotations_reach_the_v1alpha1_frontend_service():
    annotations = {"service.beta.kubernetes.io/aws-load-balancer-internal": "true"}
    rendered = render({"frontend": {"serviceAnnotations": annotations}})
    assert frontend_service(rendered)["annotations"] == annotations
    assert "annotations" not in rendered.dgd["spec"]["services"]["ReasonerWorker"]


@pytest.mark.parametrize(("api_version", "secret", "scheme", "by"), [
    ("v1alpha1", "reasoner-tls", "https", "the operator writes the Ingress"),
    ("v1beta1", "", "http", "Ingress cosmos3-reasoner-frontend"),
])
def test_notes_show_the_outside_url(api_version, secret, scheme, by):
    text = notes({"operator": {"apiVersion": api_version},
                  "ingress": {"enabled": True, "host": HOST, "className": "nginx", "tls": {"secretName": secret}}})
    assert f"From outside the cluster, once DNS points {HOST} at your ingress controller ({by}):" in text
    assert f"curl -s {scheme}://{HOST}/v1/models" in text
    assert "From outside" not in notes()


@pytest.mark.parametrize(("values", "where"), [
    ({"ingress": {"host": "reasoner"}}, "at '/ingress/host'"),
    ({"ingress": {"host": "Reasoner.Example.com"}}, "at '/ingress/host'"),
    ({"ingress": {"host": "*.example.com"}}, "at '/ingress/host'"),
    ({"ingress": {"tls": {"secret": "x"}}}, "at '/ingress/tls': additional properties 'secret' not allowed"),
    ({"ingress": {"ingressClassName": "nginx"}}, "additional properties 'ingressClassName' not allowed"),
    ({"frontend": {"serviceAnnotations": {"a": 1}}}, "at '/frontend/serviceAnnotations/a'"),
])
def test_exposure_values_are_closed_and_typed(values, where):
    assert where in render_error(values)
