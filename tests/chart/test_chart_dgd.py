"""The DynamoGraphDeployment the chart renders: names, images, commands, env, resources, pods.
Expectations come from DOMAIN.md sections 1-4 and the chart's issue, checked through the
normalized view so that each holds for both API shapes."""

from __future__ import annotations

import hashlib
import re

import pytest
import yaml
from chart_support import (
    CACHE_PATH,
    CHART,
    FRONTEND_IMAGE,
    NIM_IMAGE,
    env_dict,
    env_names,
    hook_of,
    render,
    render_error,
)

from dgdlint.engine import check_texts

API_VERSIONS = ("v1alpha1", "v1beta1")
GATED = {"download": {"mode": "gated"}, "model": {"profile": "4f1e0c2a9b7d"}}
CHART_VERSION = yaml.safe_load((CHART / "Chart.yaml").read_text(encoding="utf-8"))["version"]
SECRET_REF = {"secretKeyRef": {"name": "ngc-api-secret", "key": "NGC_API_KEY"}}
NAMESPACE_PREFIX_REF = {"fieldRef": {"fieldPath": "metadata.labels['nvidia.com/dynamo-namespace']"}}
GPU_TOLERATION = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
FRONTEND_ARGS = ["--http-host", "0.0.0.0", "--http-port", "8000", "--dyn-chat-processor", "dynamo",
                 "--router-mode", "round-robin", "--router-session-affinity-ttl-secs", "300"]
STREAMING_FRONTEND_ARGS = ["--http-host", "0.0.0.0", "--http-port", "8000", "--discovery-backend", "kubernetes",
                           "--dyn-chat-processor", "dynamo", "--router-mode", "round-robin",
                           "--router-session-affinity-ttl-secs", "300"]
WORKER_ARGS = ["set -euo pipefail\nexec /opt/nim/start_server.sh\n"]
NON_ROOT_SECCOMP = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}


def regular_worker_env(variant="nano", precision="fp8", tags="n_gpus=1,nim_tp=1,nim_dp=1") -> list[dict]:
    """The worker env the chart must write in regular mode, in order (reference list + DYN_NAMESPACE_PREFIX)."""
    return [
        {"name": "NIM_CACHE_PATH", "value": CACHE_PATH},
        {"name": "NGC_API_KEY", "valueFrom": SECRET_REF},
        {"name": "OUTLINES_CACHE_DIR", "value": "/tmp/outlines"},
        {"name": "NIM_HTTP_API_PORT", "value": "8000"},
        {"name": "NIM_INFERENCE_PROTOCOL", "value": "http"},
        {"name": "NIM_LOGGING_JSONL", "value": "1"},
        {"name": "NIM_LOG_LEVEL", "value": "INFO"},
        {"name": "NIM_MODEL_TYPE", "value": "reasoner"},
        {"name": "NIM_MODEL_VARIANT", "value": variant},
        {"name": "NIM_PRECISION", "value": precision},
        {"name": "NIM_DYNAMO_WORKER", "value": "true"},
        {"name": "NIM_ENABLE_STREAMING", "value": "0"},
        {"name": "NIM_DYNAMO_PROXY_PORT", "value": "8080"},
        {"name": "NIM_DISCOVERY_BACKEND",
         "value": '{"async_scheduling":true,"discovery_backend":"kubernetes","enable_multimodal":true}'},
        {"name": "DYN_REQUEST_PLANE", "value": "tcp"},
        {"name": "DYN_SELF_HOST_METADATA", "value": "true"},
        {"name": "DYN_SYSTEM_PORT", "value": "9090"},
        {"name": "NIM_TAGS_SELECTOR", "value": tags},
        {"name": "VLLM_EARLY_UUID_LOOKUPS", "value": "1"},
        {"name": "VLLM_UUID_AUTO_DERIVE", "value": "1"},
        {"name": "TQDM_DISABLE", "value": "1"},
        {"name": "DYN_NAMESPACE_PREFIX", "valueFrom": NAMESPACE_PREFIX_REF},
    ]


