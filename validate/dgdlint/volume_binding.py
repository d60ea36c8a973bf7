"""Whether a claim and a PersistentVolume written for it can bind, as Kubernetes' volume controller
(kube-controller-manager's persistent volume controller, 1.37) decides it, read from its binding code.

A claim that names its volume (`spec.volumeName`) binds to it at once when the volume's claimRef names the
claim; to a volume without a claimRef only when the volume is large enough, of the claim's storage class,
volume mode and volume attributes class, and offers every access mode the claim asks for; never to a volume
reserved for another claim. A volume reserved for a claim (`claimRef`) that does not name it is matched to
that claim only when large enough, of its volume mode and attributes class and with its access modes, and
never when the claimRef has no namespace. A claim that writes no storage class is given the cluster's
default class when it is created (the DefaultStorageClass admission plugin). Read by the claim-binding
rules, by preflight (which knows the cluster's classes) and by `fix`."""

from __future__ import annotations

from decimal import ROUND_CEILING

from dgdlint.model import KObject, Model, as_list, as_map, as_str
from dgdlint.quantity import go_quantity

BETA_CLASS = "volume.beta.kubernetes.io/storage-class"  # read before spec.storageClassName, on both kinds
DEFAULT_CLASS = ("storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class")
UNSET = None  # a claim that names no storage class: the cluster's default is written into it on create


def claim_class(claim: KObject) -> str | None:
    """The class a claim asks for as written: its beta annotation, else spec.storageClassName (None: neither,
    so the DefaultStorageClass plugin sets the cluster's default when one is marked)."""
    if BETA_CLASS in claim.annotations:
        return as_str(claim.annotations[BETA_CLASS]) or ""
    spec = as_map(claim.value.get("spec"))
    if "storageClassName" in spec and spec["storageClassName"] is not None:
        return as_str(spec["storageClassName"]) or ""
    return UNSET


def volume_class(volume: KObject) -> str:
    if BETA_CLASS in volume.annotations:
        return as_str(volume.annotations[BETA_CLASS]) or ""
    return as_str(as_map(volume.value.get("spec")).get("storageClassName")) or ""


def marked_default(annotations: dict) -> bool:
    """A StorageClass marked as the default, by either annotation (written "true" exactly)."""
    return any(annotations.get(key) == "true" for key in DEFAULT_CLASS)


def default_classes(model: Model) -> list[str]:
    """The StorageClasses of the set marked as the default (the plugin takes the newest of several)."""
    return sorted(obj.name for obj in model.objects
                  if obj.kind == "StorageClass" and obj.group == "storage.k8s.io" and marked_default(obj.annotations))


def _mode(spec: dict) -> str:
    return as_str(spec.get("volumeMode")) or "Filesystem"  # the controller reads an unset mode as Filesystem


def _attributes_class(spec: dict) -> str:
    return as_str(spec.get("volumeAttributesClassName")) or ""


def claim_ref(volume: KObject) -> dict | None:
    """The claim a volume is reserved for (its spec.claimRef), if any."""
    ref = as_map(volume.value.get("spec")).get("claimRef")
    return ref if isinstance(ref, dict) else None


def names_claim(ref: dict, claim: KObject) -> bool:
    """Whether a claimRef names the claim: its name and namespace, and its uid when it gives one."""
    uid = as_str(ref.get("uid"))
    return (as_str(ref.get("name")) or "") == claim.name and (as_str(ref.get("namespace")) or "") == claim.namespace \
        and (not uid or uid == as_str(claim.metadata.get("uid")))


def _size_problem(claim_spec: dict, volume_spec: dict, whole_bytes: bool) -> str | None:
    """The volume holds less than the claim requests. Naming a volume, the controller compares whole bytes
    (a quantity's value rounded up); matching a reserved one, the exact quantities."""
    requested_text = as_map(as_map(claim_spec.get("resources")).get("requests")).get("storage")
    held_text = as_map(volume_spec.get("capacity")).get("storage")
    requested, held = go_quantity(requested_text), go_quantity(held_text)
    if requested is None or held is None or not requested.is_finite() or not held.is_finite():
        return None  # claim-spec-invalid and the volume's own checks say what is wrong with them
    if whole_bytes:
        requested, held = (value.to_integral_value(rounding=ROUND_CEILING) for value in (requested, held))
    if held < requested:
        return f"the claim requests {requested_text!s} of storage and the volume holds {held_text!s}"
    return None


