"""A pod whose claim binds to a PersistentVolume with required node affinity goes only to a node that meets the
volume's terms as well as its own node selector and affinity: the scheduler's VolumeBinding filter refuses
every other node ("node(s) had volume node affinity conflict"). The API server takes the pod, the claim and
the volume whatever they say, and the pod stays Pending for ever. Decided exactly in volume_affinity.py.

The claims read are those a pod mounts (its persistentVolumeClaim volumes; a v1alpha1 service's volumeMounts
of spec.pvcs claims, which the operator makes volumes of; a StatefulSet pod's claim of each of its
volumeClaimTemplates, `<template>-<statefulset>-<ordinal>`) that the set makes, paired with the volume of the
set they bind to as the volume controller binds them (claim_binding.py): the volume the claim names, unless it
is reserved for another claim; else the one volume reserved for the claim by its claimRef, when the two fit."""

from __future__ import annotations

from dataclasses import dataclass

from dgdlint.model import Component, KObject, Model, PodSettings, as_map, as_str
from dgdlint.model.claims import MadeClaim
from dgdlint.rules.node_affinity import TERMS_SHOWN
from dgdlint.rules.persistent_volume import persistent_volume_problems
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.scheduling import node_selection_problems
from dgdlint.rules.volume_affinity import REQUIRED, VolumeTerms, joint_verdict, volume_terms
from dgdlint.volume_binding import fit_problems


@dataclass
class Bound:
    """A claim a pod mounts, and the volume of the set it binds to."""

    claim: str
    path: tuple  # where the pod (its owner) names the claim
    made: MadeClaim
    volume: KObject


def _volumes(model: Model) -> dict[str, KObject]:
    return model.memo("volumes-by-name", lambda: {  # of two of one name, the last (applied last)
        obj.name: obj for obj in model.objects if obj.kind == "PersistentVolume" and obj.group == ""})


def _reserved(model: Model) -> dict[tuple, list[KObject]]:
    """The volumes reserved by a claimRef, by the namespace and name it gives."""
    def index():
        found: dict[tuple, list[KObject]] = {}
        for volume in _volumes(model).values():
            ref = as_map(volume.value.get("spec")).get("claimRef")
            if isinstance(ref, dict):
                found.setdefault((as_str(ref.get("namespace")), as_str(ref.get("name"))), []).append(volume)
        return found
    return model.memo("volumes-by-claim-ref", index)


def _reserves(volume: KObject, claim: KObject) -> bool:
    """The volume's claimRef names the claim (its name and namespace, and its uid when it gives one)."""
    ref = as_map(volume.value.get("spec")).get("claimRef")
    if not isinstance(ref, dict):
        return False
    uid = as_str(ref.get("uid"))
    return (as_str(ref.get("name")), as_str(ref.get("namespace"))) == (claim.name, claim.namespace) and \
        (not uid or uid == as_str(claim.metadata.get("uid")))


def bound_volume(model: Model, made: MadeClaim) -> KObject | None:
    """The volume of the set the claim binds to, None when none does for sure."""
    volumes, claim = _volumes(model), made.claim
    named = as_str(as_map(claim.value.get("spec")).get("volumeName"))
    if named:
        volume = volumes.get(named)
        reserved = volume is not None and isinstance(as_map(volume.value.get("spec")).get("claimRef"), dict)
        return None if volume is None or (reserved and not _reserves(volume, claim)) else volume
    reserving = [v for v in _reserved(model).get((claim.namespace, claim.name), []) if _reserves(v, claim)]
    attributes_class = model.release.kubernetes_at_least("1.34")
    if len(reserving) == 1 and not list(fit_problems(claim, reserving[0], attributes_class, named=False)):
        return reserving[0]
    return None


def _made(model: Model) -> dict[tuple[str, str], MadeClaim]:
    return model.memo("claims-made-any", lambda: {(made.claim.namespace, made.claim.name): made
                                                  for made in model.made_claims()})