def streaming_worker_env(endpoint="cosmos3-reasoner.backend.streaming") -> list[dict]:
    env = regular_worker_env()
    values = {e["name"]: e for e in env}
    values["NIM_ENABLE_STREAMING"] = {"name": "NIM_ENABLE_STREAMING", "value": "1"}
    values["NIM_DISCOVERY_BACKEND"] = {
        "name": "NIM_DISCOVERY_BACKEND",
        "value": '{"async_scheduling":false,"discovery_backend":"kubernetes","enable_multimodal":true}'}
    ordered = [values[e["name"]] for e in env]
    at = env_names(ordered).index("NIM_DYNAMO_PROXY_PORT")
    ordered.insert(at, {"name": "NIM_DYNAMO_STREAMING_ENDPOINT", "value": endpoint})
    return ordered + [
        {"name": "NIM_STREAMING_MAX_SESSIONS", "value": "2"},
        {"name": "NIM_STREAMING_MAX_VIDEO_SEGMENTS", "value": "8"},
        {"name": "NIM_STREAMING_REST_IDLE_TIMEOUT_S", "value": "120"},
        {"name": "NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S", "value": "180"},
    ]


def test_default_release_renders_one_dgd_and_before_it_the_claim_and_the_download_job_as_hooks():
    rendered = render()
    assert sorted(obj["kind"] for obj in rendered.release_objects) == ["DynamoGraphDeployment"]
    assert sorted(obj["kind"] for obj in rendered.objects if hook_of(obj) == "pre-install,pre-upgrade") == [
        "Job", "PersistentVolumeClaim"]
    assert sorted(obj["kind"] for obj in rendered.test_hooks) == ["ConfigMap", "Pod"]


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_dgd_is_an_ordinary_release_object_named_after_the_release(api_version):
    dgd = render({"operator": {"apiVersion": api_version}}).dgd
    assert dgd["apiVersion"] == f"nvidia.com/{api_version}"
    assert dgd["kind"] == "DynamoGraphDeployment"
    assert dgd["metadata"]["name"] == "cosmos3-reasoner"
    assert dgd["metadata"]["namespace"] == "default"
    assert not any(key.startswith("helm.sh/hook") for key in dgd["metadata"].get("annotations", {}))
    assert dgd["spec"]["backendFramework"] == "vllm"
    components = render({"operator": {"apiVersion": api_version}}).components
    assert {name: c["type"] for name, c in components.items()} == {"Frontend": "frontend", "ReasonerWorker": "decode"}
    assert {c["runtimeVersionOverride"] for c in components.values()} == {"1.5.0"}


def cut_name(full: str) -> str:
    """What the chart documents for a name over 31 characters: its first 24 (no trailing dash or dot), a
    dash and the first 6 hex of sha256 of the whole name."""
    return full[:24].rstrip("-.") + "-" + hashlib.sha256(full.encode()).hexdigest()[:6]


@pytest.mark.parametrize(("release", "overrides", "expected"), [
    ("cosmos3-reasoner", {}, "cosmos3-reasoner"),
    ("prod", {}, "prod-cosmos3-reasoner"),
    ("cosmos3-reasoner-east", {}, "cosmos3-reasoner-east"),
    ("prod", {"nameOverride": "vlm"}, "prod-vlm"),
    ("prod", {"fullnameOverride": "reasoner-a"}, "reasoner-a"),
    ("prod", {"fullnameOverride": "a" * 31}, "a" * 31),
    # Longer than 31 characters (Grove's name budget, see below): cut, with a hash of the whole name.
    ("prod", {"fullnameOverride": "a" * 30 + "-bbbb"}, cut_name("a" * 30 + "-bbbb")),
    ("prod", {"fullnameOverride": "a" * 23 + "--bbbbbbbb"}, "a" * 23 + "-" + cut_name("a" * 23 + "--bbbbbbbb")[-6:]),
    ("a" * 53, {}, cut_name("a" * 53 + "-cosmos3-reasoner")),
])
def test_fullname_follows_helm_conventions_within_31_characters(release, overrides, expected):
    rendered = render(overrides, release=release)
    assert rendered.dgd["metadata"]["name"] == expected
    assert len(expected) <= 31 and not expected.endswith(("-", "."))
    assert rendered.one("PersistentVolumeClaim")["metadata"]["name"] == f"{expected}-model-cache"
    assert rendered.job["metadata"]["name"] == f"{expected}-download"
    gated = render({**overrides, **GATED}, release=release).job["metadata"]["name"]
    assert re.fullmatch(f"{expected}-download-[0-9a-f]{{8}}", gated) and len(gated) <= 63


