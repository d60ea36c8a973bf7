"""Whether each pod that asks for GPUs can be placed on a node that has them, as the scheduler's filters read the
node: the pod must tolerate every NoSchedule and NoExecute taint of the node (TaintToleration) and the node's
labels and name must meet the pod's node selector and one term of its required node affinity (NodeAffinity,
read as rules/node_affinity.py reads it), and the node's labels must meet the required node affinity of each
PersistentVolume of the cluster the pod's claims are bound to or name (VolumeBinding, read as
rules/volume_affinity.py reads it). Replacing `worker.tolerations` without the GPU taint's toleration,
or a node selector no GPU node carries, leaves the workers and the download Job Pending while the GPU count
looks fine. The taints Kubernetes sets and lifts with a node's state (`node.kubernetes.io/not-ready` and the
other `node.kubernetes.io/` ones, the cloud provider's `uninitialized`) are left out: they say how the node is
now, not what the pods must tolerate."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from dgdlint.model import KObject, PodSettings, as_map, as_str
from dgdlint.preflight.checks import GPU_PRODUCT_LABEL
from dgdlint.preflight.report import Report
from dgdlint.preflight.volumes import claim_object
from dgdlint.rules.node_affinity import node_filter
from dgdlint.rules.volume_affinity import volume_refusal
from dgdlint.rules.volume_placement import claims_named

BLOCKING = ("NoSchedule", "NoExecute")
STATE_TAINTS = ("node.kubernetes.io/", "node.cloudprovider.kubernetes.io/")


def tolerates(toleration: dict, taint: dict) -> bool:
    """A toleration matches a taint as Kubernetes' Toleration.ToleratesTaint decides."""
    if toleration.get("effect") and toleration["effect"] != taint.get("effect"):
        return False
    if toleration.get("key") and toleration["key"] != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    return operator == "Equal" and (toleration.get("value") or "") == (taint.get("value") or "")


def _taint_text(taint: dict) -> str:
    value = f"={taint['value']}" if taint.get("value") else ""
    return f"{taint.get('key')}{value}:{taint.get('effect')}"


def refusals(node: dict, pod: PodSettings, affinity: Callable[[dict, str], list[str]] | None = None,
             volumes: tuple[Callable[[dict], list[str]], ...] = ()) -> list[str]:
    """Why the node does not admit the pod (empty: it does). `affinity`: the pod's node_filter, when the caller
    asks of many nodes and reads the pod's affinity once; `volumes`: for each volume the pod's claims are bound
    to, why a node with these labels cannot use it (volume_refusal)."""
    affinity = affinity or node_filter(pod)
    tolerations = pod.tolerations
    taints = [t for t in (node.get("spec") or {}).get("taints") or []
              if t.get("effect") in BLOCKING and not str(t.get("key", "")).startswith(STATE_TAINTS)]
    why = [f"taint {_taint_text(t)} not tolerated" for t in taints
           if not any(tolerates(x, t) for x in tolerations if isinstance(x, dict))]
    labels = node["metadata"].get("labels") or {}
    why += affinity(labels, node["metadata"].get("name") or "")
    return why + [reason for volume in volumes for reason in volume(labels)]


def claim_volumes(cluster, plan, owner, component, found: dict) -> list[KObject]:
    """The cluster's PersistentVolumes with node affinity that the pod's claims are bound to (a claim of the
    cluster's volumeName) or will bind (a claim the release makes that names one); a volume the release
    ships is left to the rules, which see both. `found` keeps what was read, by claim and by volume."""
    volumes = []
    shipped = {obj.name for obj in plan.model.objects if obj.kind == "PersistentVolume" and obj.group == ""}
    namespace = owner.obj.namespace
    for claim, _path in claims_named(owner.pod, component):
        if ("claim", namespace, claim) not in found:
            existing = cluster.claim(namespace, claim)
            written = claim_object(plan, claim, namespace) if existing is None else None
            spec = (existing or {}).get("spec") or as_map(written.value.get("spec") if written else None)
            found[("claim", namespace, claim)] = as_str(spec.get("volumeName"))
        name = found[("claim", namespace, claim)]
        if not name or name in shipped:
            continue
        if ("volume", name) not in found:
            volume = cluster.volume(name)
            found[("volume", name)] = None if volume is None or not (volume.get("spec") or {}).get("nodeAffinity") \
                else KObject.read_from(f"the cluster's PersistentVolume {name}", volume)
        if found[("volume", name)] is not None:
            volumes.append(found[("volume", name)])
    return volumes


def _gpu_parts(plan):
    parts = [part for graph in plan.graphs for part in graph.parts] + list(plan.workloads)
    for part in parts:
        owner = part.component or part.workload
        if owner is not None and part.resources.gpus:
            yield owner.label, owner.pod, part


def check_gpu_placement(report: Report, cluster, plan) -> None:
    nodes, found = None, {}
    for label, pod, part in _gpu_parts(plan):
        nodes = cluster.nodes() if nodes is None else nodes
        affinity = node_filter(pod)
        volumes = claim_volumes(cluster, plan, part.component or part.workload, part.component, found)
        filters = tuple(partial(volume_refusal, volume) for volume in volumes)
        for resource in sorted(part.resources.gpus):
            having = [node for node in nodes
                      if str((node.get("status") or {}).get("allocatable", {}).get(resource, "0")) not in ("0", "")
                      and (not part.products or (node["metadata"].get("labels") or {}).get(GPU_PRODUCT_LABEL)
                           in part.products)]
            if not having:
                continue  # the GPU check already says no node has them
            why = {node["metadata"]["name"]: refusals(node, pod, affinity, filters) for node in having}
            admitting = [name for name, reasons in why.items() if not reasons]
            met = ", and the node affinity of " + " and ".join(v.label for v in volumes) if volumes else ""
            if admitting:
                report.add("placement", "ok", label, f"{len(admitting)} of {len(having)} nodes with {resource} "
                           f"admit it (taints tolerated, node selector and required node affinity met{met})")
            else:
                name, reasons = sorted(why.items())[0]
                report.add("placement", "error", label, f"asks for {resource}, but none of the {len(having)} nodes "
                           f"that have it admits it ({name}: {'; '.join(reasons)}): it stays Pending; tolerate "
                           "the GPU nodes' taints (worker.tolerations replaces the chart's default list) and "
                           "select labels they carry, in the node selector and the required node affinity"
                           + (", and use volumes those nodes can reach" if volumes else ""))
