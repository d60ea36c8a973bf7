"""Fidelity to NVIDIA's pre-release manifests (../shared/reference/cosmos3-prerelease/, read-only
data, never copied into this repository). Each comparison lists every remaining difference with a
one-line reason; an unlisted difference fails, and so does a listed one that no longer occurs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from chart_support import NIM_IMAGE, VALUES_DIR, env_dict, normalize_dgd, render

PLACEHOLDER_IMAGE = "<nim-image-build>"
FRONTEND = "spec.components[Frontend].podTemplate.spec"
WORKER = "spec.components[ReasonerWorker].podTemplate.spec"

# The same for both modes: what the chart deliberately does differently from the pre-release manifests.
COMMON_DIFFERENCES = {
    ("metadata.namespace", "added"): "Helm writes the release namespace so the output also applies with kubectl",
    ("metadata.labels", "added"): "Helm's standard labels identify the release",
    ("metadata.annotations", "added"): "the download key: the next helm upgrade skips a download it already did",
    (f"{FRONTEND}.containers[main].ports", "missing"): "the operator adds the frontend port itself",
    (f"{FRONTEND}.containers[main].startupProbe", "missing"): "frontend probes left to the operator's defaults",
    (f"{FRONTEND}.containers[main].readinessProbe", "missing"): "frontend probes left to the operator's defaults",
    (f"{WORKER}.containers[main].ports", "missing"): "the 2.1.0 operator manages worker ports",
    (f"{WORKER}.containers[main].startupProbe", "missing"): "the 2.1.0 operator manages worker probes",
    (f"{WORKER}.containers[main].livenessProbe", "missing"): "the 2.1.0 operator manages worker probes",
    (f"{WORKER}.containers[main].env[DYN_NAMESPACE_PREFIX]", "added"):
        "2.1.0 passes the base Dynamo namespace to the worker's private frontend through the downward API",
    **{(f"{pod}.securityContext.{key}", "added"): "pods hardened: never root, the runtime's seccomp filter"
       for pod in (FRONTEND, WORKER) for key in ("runAsNonRoot", "seccompProfile")},
    **{(f"{pod}.containers[main].securityContext", "added"):
       "containers hardened: no privilege escalation, every capability dropped"
       for pod in (FRONTEND, WORKER)},
}
STREAMING_DIFFERENCES = {
    (f"{FRONTEND}.containers[main].env[NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S]", "added"):
        "the request timeout is stated on the frontend, equal to the workers'",
    (f"{WORKER}.containers[main].env[NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S]", "added"):
        "the request timeout is stated on the workers, equal to the frontend's",
    (f"{WORKER}.containers[main].env[NIM_STREAMING_MAX_SESSIONS]", "added"):
        "streaming settings are values, written explicitly at the documented defaults",
    (f"{WORKER}.containers[main].env[NIM_STREAMING_MAX_VIDEO_SEGMENTS]", "added"):
        "streaming settings are values, written explicitly at the documented defaults",
    (f"{WORKER}.containers[main].env[NIM_STREAMING_REST_IDLE_TIMEOUT_S]", "added"):
        "streaming settings are values, written explicitly at the documented defaults",
}
CLAIM_DIFFERENCES = {
    ("metadata.namespace", "added"): "Helm writes the release namespace",
    ("metadata.labels", "added"): "Helm's standard labels identify the release",
    ("metadata.annotations", "added"): "the claim is kept on helm uninstall and never pruned by Argo CD",
}


def semantic_diff(reference, ours, path: str = "") -> set[tuple[str, str]]:
    """(path, added|missing|changed) for every difference; lists of named items compare by name."""
    if isinstance(reference, dict) and isinstance(ours, dict):
        found = set()
        for key in reference.keys() | ours.keys():
            child = f"{path}.{key}" if path else str(key)
            if key not in ours:
                found.add((child, "missing"))
            elif key not in reference:
                found.add((child, "added"))
            else:
                found |= semantic_diff(reference[key], ours[key], child)
        return found
    if isinstance(reference, list) and isinstance(ours, list) and _named(reference) and _named(ours):
        return semantic_diff({item["name"]: item for item in reference}, {item["name"]: item for item in ours},
                             path + "\0")
    return set() if reference == ours else {(path, "changed")}


def _named(items: list) -> bool:
    return bool(items) and all(isinstance(item, dict) and "name" in item for item in items)


def _tidy(found: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Write list-by-name steps as [name]: `a\0.b` -> `a[b]`."""
    tidy = set()
    for path, kind in found:
        while "\0." in path:
            head, _, rest = path.partition("\0.")
            name, dot, tail = rest.partition(".")
            path = f"{head}[{name}]{dot}{tail}"
        tidy.add((path, kind))
    return tidy