def test_two_releases_that_agree_in_their_first_31_characters_get_distinct_names():
    first, second = "cosmos3-reasoner-production-us-east-1", "cosmos3-reasoner-production-us-east-2"
    names = [{(obj["kind"], obj["metadata"]["name"]) for obj in render(release=release).objects}
             for release in (first, second)]
    assert names[0].isdisjoint(names[1])


# Helm's longest release name is 53 characters; 43 was the length that first broke the budget.
LONG_RELEASES = ["team-vision-" + "x" * (43 - 12), "team-vision-" + "x" * (53 - 12), "cosmos3-reasoner-" + "y" * 36]


@pytest.mark.parametrize("api_version", API_VERSIONS)
@pytest.mark.parametrize("release", LONG_RELEASES)
def test_dgd_name_plus_its_longest_component_name_fits_groves_45_characters(release, api_version):
    rendered = render({"operator": {"apiVersion": api_version}}, release=release)
    name = rendered.dgd["metadata"]["name"]
    longest = max(rendered.components, key=len)
    assert len(name) + len(longest) <= 45, (
        f"release {release!r} ({len(release)}): DGD name {name!r} ({len(name)}) + {longest!r} ({len(longest)}) = "
        f"{len(name) + len(longest)} characters; Grove allows 45, so the name may have {45 - len(longest)}")
    texts = {f"{index}.yaml": yaml.safe_dump(obj) for index, obj in enumerate(rendered.objects)}
    findings = [(f.severity, f.rule, f.message) for f in check_texts(texts).findings if f.severity != "info"]
    assert findings == [], f"release {release!r} ({len(release)} characters)"


def test_chart_labels_and_the_labels_and_annotations_values_reach_every_object():
    rendered = render({"labels": {"team": "vision"}, "annotations": {"owner": "ml-platform"}})
    for obj in rendered.objects:
        metadata = obj["metadata"]
        assert metadata["labels"]["team"] == "vision"
        assert metadata["labels"]["app.kubernetes.io/instance"] == "cosmos3-reasoner"
        assert metadata["labels"]["app.kubernetes.io/name"] == "cosmos3-reasoner"
        assert metadata["labels"]["app.kubernetes.io/managed-by"] == "Helm"
        assert metadata["labels"]["helm.sh/chart"] == f"cosmos3-reasoner-{CHART_VERSION}"
        assert metadata["labels"]["app.kubernetes.io/version"] == "2.1.0"
        assert metadata["annotations"]["owner"] == "ml-platform"


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_regular_frontend_runs_the_pinned_dynamo_frontend_without_gpu(api_version):
    frontend = render({"operator": {"apiVersion": api_version}}).frontend
    assert frontend["image"] == FRONTEND_IMAGE
    assert frontend["imagePullPolicy"] == "IfNotPresent"
    assert frontend["workingDir"] is None
    assert frontend["command"] == ["python3", "-m", "dynamo.frontend"]
    assert frontend["args"] == FRONTEND_ARGS
    assert frontend["env"] == [{"name": "DYN_REQUEST_PLANE", "value": "tcp"}]
    assert frontend["resources"] == {"requests": {"cpu": "4", "memory": "8Gi"},
                                     "limits": {"cpu": "8", "memory": "16Gi"}}
    assert frontend["replicas"] == 1
    assert frontend["sharedMemorySize"] is None
    assert frontend["cacheMounts"] == []
    assert frontend["pod"] == {
        "imagePullSecrets": [{"name": "ngc-registry-secret"}],
        "securityContext": {"fsGroup": 1000, "runAsUser": 1000, "runAsGroup": 1000, **NON_ROOT_SECCOMP},
    }


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_streaming_frontend_runs_the_streaming_adapter_from_the_nim_image(api_version):
    frontend = render({"mode": "streaming", "operator": {"apiVersion": api_version}}).frontend
    assert frontend["image"] == NIM_IMAGE
    assert frontend["workingDir"] == "/opt/nim"
    assert frontend["command"] == ["/opt/nim/.venv/bin/python", "-m", "streaming.dynamo.frontend"]
    assert frontend["args"] == STREAMING_FRONTEND_ARGS
    assert frontend["env"] == [
        {"name": "DYN_REQUEST_PLANE", "value": "tcp"},
        {"name": "NIM_DYNAMO_STREAMING_ENDPOINT", "value": "cosmos3-reasoner.backend.streaming"},
        {"name": "NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S", "value": "180"},
    ]
    assert "nvidia.com/gpu" not in frontend["resources"]["limits"]


