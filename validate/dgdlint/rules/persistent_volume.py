"""PersistentVolumes as the API server validates them on create (written from Kubernetes 1.37's core
validation, ValidatePersistentVolume and ValidatePersistentVolumeSpec, and the plugin check of the volume
registry; after the v1 defaults, which fill an unset reclaim policy with Retain and an unset volumeMode with
Filesystem, and round each capacity up to a thousandth).

- Access modes: at least one, each a known one, ReadWriteOncePod alone.
- Capacity: storage and nothing else, a quantity above zero (the rounding never makes a positive one zero).
- A reclaim policy the server knows (Recycle included), but not Recycle on a hostPath of '/' (as Go's
  path.Clean reads it: '//' and '/.' are '/').
- A storageClassName and a volumeAttributesClassName that are DNS subdomains; the latter (from Kubernetes
  1.34, when VolumeAttributesClass is on by default; before, the server drops it) not empty and only on a
  csi volume. A volumeMode of Block or Filesystem (an empty one is refused).
- A nodeAffinity with required node selector terms, each checked as a pod's required node affinity is.
- The volume's source: persistent_sources.py.

A claimRef is not validated on create beyond its schema; spec.mountOptions is not validated at all."""

from __future__ import annotations

from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.quantity import go_quantity
from dgdlint.rules.claims import ACCESS_MODES
from dgdlint.rules.persistent_sources import MOUNT_OPTIONS_ANNOTATION, mount_options_problem, source_problems
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.selectors import node_term_problems
from dgdlint.rules.syntax import dns1123_subdomain_problem
from dgdlint.scalars import go_trim_space

RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
VOLUME_MODES = ("Block", "Filesystem")
_GENERATED_BASE, _GENERATED_SUFFIX = 58, 5  # how the server names an object from its generateName


def _access_mode_problems(spec: dict):
    modes = [as_str(mode) for mode in as_list(spec.get("accessModes"))]
    if not modes:
        yield ("spec", "accessModes"), "has no access mode (at least one is required)"
    for mode in modes:
        if mode is not None and mode not in ACCESS_MODES:
            yield ("spec", "accessModes"), f"access mode {mode!r} is not one of {', '.join(ACCESS_MODES)}"
    if "ReadWriteOncePod" in modes and len(set(modes) & set(ACCESS_MODES)) > 1:
        yield ("spec", "accessModes"), "uses ReadWriteOncePod with other access modes (it goes alone)"


def _capacity_problems(spec: dict):
    capacity = spec.get("capacity")
    if not isinstance(capacity, dict) or not capacity:  # not a mapping: the schema's to report
        if capacity is None or capacity == {}:
            yield ("spec", "capacity"), "has no capacity (capacity.storage is required)"
        return
    if "storage" not in capacity or len(capacity) > 1:
        others = ", ".join(str(key) for key in capacity if key != "storage")
        yield ("spec", "capacity"), f"capacity names {others}; a volume's capacity is storage alone" \
            if others else "has no storage capacity"
    for key, value in capacity.items():
        if value is None:  # a null quantity is decoded as zero
            yield ("spec", "capacity", key), f"capacity {key} is null, which the server reads as 0 (not above zero)"
            continue
        text = as_str(value) if not isinstance(value, bool) else None
        amount = go_quantity(go_trim_space(text)) if text is not None else None  # the decoder trims it
        if amount is not None and amount <= 0:  # no quantity: the schema's to report
            yield ("spec", "capacity", key), f"capacity {key} {text!r} is not above zero"


def _cleans_to_root(path: str) -> bool:
    """Whether Go's path.Clean makes `path` '/' (a rooted path whose elements all cancel out)."""
    if not path.startswith("/"):
        return False
    kept: list[str] = []
    for part in path.split("/"):
        if part == "..":
            if kept:
                kept.pop()
        elif part not in ("", "."):
            kept.append(part)
    return not kept


def _class_problems(spec: dict, attributes_class: bool):
    storage_class = as_str(spec.get("storageClassName"))
    if storage_class and dns1123_subdomain_problem(storage_class):
        yield ("spec", "storageClassName"), \
            f"storageClassName {storage_class!r} {dns1123_subdomain_problem(storage_class)}"
    mode = as_str(spec.get("volumeMode"))  # null: unset, defaulted to Filesystem
    if mode is not None and mode not in VOLUME_MODES:
        yield ("spec", "volumeMode"), f"volumeMode {mode!r} is not one of {', '.join(VOLUME_MODES)}"
    attributes = spec.get("volumeAttributesClassName")
    if attributes_class and attributes is not None:
        text = as_str(attributes) or ""
        problem = dns1123_subdomain_problem(text) if text else "is empty (leave it out, or name a class)"
        if problem:
            yield ("spec", "volumeAttributesClassName"), f"volumeAttributesClassName {text!r} {problem}"
        if spec.get("csi") is None:
            yield ("spec", "csi"), "has a volumeAttributesClassName, which only a csi volume takes"