def _load_reference(folder: Path, name: str) -> dict:
    (document,) = [d for d in yaml.safe_load_all((folder / name).read_text(encoding="utf-8")) if d]
    return document


def _with_image(node, image: str):
    if isinstance(node, dict):
        return {key: _with_image(value, image) for key, value in node.items()}
    if isinstance(node, list):
        return [_with_image(item, image) for item in node]
    return image if node == PLACEHOLDER_IMAGE else node


def _prerelease_equivalent(mode: str) -> dict:
    """v1beta1, Nano BF16, one worker, the reference claim name: the pre-release manifests' inputs."""
    return {"mode": mode, "operator": {"apiVersion": "v1beta1"}, "model": {"variant": "nano", "precision": "bf16"},
            "worker": {"replicas": 1}, "cache": {"name": "nim-model-cache"}}


@pytest.mark.parametrize(("mode", "reference_file", "allowed"), [
    ("regular", "reasoner.yaml", COMMON_DIFFERENCES),
    ("streaming", "reasoner_with_streaming.yaml", {**COMMON_DIFFERENCES, **STREAMING_DIFFERENCES}),
])
def test_prerelease_equivalent_reproduces_the_reference_dgd_up_to_listed_differences(
        reference_dir, mode, reference_file, allowed):
    reference = _with_image(_load_reference(reference_dir, reference_file), NIM_IMAGE)
    ours = render(_prerelease_equivalent(mode)).dgd
    found = _tidy(semantic_diff(reference, ours))
    assert found - allowed.keys() == set(), "differences nobody listed"
    assert allowed.keys() - found == set(), "listed differences that no longer occur"


@pytest.mark.parametrize("reference_file", ["reasoner.yaml", "reasoner_with_streaming.yaml"])
def test_prerelease_equivalent_keeps_the_reference_env_order(reference_dir, reference_file):
    mode = "streaming" if "streaming" in reference_file else "regular"
    reference = normalize_dgd(_load_reference(reference_dir, reference_file))
    ours = render(_prerelease_equivalent(mode)).components
    for name, component in reference.items():
        reference_names = [e["name"] for e in component["env"]]
        our_names = [e["name"] for e in ours[name]["env"] if e["name"] in reference_names]
        assert our_names == reference_names, name


def test_prerelease_equivalent_claim_matches_the_reference_claim(reference_dir):
    reference = _load_reference(reference_dir, "model-cache.yaml")
    storage_class = "rwx-class"
    reference["spec"]["storageClassName"] = storage_class  # the reference leaves a placeholder here
    ours = render({**_prerelease_equivalent("regular"), "cache": {"name": "nim-model-cache",
                                                                  "storageClass": storage_class}})
    found = _tidy(semantic_diff(reference, ours.one("PersistentVolumeClaim")))
    assert found == CLAIM_DIFFERENCES.keys()


# --- the 2.1.0 reference preset -------------------------------------------------------------------

