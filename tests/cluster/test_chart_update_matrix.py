"""`helm upgrade` from each preset to every other preset of its API version, and to its own values changed
(scale, download settings, download mode, cache size), judged by the tier's API server as the UPDATE of the
first release's objects: each object the second release shares with the first (same kind and name) is sent
as a dry-run update. Server-side apply by one field manager is Helm 4's way of updating; Helm 3 sends a
custom resource as the JSON merge patch from the old manifest to the new one, which is sent too for the
DynamoGraphDeployment. The optional objects are switched on (disruption budget, network policy, ingress).

What is no update: an object only the second release has (created), the hook-mode download Job (Helm and
Argo CD delete it before creating the next: before-hook-creation, BeforeHookCreation), the gated Job of
another pod template (its name carries the template's hash) and the test hooks. A change of
operator.apiVersion needs the operator's conversion webhook, which does not run here.

The only refusal is the cache claim's new size (the claim is unbound here, as it is until a pod uses it):
the chart refuses that change itself where it can read the claim (test_chart_existing_claim.py)."""

from __future__ import annotations

import copy
import functools
import json

import pytest
from chart_support import hook_of, preset_files, render
from cluster_support import CLUSTER
from controlplane import ApiError, resource_path, storage_version

pytestmark = [pytest.mark.slow, *CLUSTER]

FEATURES = {"worker": {"podDisruptionBudget": {"enabled": True}}, "frontend": {"networkPolicy": {"enabled": True}},
            "ingress": {"enabled": True, "host": "reasoner.example.com", "className": "nginx"}}
GATED = {"download": {"mode": "gated"}, "model": {"profile": "0123456789abcdef-fp8-tp1"}}
OWN_CHANGES = {
    "scaled": {"worker": {"replicas": 2}, "frontend": {"replicas": 2}},
    "download-settings": {"download": {"backoffLimit": 5, "activeDeadlineSeconds": 3600,
                                       "ttlSecondsAfterFinished": 600}},
    "cache-size": {"cache": {"size": "400Gi"}},
}
MODES = {"hook": {}, "gated": GATED}
APPLY = "?fieldManager=helm&force=true&dryRun=All"
MERGE = "?fieldManager=helm&dryRun=All"


def merged(*layers: dict) -> dict:
    out: dict = {}
    for layer in layers:
        for key, value in layer.items():
            out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) \
                else copy.deepcopy(value)
    return out


@functools.cache
def release_objects(preset: str, values: str) -> dict[tuple[str, str], dict]:
    """What `helm install`/`upgrade` writes: the release's objects and its install hooks, by (kind, name)."""
    rendered = render(json.loads(values), files=(preset,), release="reasoner")
    return {(o["kind"], o["metadata"]["name"]): o for o in rendered.objects if hook_of(o) != "test"}


def objects(preset: str, *layers: dict) -> dict[tuple[str, str], dict]:
    return copy.deepcopy(release_objects(preset, json.dumps(merged(FEATURES, *layers), sort_keys=True)))


def version_of(preset) -> str:
    (dgd,) = [o for (kind, _), o in objects(str(preset)).items() if kind == "DynamoGraphDeployment"]
    return dgd["apiVersion"].split("/")[1]


def merge_patch(old: object, new: object) -> object:
    """RFC 7386 merge patch from old to new (what Helm 3 sends for a custom resource)."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return new
    patch = {key: None for key in old.keys() - new.keys()}
    patch.update({key: merge_patch(old[key], value) if key in old else value for key, value in new.items()
                  if key not in old or old[key] != value})
    return patch


def replaced_not_updated(obj: dict) -> bool:
    policy = (obj["metadata"].get("annotations") or {}).get("helm.sh/hook-delete-policy", "")
    return obj["kind"] == "Job" and "before-hook-creation" in policy


def in_namespace(obj: dict, namespace: str) -> dict:
    obj = copy.deepcopy(obj)
    obj["metadata"]["namespace"] = namespace
    return obj


def refusals(plane, namespace: str, first: dict, second: dict) -> list[tuple[str, str, str]]:
    found = []
    for key, obj in second.items():
        if key not in first or replaced_not_updated(obj) or replaced_not_updated(first[key]):
            continue
        obj = in_namespace(obj, namespace)
        path = resource_path(plane, obj["apiVersion"], obj["kind"], namespace, obj["metadata"]["name"])
        attempts = [("apply", APPLY, json.dumps(obj).encode(), "application/apply-patch+yaml")]
        if obj["kind"] == "DynamoGraphDeployment":
            attempts.append(("merge", MERGE, merge_patch(in_namespace(first[key], namespace), obj),
                             "application/merge-patch+json"))
        for how, options, body, content_type in attempts:
            try:
                plane.request("PATCH", path + options, body, content_type=content_type)
            except ApiError as error:
                found.append((how, obj["kind"], str(error)))
    return found


def upgrades_from(plane, namespace: str, start: str, mode: str, version: str) -> None:
    """Install the preset's objects in `namespace`, then send every upgrade from it as a dry-run update."""
    preset = start.rsplit("/", 1)[-1]
    first = objects(start, MODES[mode])
    targets = {f"{other.name} ({mode})": objects(str(other), MODES[mode]) for other in preset_files()
               if other.name != preset and version_of(other) == version}
    other_mode = "gated" if mode == "hook" else "hook"
    targets[f"{preset} ({other_mode})"] = objects(start, MODES[other_mode])
    targets.update({f"{preset} ({mode}, {name})": objects(start, MODES[mode], change)
                    for name, change in OWN_CHANGES.items()})
    for obj in first.values():
        plane.apply(in_namespace(obj, namespace))
    assert all(len(first.keys() & second.keys()) >= 3 for second in targets.values())  # graph, budget, policy
    found = {target: refusals(plane, namespace, first, second) for target, second in targets.items()}
    refused = {target: kinds for target, kinds in found.items() if kinds}
    if any(kind == "PersistentVolumeClaim" for kind, _name in first):  # a claim the release creates
        (how, kind, message), = refused.pop(f"{preset} ({mode}, cache-size)")
        assert (how, kind) == ("apply", "PersistentVolumeClaim") and "spec is immutable" in message, message
    assert refused == {}, preset


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("version", ["v1alpha1", "v1beta1"])
def test_every_upgrade_from_a_preset_is_an_update_the_api_server_takes(control_plane, namespace, version, mode):
    plane = control_plane
    starts = [str(path) for path in preset_files() if version_of(path) == version]
    assert starts
    with storage_version(plane, version):
        for index, start in enumerate(starts):
            own = f"{namespace}-{index}"
            plane.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                        "metadata": {"name": own}})
            upgrades_from(plane, own, start, mode, version)