def _affinity_problems(spec: dict):
    affinity = spec.get("nodeAffinity")
    if affinity is None:
        return
    required = as_map(affinity).get("required")
    at = ("spec", "nodeAffinity", "required")
    if required is None:
        yield at, "has a nodeAffinity without required node selector terms"
        return
    terms = as_list(as_map(required).get("nodeSelectorTerms"))
    if not terms:
        yield at + ("nodeSelectorTerms",), "has a required node affinity without nodeSelectorTerms (one at least)"
    for index, term in enumerate(terms):
        yield from node_term_problems(as_map(term), at + ("nodeSelectorTerms", index), True)


def _server_name(metadata: dict) -> str:
    """The volume's name as the server has it when it validates: a generateName's prefix (58 characters at
    most) and five random characters stand for a name not given."""
    name = as_str(metadata.get("name"))
    if name:
        return name
    generate = as_str(metadata.get("generateName")) or ""
    return generate[:_GENERATED_BASE] + "x" * _GENERATED_SUFFIX if generate else ""


def persistent_volume_problems(obj, attributes_class: bool = True):
    """(path, problem) for what the API server refuses in the PersistentVolume `obj`; `attributes_class`:
    volumeAttributesClassName is read (Kubernetes 1.34 or later)."""
    spec = as_map(obj.value.get("spec"))
    yield from _access_mode_problems(spec)
    yield from _capacity_problems(spec)
    policy = as_str(spec.get("persistentVolumeReclaimPolicy"))
    if policy and policy not in RECLAIM_POLICIES:  # empty: the default, Retain
        yield ("spec", "persistentVolumeReclaimPolicy"), \
            f"persistentVolumeReclaimPolicy {policy!r} is not one of {', '.join(RECLAIM_POLICIES)}"
    host_path = as_str(as_map(spec.get("hostPath")).get("path"))
    if policy == "Recycle" and host_path is not None and _cleans_to_root(host_path):
        yield ("spec", "persistentVolumeReclaimPolicy"), \
            f"persistentVolumeReclaimPolicy Recycle would empty the node's root: the hostPath is {host_path!r}"
    yield from _affinity_problems(spec)
    yield from source_problems(spec, _server_name(obj.metadata))
    yield from _class_problems(spec, attributes_class)
    problem = mount_options_problem(as_map(obj.metadata.get("annotations")), spec)
    if problem:
        yield ("metadata", "annotations", MOUNT_OPTIONS_ANNOTATION), problem


@rule(
    name="persistent-volume-invalid", code="DGD639", severity="error", family="admission",
    title="Persistent volumes are ones the API server takes",
    rationale="""A model cache's ReadWriteMany claim is often bound to a static NFS or CSI PersistentVolume
    shipped beside the deployment. The API server refuses a PersistentVolume without access modes, with
    ReadWriteOncePod beside another mode, without a storage capacity above zero (or with another resource
    in it), with no volume source or two, with a source missing what it needs (an nfs server and absolute
    path, a csi driver and volumeHandle, secret references with a name and namespace, a local path and a
    nodeAffinity, ...), with an unknown reclaim policy or volumeMode, Recycle on a hostPath of '/', a
    storageClassName that is no DNS subdomain, a nodeAffinity without required terms or with invalid ones,
    or the mount-options annotation on a source that takes no mount options. The JSON schema takes all of
    these, and a claim waiting for the volume stays Pending.""",
    remediation="Give the volume one source with the fields it needs, accessModes such as [ReadWriteMany], "
                "capacity: {storage: 100Gi}, and a reclaim policy of Retain or Delete.",
    reads=("PersistentVolume",),
)
def persistent_volume_invalid(model: Model):
    attributes_class = model.release.kubernetes_at_least("1.34")  # VolumeAttributesClass on by default
    for obj in model.objects:
        if obj.kind == "PersistentVolume" and obj.group == "":
            for path, problem in persistent_volume_problems(obj, attributes_class):
                yield Hit(obj, path, f"{obj.label}: {problem}")
