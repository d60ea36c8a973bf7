"""The PersistentVolumeClaims a set makes, as the API server gets them, for the rules that bind claims to
volumes (claim_binding.py, preflight's volume checks): a claim object; the claim the Dynamo operator makes
of a v1alpha1 `spec.pvcs` entry with `create: true` (its name, in the graph's namespace, with the entry's
volumeAccessMode, size and storageClass); and each claim a StatefulSet makes of its volumeClaimTemplates
(`<template>-<statefulset>-<ordinal>`, one per replica, in the StatefulSet's namespace, with the template's
metadata and spec). Each is a KObject of the claim as made, whose positions are those of what the set
writes, and `where` turns a field of the claim into the path where the set writes it."""

from __future__ import annotations

from dataclasses import dataclass, field

from dgdlint.model.objects import KObject, as_list, as_map, as_str

# A spec.pvcs entry's fields, by the claim field each becomes.
PVCS_ENTRY_FIELDS = {("spec", "resources", "requests", "storage"): ("size",),
                     ("spec", "storageClassName"): ("storageClass",),
                     ("spec", "accessModes"): ("volumeAccessMode",)}


@dataclass
class MadeClaim:
    """A PersistentVolumeClaim the set makes, with what writes it (an object, a DGD, a StatefulSet)."""

    owner: KObject  # what the set writes: the claim, the DGD or the StatefulSet
    path: tuple  # where the claim is written in it: () for a claim object
    claim: KObject  # the claim as made
    origin: str = ""  # "" (a claim object), "spec.pvcs" or "volumeClaimTemplates"
    fields: dict = field(default_factory=dict)  # claim field -> where the owner writes it, when named otherwise

    def where(self, claim_path: tuple) -> tuple:
        """The path in `owner` where the claim's field `claim_path` is written (or its nearest writer)."""
        claim_path = tuple(claim_path)
        if self.origin == "spec.pvcs":
            for length in range(len(claim_path), 0, -1):
                if claim_path[:length] in self.fields:
                    return self.path + self.fields[claim_path[:length]]
            return self.path
        return self.path + claim_path

    def described(self, label: str) -> str:
        """`label` (the claim's, as a message names it) with what makes the claim when the set writes no claim."""
        if self.origin == "spec.pvcs":
            return f"{label} (made by the operator from {self.owner.label}'s spec.pvcs)"
        if self.origin == "volumeClaimTemplates":
            return f"{label} (made from {self.owner.label}'s volumeClaimTemplates)"
        return label


def _made(owner: KObject, path: tuple, value: dict, origin: str, fields: dict | None = None) -> MadeClaim:
    claim = KObject(owner.doc, owner.base + path, value, owner.default_namespace)
    return MadeClaim(owner, path, claim, origin, fields or {})


def _claim_value(name: str, namespace: str, metadata: dict, spec: dict) -> dict:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {**metadata, "name": name, "namespace": namespace}, "spec": spec}


def from_pvcs_entry(graph: KObject, entry: dict, path: tuple) -> MadeClaim | None:
    """The claim the operator makes of a v1alpha1 spec.pvcs entry with create: true (None for any other)."""
    name = as_str(entry.get("name"))
    if entry.get("create") is not True or not name:
        return None
    spec: dict = {}
    if as_str(entry.get("volumeAccessMode")):
        spec["accessModes"] = [as_str(entry["volumeAccessMode"])]
    if as_str(entry.get("size")) is not None:
        spec["resources"] = {"requests": {"storage": entry["size"]}}
    if as_str(entry.get("storageClass")):
        spec["storageClassName"] = as_str(entry["storageClass"])
    return _made(graph, path, _claim_value(name, graph.namespace, {}, spec), "spec.pvcs", PVCS_ENTRY_FIELDS)


def _replicas(spec: dict) -> tuple[int, int]:
    """(first ordinal, replicas) of a StatefulSet: 1 replica from 0 when unset or not a whole number."""
    replicas = spec.get("replicas", 1)
    replicas = replicas if isinstance(replicas, int) and not isinstance(replicas, bool) and replicas >= 0 else 1
    start = as_map(spec.get("ordinals")).get("start", 0)
    start = start if isinstance(start, int) and not isinstance(start, bool) and start >= 0 else 0
    return start, replicas


def from_stateful_set(stateful_set: KObject) -> list[MadeClaim]:
    """The claims a StatefulSet makes of its volumeClaimTemplates, one per template and replica."""
    spec = as_map(stateful_set.value.get("spec"))
    start, replicas = _replicas(spec)
    made = []
    for index, template in enumerate(as_list(spec.get("volumeClaimTemplates"))):
        template = as_map(template)
        metadata = as_map(template.get("metadata"))
        name = as_str(metadata.get("name"))
        if not name or not stateful_set.name:
            continue
        for ordinal in range(start, start + replicas):
            value = _claim_value(f"{name}-{stateful_set.name}-{ordinal}", stateful_set.namespace, metadata,
                                 as_map(template.get("spec")))
            made.append(_made(stateful_set, ("spec", "volumeClaimTemplates", index), value, "volumeClaimTemplates"))
    return made


def made_claims(objects: list[KObject], graphs: list) -> list[MadeClaim]:
    """Every claim the set makes, claim objects first, in file order."""
    made = [MadeClaim(obj, (), obj) for obj in objects if obj.kind == "PersistentVolumeClaim"]
    for graph in graphs:
        for entry, path in graph.pvc_entries:
            claim = from_pvcs_entry(graph.obj, entry, path)
            if claim is not None:
                made.append(claim)
    for obj in objects:
        if obj.kind == "StatefulSet" and obj.group == "apps":
            made.extend(from_stateful_set(obj))
    return made


SNAPSHOT_SOURCES = (("PersistentVolumeClaim", ""), ("VolumeSnapshot", "snapshot.storage.k8s.io"))


def sources_on_create(spec: dict) -> dict[str, dict]:
    """A claim object's data sources (dataSource, dataSourceRef) as the API server keeps them on create,
    before it validates the claim: a dataSourceRef with a namespace is dropped (CrossNamespaceVolumeDataSource
    is off by default), and then, without a dataSourceRef, a dataSource that is neither a claim nor a
    VolumeSnapshot of snapshot.storage.k8s.io is dropped without a word (the old behaviour, kept for old
    clients). A claim template's are validated as written."""
    sources = {key: spec[key] for key in ("dataSource", "dataSourceRef") if isinstance(spec.get(key), dict)}
    if as_str(as_map(sources.get("dataSourceRef")).get("namespace")):
        del sources["dataSourceRef"]
    if "dataSource" in sources and "dataSourceRef" not in sources:
        source = sources["dataSource"]
        if (as_str(source.get("kind")) or "", as_str(source.get("apiGroup")) or "") not in SNAPSHOT_SOURCES:
            del sources["dataSource"]
    return sources


def claim_as_created(value: dict) -> dict:
    """A PersistentVolumeClaim object as the API server validates it on create: the data sources it drops
    (sources_on_create) left out; `value` itself when it drops none."""
    spec = value.get("spec")
    if not isinstance(spec, dict):
        return value
    kept = sources_on_create(spec)
    dropped = [key for key in ("dataSource", "dataSourceRef") if key in spec and key not in kept]
    if not dropped:
        return value
    return dict(value, spec={key: item for key, item in spec.items() if key not in dropped})