# What 2.1.0 changed against the pre-release manifests, as seen through the normalized view.
RELEASE_DELTAS = {
    ("ReasonerWorker.replicas", "changed"): "the 2.1.0 reference runs two workers",
    ("ReasonerWorker.image", "changed"): "the released image nvcr.io/nim/nvidia/cosmos3:2.1.0 replaces the placeholder",
    ("ReasonerWorker.env[NIM_PRECISION].value", "changed"): "the 2.1.0 reference serves Nano FP8",
    ("ReasonerWorker.env[DYN_NAMESPACE_PREFIX]", "added"): "2.1.0 adds the downward-API namespace prefix",
    ("ReasonerWorker.mainContainerExtras", "changed"): "2.1.0's operator manages worker probes and ports",
    ("Frontend.mainContainerExtras", "changed"): "frontend probes and ports left to the operator",
    **{(f"{name}.pod.securityContext.{key}", "added"): "pods hardened: never root, the runtime's seccomp filter"
       for name in ("Frontend", "ReasonerWorker") for key in ("runAsNonRoot", "seccompProfile")},
    **{(f"{name}.securityContext", "changed"): "containers hardened: no privilege escalation, no capabilities"
       for name in ("Frontend", "ReasonerWorker")},
}
PLAIN_FORM_DELTAS = {
    ("ReasonerWorker.env[NIM_DISCOVERY_BACKEND].value", "changed"): "the newer plain form of the discovery backend",
    ("ReasonerWorker.env[NIM_DYNAMO_ASYNC_SCHEDULING]", "added"): "the plain form states async scheduling apart",
}


@pytest.mark.parametrize("form", ["json", "plain"])
def test_reference_preset_equals_the_reference_up_to_the_listed_2_1_0_deltas(reference_dir, form):
    rendered = render({"worker": {"discoveryBackendForm": form}}, files=(VALUES_DIR / "reference-2.1.0.yaml",))
    assert rendered.dgd["apiVersion"] == "nvidia.com/v1alpha1"  # delta: the 2.1.0 manifests use spec.services
    assert rendered.job["spec"]["template"]["spec"]["containers"][0]["name"] == "download"  # delta: the Job
    reference = normalize_dgd(_load_reference(reference_dir, "reasoner.yaml"))
    ours = rendered.components
    found = _tidy(semantic_diff(reference, ours))
    allowed = {**RELEASE_DELTAS, **(PLAIN_FORM_DELTAS if form == "plain" else {})}
    assert found - allowed.keys() == set(), "differences nobody listed"
    assert allowed.keys() - found == set(), "listed differences that no longer occur"


def test_reference_preset_matches_the_reference_where_2_1_0_kept_it(reference_dir):
    reference = normalize_dgd(_load_reference(reference_dir, "reasoner.yaml"))
    ours = render(files=(VALUES_DIR / "reference-2.1.0.yaml",)).components
    for field in ("image", "command", "args"):
        assert ours["Frontend"][field] == reference["Frontend"][field], field
    for field in ("command", "args", "workingDir", "resources", "sharedMemorySize", "cacheMounts"):
        assert ours["ReasonerWorker"][field] == reference["ReasonerWorker"][field], field
    assert ours["ReasonerWorker"]["pod"]["tolerations"] == reference["ReasonerWorker"]["pod"]["tolerations"]
    assert ours["ReasonerWorker"]["pod"]["securityContext"]["fsGroup"] == 1000
    assert ours["ReasonerWorker"]["image"] == NIM_IMAGE
    assert ours["ReasonerWorker"]["replicas"] == 2


@pytest.mark.parametrize("form", ["json", "plain"])
def test_reference_preset_carries_every_reference_worker_env_value(reference_dir, form):
    reference = env_dict(normalize_dgd(_load_reference(reference_dir, "reasoner.yaml"))["ReasonerWorker"]["env"])
    rendered = render({"worker": {"discoveryBackendForm": form}}, files=(VALUES_DIR / "reference-2.1.0.yaml",))
    ours = env_dict(rendered.worker["env"])
    expected = {**reference, "NIM_PRECISION": "fp8"}
    backend = json.loads(expected.pop("NIM_DISCOVERY_BACKEND"))
    for name, value in expected.items():
        assert ours[name] == value, name
    if form == "json":
        assert json.loads(ours["NIM_DISCOVERY_BACKEND"]) == backend
    else:
        assert ours["NIM_DISCOVERY_BACKEND"] == backend["discovery_backend"]
        assert ours["NIM_DYNAMO_ASYNC_SCHEDULING"] == str(backend["async_scheduling"]).lower()