def test_frontend_values_reach_the_frontend():
    frontend = render({"frontend": {
        "replicas": 3, "routerMode": "kv", "sessionAffinityTtlSeconds": 60, "extraArgs": ["--no-kv-events"],
        "extraEnv": [{"name": "DYN_LOG", "value": "debug"}],
        "nodeSelector": {"pool": "cpu"}, "tolerations": [{"key": "cpu-only", "operator": "Exists"}],
        "podLabels": {"tier": "edge"}, "podAnnotations": {"scrape": "yes"},
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "4Gi"}},
    }}).frontend
    assert frontend["replicas"] == 3
    assert frontend["args"] == ["--http-host", "0.0.0.0", "--http-port", "8000", "--dyn-chat-processor", "dynamo",
                                "--router-mode", "kv", "--router-session-affinity-ttl-secs", "60", "--no-kv-events"]
    assert frontend["env"] == [{"name": "DYN_REQUEST_PLANE", "value": "tcp"}, {"name": "DYN_LOG", "value": "debug"}]
    assert frontend["pod"]["nodeSelector"] == {"pool": "cpu"}
    assert frontend["pod"]["tolerations"] == [{"key": "cpu-only", "operator": "Exists"}]
    assert frontend["podLabels"] == {"tier": "edge"}
    assert frontend["podAnnotations"] == {"scrape": "yes"}
    assert frontend["resources"] == {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "4Gi"}}


@pytest.mark.parametrize("api_version", API_VERSIONS)
@pytest.mark.parametrize("mode", ["regular", "streaming"])
def test_worker_runs_the_unchanged_nim_launch_command(api_version, mode):
    worker = render({"mode": mode, "operator": {"apiVersion": api_version}}).worker
    assert worker["image"] == NIM_IMAGE
    assert worker["imagePullPolicy"] == "IfNotPresent"
    assert worker["workingDir"] == "/opt/nim"
    assert worker["command"] == ["/bin/bash", "-lc"]
    assert worker["args"] == WORKER_ARGS


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_regular_worker_env_is_the_reference_list_in_order_plus_the_namespace_prefix(api_version):
    worker = render({"operator": {"apiVersion": api_version}}).worker
    assert worker["env"] == regular_worker_env()


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_streaming_worker_env_adds_endpoint_sync_scheduling_and_session_settings(api_version):
    worker = render({"mode": "streaming", "operator": {"apiVersion": api_version}}).worker
    assert worker["env"] == streaming_worker_env()


def test_streaming_settings_reach_workers_and_the_request_timeout_reaches_the_frontend_too():
    rendered = render({"mode": "streaming", "streaming": {
        "endpoint": "pool-a.backend.streaming", "maxSessions": 4, "maxVideoSegments": 16,
        "restIdleTimeoutSeconds": 30, "requestTimeoutSeconds": 90, "specMethod": "ngram"}})
    worker = env_dict(rendered.worker["env"])
    frontend = env_dict(rendered.frontend["env"])
    assert worker["NIM_DYNAMO_STREAMING_ENDPOINT"] == frontend["NIM_DYNAMO_STREAMING_ENDPOINT"] == \
        "pool-a.backend.streaming"
    timeout = "NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S"
    assert worker[timeout] == frontend[timeout] == "90"
    assert worker["NIM_STREAMING_MAX_SESSIONS"] == "4"
    assert worker["NIM_STREAMING_MAX_VIDEO_SEGMENTS"] == "16"
    assert worker["NIM_STREAMING_REST_IDLE_TIMEOUT_S"] == "30"
    assert env_names(rendered.worker["env"])[-1] == "NIM_STREAMING_SPEC_METHOD"
    assert worker["NIM_STREAMING_SPEC_METHOD"] == "ngram"


def test_two_releases_get_two_streaming_endpoints():
    first = env_dict(render({"mode": "streaming"}, release="pool-a").worker["env"])
    second = env_dict(render({"mode": "streaming"}, release="pool-b").worker["env"])
    assert first["NIM_DYNAMO_STREAMING_ENDPOINT"] == "pool-a-cosmos3-reasoner.backend.streaming"
    assert second["NIM_DYNAMO_STREAMING_ENDPOINT"] == "pool-b-cosmos3-reasoner.backend.streaming"