def claims_named(pod: PodSettings, component) -> list[tuple[str, tuple]]:
    """(claim name, path) of each claim the pod's volumes name, and of those the operator adds a volume for: a
    v1alpha1 service's mounts of spec.pvcs claims, a v1beta1 component's compilationCache.pvcName."""
    found = []
    volumes = pod.volumes()
    for volume, path in volumes.values():
        name = as_str(as_map(volume.get("persistentVolumeClaim")).get("claimName"))
        if name:
            found.append((name, path + ("persistentVolumeClaim", "claimName")))
    if component is not None:
        for mount, path in component.own_volume_mounts():
            name = as_str(mount.get("name"))
            if name and name not in volumes:  # the operator adds a claim volume of the mount's name
                found.append((name, path + ("name",)))
        path = component.path + ("compilationCache", "pvcName")
        name = as_str(component.obj.get(path)) if component.graph.shape == "components" else None
        if name and name not in volumes:  # and one of a v1beta1 component's compilation cache claim
            found.append((name, path))
    return found


def _template_claims(model: Model) -> dict[int, list[MadeClaim]]:
    """A StatefulSet's claims of its volumeClaimTemplates, by the StatefulSet (its id)."""
    def index():
        found: dict[int, list[MadeClaim]] = {}
        for made in model.made_claims():
            if made.origin == "volumeClaimTemplates":
                found.setdefault(id(made.owner), []).append(made)
        return found
    return model.memo("template-claims", index)


def _pods(model: Model):
    """(owner, pod settings, label, [(claim name, path)]) for each pod the set makes (Model.pod_owners); a
    StatefulSet's once per ordinal with a claim of each of its volumeClaimTemplates."""
    for owner in model.pod_owners():
        component = owner if isinstance(owner, Component) else None
        named = claims_named(owner.pod, component)
        templates = _template_claims(model).get(id(owner.obj), []) if component is None else []
        if not templates:
            yield owner.obj, owner.pod, owner.label, named
            continue
        by_ordinal: dict[str, list] = {}
        for made in templates:
            ordinal = made.claim.name.rsplit("-", 1)[-1]
            by_ordinal.setdefault(ordinal, []).append((made.claim.name, made.path))
        for ordinal, claims in by_ordinal.items():
            yield owner.obj, owner.pod, f"{owner.label} pod {owner.obj.name}-{ordinal}", named + claims


def _affinity_volumes(model: Model) -> dict[str, VolumeTerms]:
    """The volumes of the set the API server keeps, with required node affinity, as volume_terms reads them."""
    def read():
        found = {}
        for name, volume in _volumes(model).items():
            if not list(persistent_volume_problems(volume)):
                terms = volume_terms(volume)
                if terms is not None:
                    found[name] = terms
        return found
    return model.memo("volume-terms", read)


