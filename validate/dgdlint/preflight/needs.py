"""What a release needs from the cluster, read from dgdlint's model and plan: secrets (and the keys read
from them), pull secrets, priority classes, GPUs by product, how many pods mount each claim, and the DRA
claims and claim templates pods name."""

from __future__ import annotations


def _pods(plan) -> list[tuple[object, object]]:
    """(part, PodSettings) of every DGD component and workload of the plan."""
    parts = [part for graph in plan.graphs for part in graph.parts] + list(plan.workloads)
    return [(part, (part.component or part.workload).pod) for part in parts
            if (part.component or part.workload) is not None]


def _containers(part) -> list:
    return list((part.component if part.component is not None else part.workload).all_containers)


def needed_secrets(plan) -> dict[str, set[str]]:
    """{secret name: keys read through secretKeyRef}; pull secrets map to an empty key set."""
    from dgdlint.model import as_map, as_str

    needed: dict[str, set[str]] = {}
    for part, pod in _pods(plan):
        for name in pod.image_pull_secrets:
            needed.setdefault(name, set())
        for container in _containers(part):
            for env in container.env:
                reference = as_map(as_map(env.value_from).get("secretKeyRef"))
                name, key = as_str(reference.get("name")), as_str(reference.get("key"))
                if name and key and reference.get("optional") is not True:
                    needed.setdefault(name, set()).add(key)
    return needed


def pull_secret_names(plan) -> set[str]:
    return {name for _part, pod in _pods(plan) for name in pod.image_pull_secrets}


def priority_class_names(plan) -> set[str]:
    from dgdlint.model import as_str

    return {name for _part, pod in _pods(plan) if (name := as_str(pod.spec.get("priorityClassName")))}


def gpu_demand(plan) -> dict[tuple[str, tuple[str, ...]], int]:
    """{(GPU resource, products or () for any): GPUs}, over every pod the plan counts (Jobs included: the
    download Job and the workers waiting for it hold their GPUs at the same time)."""
    demand: dict[tuple[str, tuple[str, ...]], int] = {}
    for graph in plan.graphs:
        for part in graph.parts:
            _add_demand(demand, part)
    for part in plan.workloads:
        _add_demand(demand, part)
    return demand


def _add_demand(demand: dict, part) -> None:
    for resource, count in part.resources.gpus.items():
        key = (resource, tuple(sorted(part.products or ())))
        demand[key] = demand.get(key, 0) + (part.pods or 0) * count


def claim_pods(plan) -> dict[tuple[str, str], int]:
    """{(namespace, claim name): pods that mount it} (a claim is the mounting pod's namespace's)."""
    pods: dict[tuple[str, str], int] = {}
    parts = [part for graph in plan.graphs for part in graph.parts] + list(plan.workloads)
    for part in parts:
        for claim in part.claims:
            key = (claim.namespace, claim.name)
            pods[key] = pods.get(key, 0) + (part.pods or 0)
    return pods


def resource_claim_refs(plan) -> dict[tuple[str, str, str], set[str]]:
    """{(ResourceClaimTemplate or ResourceClaim, namespace, name): labels of the pods that name it}
    (spec.resourceClaims; a claim or template is looked up in the pod's namespace)."""
    from dgdlint.model import as_list, as_map, as_str

    refs: dict[tuple[str, str, str], set[str]] = {}
    for part, pod in _pods(plan):
        label = (part.component or part.workload).label
        for entry in as_list(pod.spec.get("resourceClaims")):
            entry = as_map(entry)
            for key, kind in (("resourceClaimTemplateName", "ResourceClaimTemplate"),
                              ("resourceClaimName", "ResourceClaim")):
                if as_str(entry.get(key)):
                    refs.setdefault((kind, pod.obj.namespace, as_str(entry[key])), set()).add(label)
    return refs
