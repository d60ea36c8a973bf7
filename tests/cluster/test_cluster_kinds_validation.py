"""priority-class-invalid, namespace-spec-invalid, storage-class-invalid, runtime-class-invalid and
ingress-class-invalid against the real API server: each object of a fixture is created as a server-side dry
run, in order; a PriorityClass or RuntimeClass the server takes is then created for real, since an admission
plugin reads the stored classes when a later object is created (a second default priority class is refused
by the Priority plugin; a pod that names a runtime class is checked by the RuntimeClass plugin). A workload
is sent with the Pod its template makes, and a DGD as the Pod the operator makes of it (the RuntimeClass
plugin reads pods only). The server refuses exactly the fixtures the rules fail, at the fields they name."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER, operator_pod
from controlplane import ApiError, refused_fields, resource_path

from dgdlint.engine import check_paths
from dgdlint.model import WORKLOAD_POD_SPEC

pytestmark = CLUSTER

RULES = Path(__file__).parents[1] / "rules"
FIXTURES = sorted(p for rule in ("priority-class-invalid", "namespace-spec-invalid", "storage-class-invalid",
                                 "runtime-class-invalid", "ingress-class-invalid")
                  for p in (RULES / rule).glob("*/*.yaml"))
READ_BY_PLUGINS = ("PriorityClass", "RuntimeClass")


def as_created(body: dict) -> list[dict]:
    """The objects the server is asked to create for one document: itself, and for a workload the Pod its
    template makes; a DGD only as the Pod the operator makes of its first component."""
    if body["kind"] == "DynamoGraphDeployment":
        return [operator_pod(body)]
    if body["kind"] not in WORKLOAD_POD_SPEC or body["kind"] == "Pod":
        return [body]
    template = body
    for key in WORKLOAD_POD_SPEC[body["kind"]][:-1]:
        template = template[key]
    metadata = dict(template.get("metadata") or {}, name=body["metadata"]["name"])
    return [body, {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": template["spec"]}]


def _plain(field: str) -> str:
    """A field as the rules name it: a RuntimeClass's overhead is validated as a container's limits, so the
    server names `overhead.limits[cpu]` for overhead.podFixed.cpu (and `overhead` for the table as a whole);
    it names a toleration's value at its operator (the rules: at the value), so a toleration stands for
    either."""
    field = re.sub(r"^overhead\.limits\[([^\]]+)\]$",
                   lambda key: f"overhead.podFixed.{key[1]}" if re.fullmatch(r"[A-Za-z0-9_-]+", key[1])
                   else f"overhead.podFixed['{key[1]}']", field)
    field = "overhead.podFixed" if field == "overhead" else field  # hugepages without cpu or memory
    return re.sub(r"(tolerations\[\d+\])\.(operator|value)$", r"\1", field)


def _named_by_us(field: str, named: set[str]) -> bool:
    """Whether a field the server refuses is one a rule names, inside one, or around one (the server names
    a node selector as a whole map, a required field by its own name where the rule names its parent)."""
    if "Overhead" in field:  # the RuntimeClass plugin refuses a pod by message, naming no field
        return any(p.endswith(".overhead") for p in named)
    conflict = re.search(r"conflict: runtimeClass\.scheduling\.nodeSelector\[([^\]]+)\]", field)
    if conflict:
        return any(p.endswith((f"nodeSelector['{conflict[1]}']", f"nodeSelector.{conflict[1]}")) for p in named)
    if "already marked as default" in field:
        return "globalDefault" in named
    field, named = _plain(field), {_plain(p) for p in named}
    return field in named or any(field.startswith((p + "[", p + ".")) or p.startswith(field + "[") for p in named)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_what_the_rules_fail(path, control_plane, namespace):
    documents = [body for body in yaml.safe_load_all(path.read_text(encoding="utf-8")) if body]
    created, refused = [], []
    try:
        for body in documents:
            for sent in as_created(body):
                fields = refused_fields(control_plane, namespace, sent)
                deadline = time.monotonic() + 10
                # the Priority plugin reads its informer's copy of the classes created before (the RuntimeClass
                # plugin looks a class up on the server when its informer has not seen it yet)
                while created and sent["kind"] == "PriorityClass" and not fields and time.monotonic() < deadline:
                    time.sleep(0.5)
                    fields = refused_fields(control_plane, namespace, sent)
                refused += fields
                if not fields and sent["kind"] in READ_BY_PLUGINS:
                    control_plane.request("POST", resource_path(control_plane, sent["apiVersion"], sent["kind"],
                                                                None), sent)
                    created.append(sent)
    finally:
        for body in created:
            try:
                control_plane.request("DELETE", resource_path(control_plane, body["apiVersion"], body["kind"],
                                                              None, body["metadata"]["name"]))
            except ApiError:
                pass
    ours = [f for f in check_paths([str(path)]).findings if f.rule == path.parent.parent.name]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    named = {f.path for f in ours}
    for field in refused:
        assert _named_by_us(field, named), (field, named)