@rule(
    name="volume-node-affinity-conflict", code="DGD806", severity="error", family="gpu",
    title="Some node can meet a pod's placement and the node affinity of the volumes its claims bind to",
    rationale="""A PersistentVolume written for a claim (a local disk, a zonal disk, an NFS export reached from
    some nodes) often says which nodes can use it, in `spec.nodeAffinity.required`. The scheduler then
    places a pod that mounts the claim only on a node that meets one of the volume's terms as well as the
    pod's own node selector and one term of its required node affinity; on every other node the pod has a
    "volume node affinity conflict". When no node can meet them together (the volume's zone or GPU product
    not the pod's, two volumes of two zones), the API server takes the pod and it stays Pending for ever.
    The scheduler matches a volume's terms against a node's labels alone: a term's matchFields (on
    metadata.name) are never checked there, so they keep no pod off a node. A volume none of whose terms any
    node meets (a zone required to be two zones at once) is reported on the volume, as no pod can ever use
    it. A pod no node can take alone is node-affinity-unsatisfiable's; a pod given its node (nodeName) is
    not scheduled at all. The claims read are those the set makes, bound to the set's volumes as the volume
    controller binds them (the volume a claim names, or the one reserved for it that fits); a pod of a
    StatefulSet is judged with its own claim of each volumeClaimTemplate, a v1beta1 component with its
    compilationCache claim. A volume of an in-tree source the scheduler may translate to its CSI driver
    first (gcePersistentDisk, awsElasticBlockStore, azureDisk and the like), whose node affinity keys then
    change, is not judged.""",
    remediation="Write the volume's node affinity and the pod's placement to agree (the volume's zone among "
                "the GPU nodes' zones, one node label spelt one way), or give the pod a volume its nodes can "
                "reach; select a volume's node by a label such as kubernetes.io/hostname: the scheduler "
                "does not check a volume's matchFields.",
    reads=("pod specs of Job, CronJob, Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet (nodeSelector, affinity, "
           "persistentVolumeClaim volumes, volumeClaimTemplates)",
           "DynamoGraphDeployment component pod settings, v1alpha1 volumeMounts of spec.pvcs claims, v1beta1 "
           "compilationCache.pvcName",
           "PersistentVolumeClaim", "PersistentVolume (nodeAffinity, claimRef)"),
)
def volume_node_affinity_conflict(model: Model):
    read = _affinity_volumes(model)
    if not read:
        return
    for terms in read.values():
        if not terms.terms:
            said = "; ".join(terms.refused[:TERMS_SHOWN])
            if len(terms.refused) > TERMS_SHOWN:
                said += f"; and {len(terms.refused) - TERMS_SHOWN} more terms, none of which a node meets either"
            yield Hit(terms.volume, REQUIRED, f"{terms.volume.label}: no node meets its required node affinity "
                      f"({said}), so no pod that mounts its claim is ever scheduled")
    made, said = _made(model), set()
    for obj, pod, label, claims in _pods(model):
        pairs = []
        for claim_name, path in claims:
            found = made.get((obj.namespace, claim_name))
            volume = bound_volume(model, found) if found is not None else None
            if volume is not None and volume.name in read and read[volume.name].volume is volume:
                pairs.append(Bound(claim_name, path, found, volume))
        pairs = [p for p in pairs if read[p.volume.name].terms]  # an unusable volume is reported above
        if not pairs or pod.node_name or next(node_selection_problems(pod), None) is not None:
            continue  # no scheduler runs for a pod given its node; the API server refuses the other
        for hit, volumes in _judge(model, obj, pod, label, pairs, read):
            if (id(obj), hit.path, volumes) not in said:  # a StatefulSet's replicas whose claims name one volume
                said.add((id(obj), hit.path, volumes))
                yield hit


def _judge(model: Model, obj: KObject, pod: PodSettings, label: str, pairs: list[Bound], read: dict):
    """(hit, volume names) for each volume the pod fits no node with; else for the volumes together, if they
    clash."""
    unique = list({id(p.volume): p for p in pairs}.values())
    alone = []
    for pair in unique:
        joint = joint_verdict(pod, [read[pair.volume.name]])
        if joint is None:
            return  # the pod fits no node alone (node-affinity-unsatisfiable's), or too much to try
        if joint.witness is None:
            alone.append(pair)
            yield _hit(model, obj, label, [pair], joint), (pair.volume.name,)
    rest = [pair for pair in unique if pair not in alone]
    if alone or len(rest) < 2:
        return
    joint = joint_verdict(pod, [read[pair.volume.name] for pair in rest])
    if joint is not None and joint.witness is None:
        yield _hit(model, obj, label, rest, joint), tuple(pair.volume.name for pair in rest)


def _hit(model: Model, obj: KObject, label: str, pairs: list[Bound], joint) -> Hit:
    first = pairs[0]
    named = " and ".join(f"PersistentVolume {p.volume.name} (claim {model.qualified(p.made.claim.namespace, p.claim)} "
                         "binds to it)" for p in pairs)
    said = "; ".join(joint.why)
    if joint.tried > len(joint.why):
        said += f"; and {joint.tried - len(joint.why)} more combinations of terms, none of which a node can meet " \
                "either"
    together = " together" if len(pairs) > 1 else ""
    related = [p.volume.location(REQUIRED, f"{p.volume.label}'s required node affinity") for p in pairs]
    return Hit(obj, first.path, f"{label}: no node can take it with {named}{together} (the scheduler's volume node "
               f"affinity conflict): {said}", related=related)