def test_regular_mode_writes_no_streaming_settings_even_when_set():
    worker = env_dict(render({"streaming": {"specMethod": "ngram", "endpoint": "x.backend.streaming"}}).worker["env"])
    assert not [name for name in worker if "STREAMING" in name and name != "NIM_ENABLE_STREAMING"]


@pytest.mark.parametrize(("mode", "async_scheduling"), [("regular", "true"), ("streaming", "false")])
def test_plain_discovery_backend_form_states_async_scheduling_separately(mode, async_scheduling):
    env = render({"mode": mode, "worker": {"discoveryBackendForm": "plain"}}).worker["env"]
    names = env_names(env)
    at = names.index("NIM_DISCOVERY_BACKEND")
    assert env[at] == {"name": "NIM_DISCOVERY_BACKEND", "value": "kubernetes"}
    assert env[at + 1] == {"name": "NIM_DYNAMO_ASYNC_SCHEDULING", "value": async_scheduling}
    assert names[at + 2] == "DYN_REQUEST_PLANE"


def test_worker_ports_and_log_level_values_reach_the_env_and_the_system_port_stays_the_operators():
    worker = env_dict(render({"worker": {"httpPort": 8001, "proxyPort": 8081, "logLevel": "DEBUG"}}).worker["env"])
    assert (worker["NIM_HTTP_API_PORT"], worker["NIM_DYNAMO_PROXY_PORT"], worker["DYN_SYSTEM_PORT"]) == \
        ("8001", "8081", "9090")
    assert worker["NIM_LOG_LEVEL"] == "DEBUG"


def test_no_value_moves_the_system_port():
    assert "additional properties 'systemPort' not allowed" in render_error({"worker": {"systemPort": 9091}})
    assert "worker.extraEnv sets DYN_SYSTEM_PORT: the Dynamo operator owns the worker's system port" in \
        render_error({"worker": {"extraEnv": [{"name": "DYN_SYSTEM_PORT", "value": "9091"}]}})


@pytest.mark.parametrize("api_version", API_VERSIONS)
def test_worker_resources_shared_memory_tolerations_and_security_context(api_version):
    worker = render({"operator": {"apiVersion": api_version}}).worker
    gpu_shape = {"cpu": "16", "memory": "96Gi", "nvidia.com/gpu": "1"}
    assert worker["resources"] == {"requests": gpu_shape, "limits": gpu_shape}
    assert worker["sharedMemorySize"] == "64Gi"
    assert worker["replicas"] == 1
    assert worker["pod"]["tolerations"] == GPU_TOLERATION
    assert worker["pod"]["securityContext"] == {"fsGroup": 1000, "fsGroupChangePolicy": "OnRootMismatch",
                                                "runAsUser": 1000, "runAsGroup": 1000, **NON_ROOT_SECCOMP}
    assert worker["pod"]["terminationGracePeriodSeconds"] == 60
    assert worker["pod"]["imagePullSecrets"] == [{"name": "ngc-registry-secret"}]
    assert worker["cacheMounts"] == [("cosmos3-reasoner-model-cache", CACHE_PATH)]


def test_v1alpha1_states_gpus_as_service_resources_and_lists_the_claim_uncreated():
    dgd = render({"operator": {"apiVersion": "v1alpha1"}}).dgd
    worker = dgd["spec"]["services"]["ReasonerWorker"]
    assert worker["resources"] == {"requests": {"cpu": "16", "memory": "96Gi", "gpu": "1"},
                                   "limits": {"cpu": "16", "memory": "96Gi", "gpu": "1"}}
    assert worker["sharedMemory"] == {"size": "64Gi"}
    assert worker["volumeMounts"] == [{"name": "cosmos3-reasoner-model-cache", "mountPoint": CACHE_PATH}]
    assert dgd["spec"]["pvcs"] == [{"name": "cosmos3-reasoner-model-cache", "create": False}]
    assert "volumeMounts" not in dgd["spec"]["services"]["Frontend"]


