"""Preflight of a claim the release creates to bind a pre-made volume, judged against the cluster's own
volumes as Kubernetes' volume controller binds them (the functions of rules/claim_binding.py):
- a claim that names its volume (spec.volumeName): the volume must exist, not be reserved for another
  claim, and fit the claim; a claim that names no class is given the cluster's default class on create
  (the newest of several, as the DefaultStorageClass plugin picks), or none when the cluster has none;
- a claim that writes storageClassName "" (no dynamic provisioning) and names no volume: some available
  volume without a class must fit it, or it stays Pending.
A volume the release itself ships is left to the rules, which see both. The claims read are those the
release makes (model/claims.py): claim objects, the operator's claims of v1alpha1 spec.pvcs entries, and
each claim a StatefulSet makes of its volumeClaimTemplates that the cluster does not have yet."""

from __future__ import annotations

from dgdlint.model import KObject, as_map, as_str
from dgdlint.volume_binding import (
    UNSET,
    claim_class,
    fit_problems,
    marked_default,
    named_volume_problems,
    volume_class,
)


def cluster_default_class(classes: dict[str, dict]) -> str | None:
    """The class the DefaultStorageClass plugin writes into a claim without one: of the classes marked
    default, the newest (by creation time; by name among equals), or None when none is marked."""
    marked = [c for c in classes.values() if marked_default(c["metadata"].get("annotations") or {})]
    if not marked:
        return None
    marked.sort(key=lambda c: c["metadata"]["name"])
    marked.sort(key=lambda c: str(c["metadata"].get("creationTimestamp") or ""), reverse=True)
    return marked[0]["metadata"]["name"]


def claim_object(plan, name: str, namespace: str) -> KObject | None:
    """The claim `namespace/name` as the release makes it (a claim object, or the operator's claim of a
    v1alpha1 spec.pvcs entry), the last of its name."""
    found = None
    for made in plan.model.made_claims():
        if made.origin != "volumeClaimTemplates" and (made.claim.name, made.claim.namespace) == (name, namespace):
            found = made.claim
    return found


def template_claims(plan) -> list[KObject]:
    """The claims the release's StatefulSets make of their volumeClaimTemplates (one per replica)."""
    return [made.claim for made in plan.model.made_claims() if made.origin == "volumeClaimTemplates"]


def check_volume_binding(report, cluster, plan, claim: KObject, classes: dict[str, dict]) -> bool:
    """Report on `claim` when it binds a pre-made volume (True), else leave it to the class checks (False)."""
    spec = as_map(claim.value.get("spec"))
    name = as_str(spec.get("volumeName"))
    attributes_class = plan.model.release.kubernetes_at_least("1.34")
    if name:
        _named(report, cluster, plan, claim, name, classes, attributes_class)
        return True
    if claim_class(claim) == "":
        _unnamed_without_class(report, cluster, plan, claim, attributes_class)
        return True
    return False


def _named(report, cluster, plan, claim: KObject, name: str, classes: dict, attributes_class: bool) -> None:
    subject = plan.model.qualified(claim.namespace, claim.name)
    if any(obj.kind == "PersistentVolume" and obj.group == "" and obj.name == name for obj in plan.model.objects):
        report.add("storage", "ok", subject, f"names PersistentVolume {name}, which the release ships "
                   "(dgdlint check judges the two)")
        return
    found = cluster.volume(name)
    if found is None:
        report.add("storage", "error", subject, f"names PersistentVolume {name}, which the cluster does not "
                   "have: the claim stays Pending until it exists")
        return
    volume = KObject.read_from(f"the cluster's PersistentVolume {name}", found)
    default = cluster_default_class(classes)
    problems = [problem for _field, problem in
                named_volume_problems(claim, volume, attributes_class, [default] if default else [], "of the cluster")]
    held = volume_class(volume)
    if claim_class(claim) is UNSET and default is None and held and found["spec"].get("claimRef") is None:
        problems.append(f"the claim names no storage class and the cluster has no default one, so it asks for "
                        f"none, and the volume has {held!r}")
    if problems:
        report.add("storage", "error", subject, f"can never bind to PersistentVolume {name}, which it names: "
                   + "; ".join(problems))
        return
    capacity = as_map(found["spec"].get("capacity")).get("storage")
    report.add("storage", "ok", subject, f"binds to PersistentVolume {name} ({capacity}, class "
               f"{held or 'none'}, {(found.get('status') or {}).get('phase', 'unknown')})")


def _unnamed_without_class(report, cluster, plan, claim: KObject, attributes_class: bool) -> None:
    """storageClassName "": the controller binds the smallest available volume without a class that fits
    (capacity, volume mode, attributes class, access modes), or leaves the claim Pending."""
    subject = plan.model.qualified(claim.namespace, claim.name)
    volumes = cluster.volumes()
    fitting = []
    for found in volumes:
        volume = KObject.read_from("the cluster", found)
        ref = found["spec"].get("claimRef")
        free = (found.get("status") or {}).get("phase") == "Available" and ref is None
        if free and not list(fit_problems(claim, volume, attributes_class, named=True)):
            fitting.append(found["metadata"]["name"])
    if fitting:
        report.add("storage", "ok", subject, "writes storageClassName \"\" and binds one of the available "
                   f"volumes without a class that fit it: {', '.join(sorted(fitting))}")
    else:
        report.add("storage", "error", subject, "writes storageClassName \"\" (no dynamic provisioning) and "
                   f"none of the cluster's {len(volumes)} volumes is available, without a class and fits it: the "
                   "claim stays Pending until one is made")
