"""claim-volume-mismatch and claim-volume-default-class against the real API server.

The two rules report claims and volumes that the API server takes and Kubernetes' volume controller never
binds. There is no controller manager here (see controlplane.py), so what the server does is checked: it
takes every object of every fixture, failing ones included (the rules are about what happens after), and
the storage class it stores in a claim that writes none is the one the rules read: the default class the
set marks (the DefaultStorageClass admission plugin), or none when the set marks none, while a claim that
writes storageClassName "" keeps it. The binding itself is the controller's, read from its source (see
claim_binding.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import ApiError, resource_path

from dgdlint.volume_binding import DEFAULT_CLASS

pytestmark = CLUSTER

RULES = Path(__file__).parents[1] / "rules"
FIXTURES = sorted(p for rule in ("claim-volume-mismatch", "claim-volume-default-class")
                  for p in (RULES / rule).glob("*/*.yaml"))


def _for_namespace(bodies: list[dict], namespace: str) -> list[dict]:
    """The fixture's objects in the test's namespace (one written in another namespace, in the test's
    namespace with that name appended: `t1-123-team-b`), their cluster-wide names made the test's own (claims
    and volumes keep a protection finalizer that only a controller removes, so a name cannot be reused)."""
    cluster_wide = ("PersistentVolume", "StorageClass")
    cluster_names = {body["metadata"]["name"] for body in bodies if body["kind"] in cluster_wide}

    def own(name: str) -> str:
        return f"{name}-{namespace}" if name in cluster_names else name

    def placed(written: str | None) -> str:
        return namespace if written in (None, "default") else f"{namespace}-{written}"

    def claim_spec(spec: dict) -> None:
        for field in ("volumeName", "storageClassName"):
            if isinstance(spec.get(field), str) and spec[field]:
                spec[field] = own(spec[field])

    out = []
    for body in bodies:
        body = yaml.safe_load(yaml.safe_dump(body))
        spec = body.get("spec") or {}
        if body["kind"] in cluster_wide:
            body["metadata"]["name"] = own(body["metadata"]["name"])
        else:
            body["metadata"]["namespace"] = placed(body["metadata"].get("namespace"))
        if body["kind"] == "PersistentVolumeClaim":
            claim_spec(spec)
        for template in spec.get("volumeClaimTemplates") or []:  # a StatefulSet's claims
            claim_spec(template.get("spec") or {})
        for entry in spec.get("pvcs") or []:  # a v1alpha1 graph's
            if entry.get("storageClass"):
                entry["storageClass"] = own(entry["storageClass"])
        if body["kind"] == "PersistentVolume":
            if spec.get("storageClassName"):
                spec["storageClassName"] = own(spec["storageClassName"])
            if (spec.get("claimRef") or {}).get("namespace"):
                spec["claimRef"]["namespace"] = placed(spec["claimRef"]["namespace"])
        out.append(body)
    return out


def _stored_class(control_plane, claim: dict, expected) -> object:
    """The class the server writes into `claim`, from a dry run, polled while it is not `expected`: the
    plugin reads the classes through an informer, which sees a class created a moment ago a moment later."""
    path = resource_path(control_plane, "v1", "PersistentVolumeClaim", claim["metadata"]["namespace"]) + "?dryRun=All"
    deadline = time.monotonic() + 10
    while True:
        stored = control_plane.request("POST", path, claim)["spec"].get("storageClassName")
        if stored in expected or time.monotonic() > deadline:
            return stored
        time.sleep(0.3)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_the_server_takes_the_objects_and_defaults_the_class_the_rules_read(path, control_plane, namespace):
    bodies = _for_namespace([b for b in yaml.safe_load_all(path.read_text(encoding="utf-8")) if b], namespace)
    defaults = {b["metadata"]["name"] for b in bodies if b["kind"] == "StorageClass"
                and any((b["metadata"].get("annotations") or {}).get(key) == "true" for key in DEFAULT_CLASS)}
    for extra in sorted({b["metadata"].get("namespace") for b in bodies} - {None, namespace}):
        control_plane.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                             "metadata": {"name": extra}})
    created = []
    try:
        for body in bodies:
            if body["kind"] == "PersistentVolumeClaim":
                written = "storageClassName" in body["spec"] or \
                    "volume.beta.kubernetes.io/storage-class" in (body["metadata"].get("annotations") or {})
                expected = {body["spec"].get("storageClassName")} if written else (defaults or {None})
                assert _stored_class(control_plane, body, expected) in expected, (body, defaults)
            namespace_of = body["metadata"].get("namespace")
            control_plane.request("POST", resource_path(control_plane, body["apiVersion"], body["kind"],
                                                        namespace_of), body)
            created.append(body)
    finally:
        for body in created:
            if body["kind"] == "StorageClass":  # a default class would reach other tests' claims
                try:
                    control_plane.request("DELETE", resource_path(control_plane, body["apiVersion"], body["kind"],
                                                                  None, body["metadata"]["name"]))
                except ApiError:
                    pass
    assert len(created) == len(bodies)
