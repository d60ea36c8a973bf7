"""The escape hatches platform teams expect, each where it applies (frontend, workers, download Job) and in
both DGD API shapes: extra volumes and mounts, envFrom, runtime classes, extra objects, proxy and custom
CA, an optional NGC key, pull secrets as names or objects, the operator's scaling adapter, resources beyond
CPU and memory, a NetworkPolicy for the frontend; and the chart's labels and annotations in the DGD's
spec, so the operator's pods carry them. Every preset with all of them set passes dgdlint
(test_chart_features_on)."""

from __future__ import annotations

import re

import pytest
import yaml
from chart_support import CACHE_PATH, CHART, env_dict, render, render_error

from dgdlint.engine import check_texts

API_VERSIONS = ("v1alpha1", "v1beta1")
SCRATCH = {"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}}
SCRATCH_MOUNT = {"name": "scratch", "mountPath": "/scratch"}
SETTINGS = [{"configMapRef": {"name": "nim-settings"}}, {"secretRef": {"name": "nim-tokens", "optional": True}}]


def download_pod(rendered) -> dict:
    return rendered.job["spec"]["template"]["spec"]


def main_container_of(rendered, component: str) -> dict:
    """The raw main container of a component (v1alpha1 mainContainer, v1beta1 containers[0])."""
    spec = rendered.dgd["spec"]
    if "services" in spec:
        return spec["services"][component]["extraPodSpec"]["mainContainer"]
    return next(c for c in spec["components"] if c["name"] == component)["podTemplate"]["spec"]["containers"][0]


def pod_spec_of(rendered, component: str) -> dict:
    spec = rendered.dgd["spec"]
    if "services" in spec:
        return spec["services"][component]["extraPodSpec"]
    return next(c for c in spec["components"] if c["name"] == component)["podTemplate"]["spec"]


HATCHES = {"extraVolumes": [SCRATCH], "extraVolumeMounts": [SCRATCH_MOUNT], "envFrom": SETTINGS,
           "runtimeClassName": "nvidia"}


@pytest.mark.parametrize("api_version", API_VERSIONS)
@pytest.mark.parametrize(("key", "component"), [("frontend", "Frontend"), ("worker", "ReasonerWorker")])
def test_extra_volumes_mounts_env_from_and_runtime_class_reach_each_component(api_version, key, component):
    rendered = render({"operator": {"apiVersion": api_version}, key: HATCHES})
    main, pod = main_container_of(rendered, component), pod_spec_of(rendered, component)
    assert SCRATCH in pod["volumes"]
    assert SCRATCH_MOUNT in main["volumeMounts"]
    assert main["envFrom"] == SETTINGS
    assert pod["runtimeClassName"] == "nvidia"
    # The other component is untouched.
    other = "Frontend" if component == "ReasonerWorker" else "ReasonerWorker"
    assert "envFrom" not in main_container_of(rendered, other)
    assert "runtimeClassName" not in pod_spec_of(rendered, other)


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_the_workers_keep_their_cache_mount_beside_extra_mounts(api_version):
    rendered = render({"operator": {"apiVersion": api_version}, "worker": HATCHES})
    assert rendered.worker["cacheMounts"] == [("cosmos3-reasoner-model-cache", CACHE_PATH)]


def test_extra_volumes_mounts_env_from_and_runtime_class_reach_the_download_job():
    pod = download_pod(render({"download": HATCHES}))
    (download,) = pod["containers"]
    assert pod["volumes"][1:] == [SCRATCH] and pod["volumes"][0]["name"] == "model-cache"
    assert download["volumeMounts"] == [{"name": "model-cache", "mountPath": CACHE_PATH}, SCRATCH_MOUNT]
    assert download["envFrom"] == SETTINGS
    assert pod["runtimeClassName"] == "nvidia"


def test_extra_objects_are_rendered_as_maps_or_strings_through_tpl():
    rendered = render({"extraObjects": [
        {"apiVersion": "v1", "kind": "ConfigMap",
         "metadata": {"name": "{{ include \"cosmos3-reasoner.fullname\" . }}-x"},
         "data": {"ns": "{{ .Release.Namespace }}"}},
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {{ .Release.Name }}-puller\n",
    ]}, release="prod", namespace="vision")
    config = next(o for o in rendered.of_kind("ConfigMap") if o["metadata"]["name"] == "prod-cosmos3-reasoner-x")
    assert config["data"] == {"ns": "vision"}
    assert rendered.one("ServiceAccount")["metadata"]["name"] == "prod-puller"


def test_no_extra_objects_render_nothing():
    assert [s for s in render().sources if s.endswith("extra-objects.yaml")] == []


PROXY = {"httpProxy": "http://proxy.example.com:3128", "httpsProxy": "http://proxy.example.com:3129",
         "noProxy": ".svc,.cluster.local"}
PROXY_ENV = {"HTTP_PROXY": PROXY["httpProxy"], "http_proxy": PROXY["httpProxy"],
             "HTTPS_PROXY": PROXY["httpsProxy"], "https_proxy": PROXY["httpsProxy"],
             "NO_PROXY": PROXY["noProxy"], "no_proxy": PROXY["noProxy"]}


def test_proxy_settings_reach_workers_frontend_and_download_in_both_cases():
    rendered = render({"proxy": PROXY})
    (download,) = download_pod(rendered)["containers"]
    for env in (rendered.worker["env"], rendered.frontend["env"], download["env"]):
        assert {k: v for k, v in env_dict(env).items() if k.lower().endswith("_proxy")} == PROXY_ENV


def test_no_proxy_env_without_proxy_settings():
    rendered = render()
    assert not [n for n in env_dict(rendered.worker["env"]) if n.lower().endswith("proxy")]


def test_a_custom_ca_bundle_is_mounted_and_named_for_openssl_requests_and_curl():
    rendered = render({"customCA": {"configMapName": "corporate-ca", "key": "ca.pem"}})
    (download,) = download_pod(rendered)["containers"]
    bundle = "/etc/cosmos3-reasoner/ca/ca.pem"
    for env in (rendered.worker["env"], rendered.frontend["env"], download["env"]):
        values = env_dict(env)
        assert (values["SSL_CERT_FILE"], values["REQUESTS_CA_BUNDLE"], values["CURL_CA_BUNDLE"]) == (bundle,) * 3
    mount = {"name": "custom-ca", "mountPath": "/etc/cosmos3-reasoner/ca", "readOnly": True}
    volume = {"name": "custom-ca", "configMap": {"name": "corporate-ca"}}
    for component in ("Frontend", "ReasonerWorker"):
        assert mount in main_container_of(rendered, component)["volumeMounts"]
        assert volume in pod_spec_of(rendered, component)["volumes"]
    assert mount in download["volumeMounts"] and volume in download_pod(rendered)["volumes"]


def test_air_gapped_without_an_ngc_key_renders_no_ngc_api_key_anywhere():
    rendered = render({"ngcApiKeySecret": {"name": ""}, "download": {"enabled": False}})
    assert rendered.of_kind("Job") == []
    for component in rendered.components.values():
        assert "NGC_API_KEY" not in env_dict(component["env"])


def test_without_an_ngc_key_a_download_must_get_it_some_other_way():
    message = render_error({"ngcApiKeySecret": {"name": ""}})
    assert "ngcApiKeySecret.name is empty but download.enabled is true" in message
    rendered = render({"ngcApiKeySecret": {"name": ""}, "download": {"envFrom": [{"secretRef": {"name": "ngc"}}]}})
    (download,) = download_pod(rendered)["containers"]
    assert "NGC_API_KEY" not in env_dict(download["env"]) and download["envFrom"] == [{"secretRef": {"name": "ngc"}}]


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_image_pull_secrets_may_be_names_or_objects(api_version):
    rendered = render({"operator": {"apiVersion": api_version},
                       "imagePullSecrets": ["ngc-registry-secret", {"name": "mirror-secret"}]})
    expected = [{"name": "ngc-registry-secret"}, {"name": "mirror-secret"}]
    assert download_pod(rendered)["imagePullSecrets"] == expected
    for component in rendered.components.values():
        assert component["pod"]["imagePullSecrets"] == expected
    assert all(p["spec"]["imagePullSecrets"] == expected for p in rendered.test_hooks if p["kind"] == "Pod")


@pytest.mark.parametrize("secret", [{"name": "a", "key": "b"}, {}, "Not_A_Name", ""])
def test_a_pull_secret_that_is_neither_a_name_nor_a_name_object_fails_at_the_schema(secret):
    assert "/imagePullSecrets/0" in render_error({"imagePullSecrets": [secret]})


def test_the_scaling_adapter_is_written_in_each_api_shape():
    v1alpha1 = render({"worker": {"scalingAdapter": {"enabled": True}}}).dgd["spec"]["services"]
    assert v1alpha1["ReasonerWorker"]["scalingAdapter"] == {"enabled": True}
    assert "scalingAdapter" not in v1alpha1["Frontend"]
    v1beta1 = render({"operator": {"apiVersion": "v1beta1"}, "frontend": {"scalingAdapter": {"enabled": True}}})
    components = {c["name"]: c for c in v1beta1.dgd["spec"]["components"]}
    assert components["Frontend"]["scalingAdapter"] == {}
    assert "scalingAdapter" not in components["ReasonerWorker"]


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_replicas_are_left_to_the_scaling_adapter_that_owns_them(api_version):
    # Written replicas would be re-applied over the adapter's count on each upgrade or GitOps sync: the
    # webhook refuses the change, Helm 4's server-side apply conflicts with the adapter's field manager.
    rendered = render({"operator": {"apiVersion": api_version}, "frontend": {"replicas": 2},
                       "worker": {"replicas": 3, "scalingAdapter": {"enabled": True}}})
    assert rendered.worker["replicas"] is None
    assert rendered.frontend["replicas"] == 2
    rendered = render({"operator": {"apiVersion": api_version}, "frontend": {"scalingAdapter": {"enabled": True}}})
    assert rendered.frontend["replicas"] is None
    assert rendered.worker["replicas"] == 1


def test_ephemeral_storage_and_hugepages_reach_the_containers_in_each_shape():
    extra = {"requests": {"ephemeral-storage": "20Gi"}, "limits": {"ephemeral-storage": "40Gi", "hugepages-2Mi": "1Gi"}}
    services = render({"worker": {"resources": extra}}).dgd["spec"]["services"]
    # v1alpha1 has cpu, memory and gpu fields; anything else goes to `custom`.
    assert services["ReasonerWorker"]["resources"]["requests"]["custom"] == {"ephemeral-storage": "20Gi"}
    assert services["ReasonerWorker"]["resources"]["limits"]["custom"] == {"ephemeral-storage": "40Gi",
                                                                           "hugepages-2Mi": "1Gi"}
    assert services["ReasonerWorker"]["resources"]["limits"]["gpu"] == "1"
    worker = render({"operator": {"apiVersion": "v1beta1"}, "worker": {"resources": extra}}).worker
    assert worker["resources"]["limits"]["ephemeral-storage"] == "40Gi"
    assert worker["resources"]["limits"]["nvidia.com/gpu"] == "1"
    (download,) = download_pod(render({"download": {"resources": extra}}))["containers"]
    assert download["resources"]["requests"]["ephemeral-storage"] == "20Gi"


@pytest.mark.parametrize("resource", ["nvidia.com/gpu", "gpu", "amd.com/gpu"])
def test_no_resources_value_can_ask_for_gpus_beside_the_matrix(resource):
    assert "additional properties" in render_error({"worker": {"resources": {"limits": {resource: "2"}}}})


def test_the_frontend_network_policy_admits_only_port_8000_from_the_given_peers():
    assert render().of_kind("NetworkPolicy") == []
    peers = [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "gateway"}}}]
    policy = render({"frontend": {"networkPolicy": {"enabled": True, "from": peers}}}).one("NetworkPolicy")
    assert policy["metadata"]["name"] == "cosmos3-reasoner-frontend"
    assert policy["spec"] == {
        "podSelector": {"matchLabels": {"nvidia.com/dynamo-graph-deployment-name": "cosmos3-reasoner",
                                        "nvidia.com/dynamo-component": "Frontend"}},
        "policyTypes": ["Ingress"],
        "ingress": [{"from": peers, "ports": [{"protocol": "TCP", "port": 8000}]}]}
    open_policy = render({"frontend": {"networkPolicy": {"enabled": True}}}).one("NetworkPolicy")
    assert open_policy["spec"]["ingress"] == [{"ports": [{"protocol": "TCP", "port": 8000}]}]


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_chart_labels_and_annotations_reach_the_dgd_spec_for_the_operators_pods(api_version):
    dgd = render({"operator": {"apiVersion": api_version}, "labels": {"team": "vision"},
                  "annotations": {"owner": "ml-platform"}}).dgd
    assert dgd["spec"]["labels"] == {"team": "vision"}
    assert dgd["spec"]["annotations"] == {"owner": "ml-platform"}
    assert dgd["metadata"]["labels"]["team"] == "vision"
    assert "labels" not in render({"operator": {"apiVersion": api_version}}).dgd["spec"]


def test_test_pods_go_where_the_frontends_pods_may_go():
    placement = {"nodeSelector": {"pool": "cpu"},
                 "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoSchedule"}]}
    rendered = render({"mode": "streaming", "frontend": placement})
    pods = [p for p in rendered.test_hooks if p["kind"] == "Pod"]
    assert len(pods) == 2
    for pod in pods:
        assert pod["spec"]["nodeSelector"] == placement["nodeSelector"]
        assert pod["spec"]["tolerations"] == placement["tolerations"]


def test_the_readme_example_of_platform_settings_renders_and_passes_dgdlint():
    readme = (CHART / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Platform settings", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)
    rendered = render(yaml.safe_load(block))
    assert rendered.one("NetworkPolicy") and rendered.dgd["spec"]["labels"] == {"team": "vision"}
    assert any(o["metadata"]["name"] == "cosmos3-reasoner-nim-settings" for o in rendered.of_kind("ConfigMap"))
    texts = {f"{index}.yaml": yaml.safe_dump(obj) for index, obj in enumerate(rendered.objects)}
    findings = check_texts(texts).findings
    assert [(f.severity, f.rule, f.message) for f in findings if f.severity in ("error", "warning")] == []
