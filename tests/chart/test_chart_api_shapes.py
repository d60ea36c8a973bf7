"""Both DGD API shapes describe the same deployment and pass the CRD schema of their version (as bundled in
schemas/, the newest Dynamo release); the built-in kinds pass Kubernetes' own schemas; extra env is merged by
name in every container."""

from __future__ import annotations

import jsonschema
import kubernetes_validate
import pytest
from chart_support import NEWEST, VALUES_DIR, env_names, preset_files, render, validate_against_crd

PRESETS = [path.name for path in preset_files()]
SHAPE_VARIATIONS = [
    {},
    {"mode": "streaming"},
    {"model": {"variant": "super", "precision": "bf16"},
     "worker": {"replicas": 3, "gpuResourceName": "example.com/gpu"}},
    {"mode": "streaming", "model": {"variant": "edge", "precision": "bf16"},
     "worker": {"discoveryBackendForm": "plain"}},
    {"download": {"enabled": False}, "cache": {"create": False, "name": "shared"}},
    {"worker": {"podLabels": {"a": "b"}, "podAnnotations": {"c": "d"}, "nodeSelector": {"pool": "gpu"},
                "extraEnv": [{"name": "NIM_LOG_LEVEL", "value": "DEBUG"}]},
     "frontend": {"podLabels": {"e": "f"}, "extraArgs": ["--x"]}},
    {"operator": {"priorityClassName": "grove-serving"},
     "worker": {"priorityClassName": "gpu-serving", "securityContext": {"capabilities": {"add": ["IPC_LOCK"]}},
                "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                               "whenUnsatisfiable": "ScheduleAnyway"}]},
     "frontend": {"priorityClassName": "frontend-high", "topologySpreadConstraints": [
         {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
          "labelSelector": {"matchLabels": {"team": "vision"}}}]}},
]


def _with_api_version(values: dict, api_version: str) -> dict:
    return {**values, "operator": {**values.get("operator", {}), "apiVersion": api_version}}


@pytest.mark.parametrize("values", SHAPE_VARIATIONS)
def test_v1alpha1_and_v1beta1_describe_the_same_deployment(values):
    v1alpha1 = render(_with_api_version(values, "v1alpha1")).components
    v1beta1 = render(_with_api_version(values, "v1beta1")).components
    assert v1alpha1 == v1beta1


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_in_both_api_versions_passes_the_crd_schema(preset):
    for api_version in ("v1alpha1", "v1beta1"):
        dgd = render(_with_api_version({}, api_version), files=(VALUES_DIR / preset,)).dgd
        validate_against_crd(dgd)


@pytest.mark.parametrize("values", SHAPE_VARIATIONS)
def test_variations_pass_the_crd_schema_of_their_version(values):
    for api_version in ("v1alpha1", "v1beta1"):
        dgd = render(_with_api_version(values, api_version)).dgd
        validate_against_crd(dgd)


@pytest.mark.parametrize("release", [NEWEST, "1.1.0"])
def test_the_strict_crd_schema_would_catch_a_misplaced_field(release):
    dgd = render().dgd
    if release == "1.1.0":
        for service in dgd["spec"]["services"].values():
            del service["runtimeVersionOverride"]  # newer than Dynamo 1.1.0 (the chart asks for 1.4 or newer)
    validate_against_crd(dgd, release)
    dgd["spec"]["services"]["ReasonerWorker"]["sharedMemorySize"] = "64Gi"  # a v1beta1 field in v1alpha1
    with pytest.raises(jsonschema.ValidationError, match="'sharedMemorySize' was unexpected") as caught:
        validate_against_crd(dgd, release)
    assert list(caught.value.absolute_path) == ["spec", "services", "ReasonerWorker"]


@pytest.mark.parametrize("values", [{}, {"cache": {"storageClass": "nfs"}, "download": {"priorityClassName": "high"}},
                                    {"worker": {"affinity": {"podAntiAffinity": {
                                        "preferredDuringSchedulingIgnoredDuringExecution": [{
                                            "weight": 10, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname"}}
                                        ]}}}}])
def test_job_and_claim_pass_the_kubernetes_schemas(values):
    rendered = render(values)
    for obj in rendered.of_kind("Job") + rendered.of_kind("PersistentVolumeClaim"):
        kubernetes_validate.validate(obj, "1.30", strict=True)


# --- extra env, merged by name --------------------------------------------------------------------

def test_worker_extra_env_replaces_an_existing_entry_in_place_and_appends_new_names():
    base = render().worker["env"]
    merged = render({"worker": {"extraEnv": [
        {"name": "HF_HUB_OFFLINE", "value": "1"},
        {"name": "OUTLINES_CACHE_DIR", "value": "/scratch/outlines"},
        {"name": "TQDM_DISABLE", "valueFrom": {"configMapKeyRef": {"name": "flags", "key": "tqdm"}}},
    ]}}).worker["env"]
    assert env_names(merged) == env_names(base) + ["HF_HUB_OFFLINE"]
    at = env_names(base).index("OUTLINES_CACHE_DIR")
    assert merged[at] == {"name": "OUTLINES_CACHE_DIR", "value": "/scratch/outlines"}
    at = env_names(base).index("TQDM_DISABLE")
    assert merged[at] == {"name": "TQDM_DISABLE", "valueFrom": {"configMapKeyRef": {"name": "flags", "key": "tqdm"}}}
    assert merged[-1] == {"name": "HF_HUB_OFFLINE", "value": "1"}
    unchanged = [i for i, name in enumerate(env_names(base)) if name not in ("OUTLINES_CACHE_DIR", "TQDM_DISABLE")]
    assert [merged[i] for i in unchanged] == [base[i] for i in unchanged]


def test_frontend_extra_env_is_merged_by_name():
    env = render({"frontend": {"extraEnv": [{"name": "DYN_REQUEST_PLANE", "value": "nats"},
                                            {"name": "DYN_LOG", "value": "debug"}]}}).frontend["env"]
    assert env == [{"name": "DYN_REQUEST_PLANE", "value": "nats"}, {"name": "DYN_LOG", "value": "debug"}]


def test_a_replaced_ngc_key_stays_a_secret_reference():
    ref = {"secretKeyRef": {"name": "team-ngc", "key": "api-key"}}
    rendered = render({"worker": {"extraEnv": [{"name": "NGC_API_KEY", "valueFrom": ref}]}})
    env = rendered.worker["env"]
    assert env[1] == {"name": "NGC_API_KEY", "valueFrom": ref}
    assert env_names(env).count("NGC_API_KEY") == 1


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("api_version", ["v1alpha1", "v1beta1"])
def test_no_container_of_any_preset_repeats_an_env_name_or_holds_a_literal_ngc_key(preset, api_version):
    extra = [{"name": "NIM_LOG_LEVEL", "value": "DEBUG"}, {"name": "EXTRA", "value": "1"}]
    rendered = render({"operator": {"apiVersion": api_version}, "worker": {"extraEnv": extra},
                       "frontend": {"extraEnv": extra}, "download": {"extraEnv": extra}},
                      files=(VALUES_DIR / preset,))
    envs = [component["env"] for component in rendered.components.values()]
    for component in rendered.components.values():
        envs += [c.get("env", []) for c in component["pod"].get("initContainers", [])]
    job_pod = rendered.job["spec"]["template"]["spec"]
    envs += [c.get("env", []) for c in job_pod.get("initContainers", []) + job_pod["containers"]]
    for env in envs:
        names = env_names(env)
        assert len(names) == len(set(names)), names
        for entry in env:
            if entry["name"] == "NGC_API_KEY":
                assert "value" not in entry and "secretKeyRef" in entry["valueFrom"]


@pytest.mark.parametrize("api_version", ["v1alpha1", "v1beta1"])
def test_every_pod_carries_the_pull_secrets(api_version):
    rendered = render({"operator": {"apiVersion": api_version}, "imagePullSecrets": ["ngc-a", "ngc-b"]})
    expected = [{"name": "ngc-a"}, {"name": "ngc-b"}]
    for component in rendered.components.values():
        assert component["pod"]["imagePullSecrets"] == expected
    assert rendered.job["spec"]["template"]["spec"]["imagePullSecrets"] == expected