def fit_problems(claim: KObject, volume: KObject, attributes_class: bool, named: bool):
    """(field, problem) for what keeps the controller from binding the two, the field's name being the same in
    a claim's and a volume's spec; `named`: the claim names the volume (every check of the controller), else
    the volume is reserved for the claim (no class check; its size compared exactly). Access modes are
    checked on both paths: a claim that names no volume is matched only among volumes indexed under a set
    of access modes holding all of its own. Without the VolumeAttributesClass gate (before 1.34) the server
    drops the field on create, so it is not compared."""
    claim_spec, volume_spec = as_map(claim.value.get("spec")), as_map(volume.value.get("spec"))
    size = _size_problem(claim_spec, volume_spec, whole_bytes=named)
    if size:
        yield "storage", size
    if named:
        wanted, held = claim_class(claim), volume_class(volume)
        if wanted is not UNSET and wanted != held:  # UNSET: the cluster's default decides (see the rules)
            yield "storageClassName", f"the claim asks for storage class {_named(wanted)} and the volume has " \
                                      f"{_named(held)}"
    wanted_attributes, held_attributes = _attributes_class(claim_spec), _attributes_class(volume_spec)
    if attributes_class and wanted_attributes != held_attributes:
        yield "volumeAttributesClassName", f"the claim asks for volume attributes class {_named(wanted_attributes)} " \
                                           f"and the volume has {_named(held_attributes)}"
    if _mode(claim_spec) != _mode(volume_spec):
        yield "volumeMode", f"the claim asks for volume mode {_mode(claim_spec)} and the volume is {_mode(volume_spec)}"
    offered = {as_str(mode) for mode in as_list(volume_spec.get("accessModes"))}
    asked = (as_str(mode) for mode in as_list(claim_spec.get("accessModes")))
    missing = [mode for mode in asked if mode and mode not in offered]
    if missing:
        yield "accessModes", f"the claim asks for access mode {', '.join(missing)}, which the volume does not offer"


_CLAIM_FIELD = {"storage": ("spec", "resources", "requests", "storage")}
_VOLUME_FIELD = {"storage": ("spec", "capacity", "storage")}


def _field_path(obj: KObject, field: str, paths: dict) -> tuple:
    """Where a field of fit_problems is written in a claim (`paths` _CLAIM_FIELD) or a volume (_VOLUME_FIELD):
    a class in the beta annotation when that is there, which is read first."""
    if field == "storageClassName" and BETA_CLASS in obj.annotations:
        return ("metadata", "annotations", BETA_CLASS)
    return paths.get(field, ("spec", field))


def claim_path(claim: KObject, field: str) -> tuple:
    """Where a field fit_problems names is written in a claim."""
    return _field_path(claim, field, _CLAIM_FIELD)


def volume_path(volume: KObject, field: str) -> tuple:
    """Where a field fit_problems names is written in a volume."""
    return _field_path(volume, field, _VOLUME_FIELD)


def named_volume_problems(claim: KObject, volume: KObject, attributes_class: bool, defaults: list[str],
                          marked: str):
    """(field, problem) for what keeps `claim`, which names `volume` in its volumeName, from binding to it;
    nothing when the controller binds them. `defaults`: the default storage classes (`marked` says where:
    in the set, in the cluster), one of which is written into a claim that names no class."""
    ref = claim_ref(volume)
    if ref is not None:  # reserved: for this claim it binds as written, with no other check
        if not names_claim(ref, claim):
            uid = f" (uid {ref.get('uid')!s})" if ref.get("uid") else ""
            yield "claimRef", f"the volume is reserved for claim {_ref_text(ref)}{uid} by its claimRef"
        return
    yield from fit_problems(claim, volume, attributes_class, named=True)
    held = volume_class(volume)
    if claim_class(claim) is UNSET and defaults and held not in defaults:
        shown = defaults[0] if len(defaults) == 1 else " or ".join(defaults)
        yield "defaultClass", f"the claim names no storage class, so the default class {shown} {marked} is " \
                              f"written into it when it is created, and the volume has {_named(held)}"


def _named(name: str) -> str:
    return repr(name) if name else "none"


def _ref_text(ref: dict) -> str:
    return f"{as_str(ref.get('namespace')) or '(no namespace)'}/{as_str(ref.get('name')) or '(no name)'}"