def test_v1beta1_mounts_the_claim_through_a_pod_volume_and_has_no_pvcs():
    dgd = render({"operator": {"apiVersion": "v1beta1"}}).dgd
    assert "pvcs" not in dgd["spec"]
    worker = next(c for c in dgd["spec"]["components"] if c["name"] == "ReasonerWorker")
    spec = worker["podTemplate"]["spec"]
    assert spec["containers"][0]["volumeMounts"] == [{"name": "nim-cache", "mountPath": CACHE_PATH}]
    assert {"name": "nim-cache", "persistentVolumeClaim": {"claimName": "cosmos3-reasoner-model-cache"}} in \
        spec["volumes"]
    assert worker["sharedMemorySize"] == "64Gi"


def test_custom_gpu_resource_name_becomes_gpu_type_in_v1alpha1_and_the_resource_key_in_v1beta1():
    values = {"worker": {"gpuResourceName": "nvidia.com/mig-3g.40gb"}}
    v1alpha1 = render({**values, "operator": {"apiVersion": "v1alpha1"}}).dgd["spec"]["services"]["ReasonerWorker"]
    assert v1alpha1["resources"]["limits"] == {"cpu": "16", "memory": "96Gi", "gpu": "1",
                                               "gpuType": "nvidia.com/mig-3g.40gb"}
    v1beta1 = render({**values, "operator": {"apiVersion": "v1beta1"}}).worker
    assert v1beta1["resources"]["limits"] == {"cpu": "16", "memory": "96Gi", "nvidia.com/mig-3g.40gb": "1"}


def test_worker_scheduling_and_pod_metadata_values_reach_the_worker():
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "gpu.product", "operator": "In", "values": ["H100"]}]}]}}}
    worker = render({"worker": {
        "replicas": 3, "componentType": "worker", "nodeSelector": {"pool": "gpu"}, "affinity": affinity,
        "tolerations": [], "terminationGracePeriodSeconds": 120, "sharedMemorySize": "32Gi",
        "podLabels": {"tier": "gpu"}, "podAnnotations": {"scrape": "yes"},
    }}).worker
    assert worker["replicas"] == 3
    assert worker["type"] == "worker"
    assert worker["pod"]["nodeSelector"] == {"pool": "gpu"}
    assert worker["pod"]["affinity"] == affinity
    assert "tolerations" not in worker["pod"]
    assert worker["pod"]["terminationGracePeriodSeconds"] == 120
    assert worker["sharedMemorySize"] == "32Gi"
    assert worker["podLabels"] == {"tier": "gpu"}
    assert worker["podAnnotations"] == {"scrape": "yes"}


@pytest.mark.parametrize("api_version", API_VERSIONS)
@pytest.mark.parametrize("mode", ["regular", "streaming"])
def test_no_component_states_probes_or_ports_because_the_operator_manages_them(api_version, mode):
    for component in render({"mode": mode, "operator": {"apiVersion": api_version}}).components.values():
        assert component["mainContainerExtras"] == []
        assert component["podExtras"] == []


@pytest.mark.parametrize("api_version", API_VERSIONS)
@pytest.mark.parametrize("mode", ["regular", "streaming"])
def test_operator_injected_env_is_never_written(api_version, mode):
    for component in render({"mode": mode, "operator": {"apiVersion": api_version}}).components.values():
        names = set(env_names(component["env"]))
        assert not names & {"DYN_NAMESPACE", "DYN_NAMESPACE_WORKER_SUFFIX", "DYN_DISCOVERY_BACKEND"}


def test_image_digest_is_appended_to_the_tag_everywhere_the_nim_image_runs():
    digest = "sha256:" + "ab" * 32
    rendered = render({"mode": "streaming", "image": {"digest": digest}, **GATED})
    expected = f"{NIM_IMAGE}@{digest}"
    assert rendered.worker["image"] == rendered.frontend["image"] == expected
    pod = rendered.job["spec"]["template"]["spec"]
    assert {c["image"] for c in pod["containers"]} == {expected}
    assert rendered.worker["pod"]["initContainers"][0]["image"] == expected


def test_pull_policy_value_reaches_every_nim_container():
    rendered = render({"mode": "streaming", "image": {"pullPolicy": "Always"}, **GATED})
    pod = rendered.job["spec"]["template"]["spec"]
    policies = {rendered.worker["imagePullPolicy"], rendered.frontend["imagePullPolicy"]}
    policies |= {c["imagePullPolicy"] for c in pod["containers"]}
    policies |= {c["imagePullPolicy"] for c in rendered.worker["pod"]["initContainers"]}
    assert policies == {"Always"}
