"""`dgdlint preflight` of dynamic resource allocation against the real API server (1.37, which serves
resource.k8s.io/v1): the claim templates a release's pods name, the device classes they ask for, and the
templates a ComputeDomain (NVIDIA's DRA driver, a custom kind) makes. Device classes and CRDs are
cluster-wide: each test deletes what it made."""

from __future__ import annotations

import json

import yaml
from cluster_support import CLUSTER

from dgdlint.cli import main as dgdlint

pytestmark = CLUSTER


def job(template: str) -> dict:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "gpu-probe"},
            "spec": {"template": {"spec": {
                "restartPolicy": "Never", "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template}],
                "containers": [{"name": "probe", "image": "busybox:1.36",
                                "resources": {"claims": [{"name": "gpu"}]}}]}}}}


def template(name: str, device_class: str) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": name},
            "spec": {"spec": {"devices": {"requests": [
                {"name": "gpu", "exactly": {"deviceClassName": device_class}}]}}}}


def dra_lines(control_plane, namespace: str, tmp_path, capsys, *objects: dict) -> list[dict]:
    """preflight's DRA checks of a release made of `objects`."""
    path = tmp_path / "release.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    dgdlint(["preflight", str(path), "--namespace", namespace, "--kubeconfig", str(control_plane.kubeconfig),
             "--format", "json"])
    return [check for check in json.loads(capsys.readouterr().out)["checks"] if check["topic"] == "dra"]


def test_a_template_the_pods_name_must_exist_and_its_device_class_too(control_plane, namespace, tmp_path, capsys):
    name, device_class = f"gpu-{namespace}", f"gpu.example.com-{namespace}"
    absent = dra_lines(control_plane, namespace, tmp_path, capsys, job(name))
    assert [(c["status"], c["subject"]) for c in absent] == [("error", name)]
    assert absent[0]["detail"] == f"ResourceClaimTemplate {name} does not exist in {namespace} and the release " \
        "does not ship it: Job gpu-probe stay Pending until it exists"

    control_plane.request("POST", f"/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaimtemplates",
                          template(name, device_class))
    no_class = dra_lines(control_plane, namespace, tmp_path, capsys, job(name))
    assert [(c["status"], c["subject"]) for c in no_class] == [("ok", name), ("error", name)]
    assert f"asks for device class {device_class}, which the cluster does not have" in no_class[1]["detail"]

    control_plane.request("POST", "/apis/resource.k8s.io/v1/deviceclasses", {
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": device_class}, "spec": {}})
    try:
        ready = dra_lines(control_plane, namespace, tmp_path, capsys, job(name))
        assert [(c["status"], c["detail"]) for c in ready] == [
            ("ok", f"ResourceClaimTemplate exists in {namespace} (named by Job gpu-probe)")]
        # A template shipped with the release is judged from the file, its device class too.
        shipped = dra_lines(control_plane, namespace, tmp_path, capsys, job("shipped"),
                            template("shipped", "no-such-class"))
        assert [(c["status"], c["subject"]) for c in shipped] == [("ok", "shipped"), ("error", "shipped")]
        assert "asks for device class no-such-class" in shipped[1]["detail"]
    finally:
        control_plane.request("DELETE", f"/apis/resource.k8s.io/v1/deviceclasses/{device_class}")


def test_a_template_a_compute_domain_makes_needs_nvidia_s_dra_driver(control_plane, namespace, tmp_path, capsys):
    domain = {"apiVersion": "resource.nvidia.com/v1beta1", "kind": "ComputeDomain", "metadata": {"name": "nvl72"},
              "spec": {"numNodes": 0, "channel": {"resourceClaimTemplate": {"name": "nvl72-channel"}}}}
    missing = dra_lines(control_plane, namespace, tmp_path, capsys, job("nvl72-channel"), domain)
    assert [(c["status"], c["subject"]) for c in missing] == [("error", "nvl72-channel")]
    assert "no computedomains.resource.nvidia.com CRD" in missing[0]["detail"]
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "computedomains.resource.nvidia.com"},
           "spec": {"group": "resource.nvidia.com", "scope": "Namespaced",
                    "names": {"plural": "computedomains", "singular": "computedomain", "kind": "ComputeDomain"},
                    "versions": [{"name": "v1beta1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                        "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}
    control_plane.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    try:
        served = dra_lines(control_plane, namespace, tmp_path, capsys, job("nvl72-channel"), domain)
        assert [(c["status"], c["detail"]) for c in served] == [
            ("ok", "ResourceClaimTemplate made by ComputeDomain nvl72 (the cluster serves ComputeDomains; named by "
                   "Job gpu-probe)")]
    finally:
        control_plane.request("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                                        "computedomains.resource.nvidia.com")


def test_a_release_across_two_namespaces_looks_each_template_up_in_its_pod_s_namespace(control_plane, namespace,
                                                                                     tmp_path, capsys):
    """Two Jobs name a template `gpu`, one in the release's namespace and one in another: each is looked up
    where its pod runs, and named namespace/name, as the set spans two namespaces."""
    other = f"{namespace}-b"
    control_plane.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                         "metadata": {"name": other}})
    control_plane.request("POST", f"/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaimtemplates",
                          template("gpu", "gpu.example.com"))
    elsewhere = job("gpu")
    elsewhere["metadata"] = {"name": "gpu-probe-b", "namespace": other}
    lines = dra_lines(control_plane, namespace, tmp_path, capsys, job("gpu"), elsewhere)
    assert [(c["status"], c["subject"], c["detail"]) for c in lines if "device class" not in c["detail"]] == [
        ("ok", f"{namespace}/gpu", f"ResourceClaimTemplate exists in {namespace} (named by Job gpu-probe)"),
        ("error", f"{other}/gpu", f"ResourceClaimTemplate {other}/gpu does not exist in {other} and the release "
                                  "does not ship it: Job gpu-probe-b stay Pending until it exists")]
    assert [(c["status"], c["subject"]) for c in lines if "device class" in c["detail"]] == [
        ("error", f"{namespace}/gpu")]
