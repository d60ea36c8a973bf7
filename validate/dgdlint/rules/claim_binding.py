"""Claims and the PersistentVolumes written for them, bound as Kubernetes' volume controller binds them
(dgdlint.volume_binding says how).

The API server takes a claim and a volume that can never bind; the controller then leaves the claim Pending
and every pod that mounts it unscheduled. A claim that writes no storage class is given the cluster's
default class when it is created, which the volume's class must then equal: known to preflight, which reads
the cluster; a default class shipped in the set may not be seen yet by the plugin when the claim arrives."""

from __future__ import annotations

from dgdlint.model import KObject, Model, as_map, as_str
from dgdlint.model.claims import MadeClaim
from dgdlint.rules.registry import Hit, rule
from dgdlint.volume_binding import (
    UNSET,
    claim_class,
    claim_path,
    claim_ref,
    default_classes,
    fit_problems,
    named_volume_problems,
    names_claim,
    volume_class,
    volume_path,
)


def _volumes(model: Model) -> dict[str, KObject]:
    return model.memo("persistent-volumes", lambda: {  # of two of one name, the last (applied last)
        obj.name: obj for obj in model.objects if obj.kind == "PersistentVolume" and obj.group == ""})


BIND_COMPLETED = "pv.kubernetes.io/bind-completed"


def _claims(model: Model) -> dict[tuple[str, str], MadeClaim]:
    """The claims the set makes (claim objects, v1alpha1 spec.pvcs entries with create: true, a StatefulSet's
    volumeClaimTemplates), by namespace and name, but those written as already bound (exported from a
    cluster with the controller's bind-completed annotation), which the controller syncs as bound claims, by
    other rules than a new claim's."""
    return model.memo("claims-made", lambda: {  # in file order; of two of one name, the last (applied last)
        (made.claim.namespace, made.claim.name): made for made in model.made_claims()
        if BIND_COMPLETED not in made.claim.annotations})


def _label(model: Model, made: MadeClaim) -> str:
    return made.described(model.label(made.claim))


def _named_volume(claim: KObject, volumes: dict) -> KObject | None:
    name = as_str(as_map(claim.value.get("spec")).get("volumeName"))
    return volumes.get(name) if name else None


@rule(
    name="claim-volume-mismatch", code="DGD407", severity="error", family="cache",
    title="Claims and the volumes written for them can bind",
    rationale="""A model cache is often a PersistentVolume written beside its claim (an NFS export, a CSI
    volume), tied to it by the claim's volumeName or the volume's claimRef. The API server takes both
    whatever they say; Kubernetes' volume controller then binds them only when they agree, and otherwise
    leaves the claim Pending, so the download Job and the workers never start. It does not bind a claim
    to a volume reserved for another claim, nor to one that holds less storage than the claim requests, is of
    another storage class, volume mode or volume attributes class, lacks an access mode the claim asks for,
    or is named by another claim first. A volume reserved for a claim by claimRef is used for it only when
    large enough, of its volume mode and attributes class and with its access modes, and never when the
    claimRef names no namespace (claims live in one) or a uid other than the claim's; the claim then gets
    another volume, a new one, or none. Of two volumes reserved for one claim, one stays unused. When each
    names the other, the controller binds them without these checks. A claim written as already bound
    (the controller's bind-completed annotation, as exported from a cluster) is synced by other rules and
    left alone; a claim that writes no storage class is claim-volume-default-class's. The claims read are
    those the set makes: claim objects, the operator's claim of a v1alpha1 spec.pvcs entry with create:
    true, and a StatefulSet's claims of its volumeClaimTemplates (one per replica, so a template that names
    a volume binds one replica's claim).""",
    remediation="Write the claim and its volume to agree: the same storage class (storageClassName: \"\" on "
                "both for a volume without one), a capacity at least the request, the access modes the claim "
                "asks for, and a claimRef with the claim's name and namespace.",
    reads=("PersistentVolumeClaim", "PersistentVolume", "DynamoGraphDeployment (v1alpha1 spec.pvcs with create: true)",
           "StatefulSet (volumeClaimTemplates)"),
)
def claim_volume_mismatch(model: Model):
    volumes = _volumes(model)
    if not volumes:
        return
    attributes_class = model.release.kubernetes_at_least("1.34")  # VolumeAttributesClass on by default
    named_by: dict[str, MadeClaim] = {}
    said = set()  # (owner, path, problem): a StatefulSet's claims of one template share their fields
    for made in _claims(model).values():
        claim = made.claim
        volume = _named_volume(claim, volumes)
        if volume is None:
            continue
        what = f"{_label(model, made)} can never bind to PersistentVolume {volume.name}, which it names"
        first = named_by.setdefault(volume.name, made)
        if first is not made and claim_ref(volume) is None:
            other = model.label(first.claim)
            yield Hit(made.owner, made.where(("spec", "volumeName")), f"{what}: {other} names it too, and a volume "
                      "binds one claim",
                      related=[first.owner.location(first.where(("spec", "volumeName")), f"{other}'s volumeName")])
            continue
        for field, problem in named_volume_problems(claim, volume, attributes_class, [], ""):
            if field == "claimRef":
                path, related = ("spec", "volumeName"), volume.location(("spec", "claimRef"), "the volume's claimRef")
            elif field == "defaultClass":
                path = ("spec",)
                related = volume.location(volume_path(volume, "storageClassName"), f"{volume.label}'s class")
            else:
                path = claim_path(claim, field)
                related = volume.location(volume_path(volume, field), f"{volume.label}'s {field}")
            if (id(made.owner), made.where(path), problem) not in said:
                said.add((id(made.owner), made.where(path), problem))
                yield Hit(made.owner, made.where(path), f"{what}: {problem}", related=[related])
    yield from _reserved_volumes(model, volumes, named_by, attributes_class)


def _reserved_volumes(model: Model, volumes: dict, named_by: dict, attributes_class: bool):
    claims = _claims(model)
    first_reserved: dict[int, KObject] = {}  # a claim that names no volume (by id) -> the first volume reserved for it
    for volume in volumes.values():
        ref = claim_ref(volume)
        if ref is None or not as_str(ref.get("name")):
            continue
        where = ("spec", "claimRef")
        if not as_str(ref.get("namespace")):
            yield Hit(volume, where, f"{volume.label} is reserved for claim {ref.get('name')!s} but its claimRef "
                      "names no namespace: a claim lives in a namespace, so no claim ever binds to it and no other "
                      "claim can have it")
            continue
        made = claims.get((as_str(ref.get("namespace")), as_str(ref.get("name"))))
        if made is None or as_str(as_map(made.claim.value.get("spec")).get("volumeName")) == volume.name:
            continue  # a claim outside the set, or one that names this volume (read above)
        claim, label = made.claim, _label(model, made)
        what = f"{volume.label} is reserved for {label} by its claimRef but is never bound to it"
        other = _named_volume(claim, volumes) or as_str(as_map(claim.value.get("spec")).get("volumeName"))
        if other:
            name = other.name if isinstance(other, KObject) else other
            yield Hit(volume, where, f"{what}: the claim names PersistentVolume {name}",
                      related=[made.owner.location(made.where(("spec", "volumeName")), f"{label}'s volumeName")])
        elif not names_claim(ref, claim):
            policy = as_str(as_map(volume.value.get("spec")).get("persistentVolumeReclaimPolicy")) or "Retain"
            yield Hit(volume, where + ("uid",), f"{what}: the claimRef's uid {ref.get('uid')!s} is not the claim's "
                      "(a claim gets a new uid when created), so the controller takes its claim for deleted and "
                      f"releases the volume to its reclaim policy, {policy}",
                      related=[made.owner.location(made.where(("metadata",)), label)])
        elif first_reserved.setdefault(id(claim), volume) is not volume:
            first = first_reserved[id(claim)]
            yield Hit(volume, where, f"{volume.label} and {first.label} are both reserved for {label} "
                      "by their claimRefs: the claim binds one of them (the first the controller finds that fits), "
                      "and the other stays reserved for a claim that has its volume",
                      related=[first.location(where, f"{first.label}'s claimRef")])
        else:
            for field, problem in fit_problems(claim, volume, attributes_class, named=False):
                yield Hit(volume, where, f"{what}: {problem}",
                          related=[made.owner.location(made.where(claim_path(claim, field)), f"{label}'s {field}")])


@rule(
    name="claim-volume-default-class", code="DGD408", severity="warning", family="cache",
    title="A claim that names its volume names its storage class too",
    rationale="""A claim that writes no storage class is given the cluster's default class when it is
    created (the DefaultStorageClass admission plugin, on by default), and Kubernetes' volume controller
    binds it to the volume its volumeName names only when the volume is of that class. So a claim without
    a class, tied to a volume without one, binds only on a cluster that has no default class, and stays
    Pending on most clusters, which have one. A default class shipped in the same set does not settle it:
    the plugin reads classes through a cache, so a claim created just after the class may not see it, and
    the newest of several defaults wins.""",
    remediation="Write the volume's class on the claim: storageClassName: \"\" for a volume without a class.",
    reads=("PersistentVolumeClaim", "PersistentVolume", "StorageClass (default-class annotation)",
           "StatefulSet (volumeClaimTemplates)"),
    fixable="""Writes the volume's storage class on the claim (storageClassName: "" for a volume without one).""",
)
def claim_volume_default_class(model: Model):
    defaults = default_classes(model)
    marked = f"; this set marks {' and '.join(defaults)} as the default, which a claim created with it may " \
             "not yet see" if defaults else ""
    for made, volume in claims_left_to_the_default_class(model):
        held = volume_class(volume)
        when = "only if the cluster has no default storage class" if not held else \
            f"only if the cluster's default storage class is {held!r}"
        yield Hit(made.owner, made.where(("spec",)), f"{_label(model, made)} names PersistentVolume {volume.name} and "
                  "no storage class: "
                  f"it is given the cluster's default class when created, and binds {when}"
                  f"{' (the volume has none)' if not held else ''}{marked}",
                  related=[volume.location(volume_path(volume, "storageClassName"), f"{volume.label}'s class")])


def claims_left_to_the_default_class(model: Model):
    """(made claim, volume) for each claim that names a volume of the set, not reserved for it, and writes
    no storage class, so the cluster's default class decides whether the two bind (`dgdlint fix` writes the
    volume's class on the claim); a StatefulSet's claims of one template once, as they share it."""
    volumes = _volumes(model)
    if not volumes:
        return
    seen = set()
    for made in _claims(model).values():
        volume = _named_volume(made.claim, volumes)
        if volume is None or claim_ref(volume) is not None or claim_class(made.claim) is not UNSET:
            continue
        if (id(made.owner), made.path) not in seen:
            seen.add((id(made.owner), made.path))
            yield made, volume
