"""Preflight of dynamic resource allocation (DRA, resource.k8s.io/v1, GA in Kubernetes 1.34): the claim
templates and claims the release's pods name must exist in the namespace, be shipped with the release, or
be made by a ComputeDomain it ships (NVIDIA's DRA driver makes the template a ComputeDomain's channel
names); every device class their requests name must exist in the cluster. A pod whose claim or template is
missing stays Pending, and a claim whose device class is missing is never allocated."""

from __future__ import annotations

from dgdlint.model import as_list, as_map, as_str
from dgdlint.preflight.needs import resource_claim_refs

DRA = ("resource.k8s.io", "v1")
COMPUTE_DOMAIN_CRD = "computedomains.resource.nvidia.com"
PLURAL = {"ResourceClaimTemplate": "resourceclaimtemplates", "ResourceClaim": "resourceclaims"}


def device_class_names(kind: str, obj: dict) -> set[str]:
    """The device classes a ResourceClaim (spec.devices) or ResourceClaimTemplate (spec.spec.devices) asks for,
    in its exact requests and in each of their first-available alternatives (items of a list the server
    sends carry no kind: it is given)."""
    spec = as_map(obj.get("spec"))
    if kind == "ResourceClaimTemplate":
        spec = as_map(spec.get("spec"))
    names = set()
    for request in as_list(as_map(spec.get("devices")).get("requests")):
        request = as_map(request)
        alternatives = [request.get("exactly")] + as_list(request.get("firstAvailable"))
        for alternative in map(as_map, alternatives):
            if as_str(alternative.get("deviceClassName")):
                names.add(as_str(alternative["deviceClassName"]))
    return names


def _shipped(plan) -> dict[tuple[str, str, str], dict]:
    return {(obj.kind, obj.namespace, obj.name): obj.value for obj in plan.model.objects
            if obj.group == DRA[0] and obj.kind in PLURAL}


def _domains(plan) -> dict[tuple[str, str], str]:
    """{(namespace, template name): ComputeDomain name} of the ComputeDomains the release ships."""
    out = {}
    for obj in plan.model.objects:
        if obj.kind == "ComputeDomain" and obj.group == "resource.nvidia.com":
            template = as_str(as_map(as_map(as_map(obj.value.get("spec")).get("channel")).get("resourceClaimTemplate"))
                              .get("name"))
            if template:
                out[(obj.namespace, template)] = obj.name
    return out


def check_dra(report, cluster, plan, namespace: str) -> None:
    """`namespace`: the release's; a pod that writes another one names claims and templates of its own."""
    refs, shipped, domains = resource_claim_refs(plan), _shipped(plan), _domains(plan)
    if not refs and not shipped:
        return
    classes = cluster.served_objects(*DRA, "deviceclasses")
    if classes is None:
        report.add("dra", "error", "resource.k8s.io/v1", "the cluster does not serve dynamic resource allocation "
                   "(resource.k8s.io/v1, Kubernetes 1.34 and later): the resource claims the release names "
                   "cannot be made")
        return
    class_names = {c["metadata"]["name"] for c in classes}
    class_names |= {obj.name for obj in plan.model.objects if obj.kind == "DeviceClass" and obj.group == DRA[0]}
    judged: dict[tuple[str, str, str], dict] = dict(shipped)
    existing: dict[tuple[str, str], dict] = {}  # (kind, namespace) -> {name: object}, read once
    for (kind, where, name), pods in sorted(refs.items()):
        users = ", ".join(sorted(pods))
        subject = plan.model.qualified(where, name)  # namespace/name where the set spans namespaces
        if (kind, where) not in existing:
            existing[(kind, where)] = {o["metadata"]["name"]: o
                                       for o in cluster.served_objects(*DRA, PLURAL[kind], where) or []}
        if (kind, where, name) in shipped:
            report.add("dra", "ok", subject, f"{kind} shipped with the release (named by {users})")
        elif name in existing[(kind, where)]:
            judged[(kind, where, name)] = existing[(kind, where)][name]
            report.add("dra", "ok", subject, f"{kind} exists in {where} (named by {users})")
        elif kind == "ResourceClaimTemplate" and (where, name) in domains:
            _made_by_domain(report, cluster, subject, domains[(where, name)], users)
        else:
            report.add("dra", "error", subject, f"{kind} {subject} does not exist in {where} and the release does "
                       f"not ship it: {users} stay Pending until it exists")
    for (kind, where, name), obj in sorted(judged.items()):
        missing = sorted(device_class_names(kind, obj) - class_names)
        if missing:
            subject = plan.model.qualified(where, name)
            report.add("dra", "error", subject, f"{kind} {subject} asks for device class {', '.join(missing)}, which "
                       f"the cluster does not have (classes: {', '.join(sorted(class_names)) or 'none'}): its claims "
                       "are never allocated; the class comes with the DRA driver of those devices")


def _made_by_domain(report, cluster, template: str, domain: str, users: str) -> None:
    if cluster.crd(COMPUTE_DOMAIN_CRD) is None:
        report.add("dra", "error", template, f"ResourceClaimTemplate made by ComputeDomain {domain}, but the cluster "
                   f"has no {COMPUTE_DOMAIN_CRD} CRD (NVIDIA's DRA driver for GPUs is not installed): {users} "
                   "stay Pending")
    else:
        report.add("dra", "ok", template, f"ResourceClaimTemplate made by ComputeDomain {domain} (the cluster "
                   f"serves ComputeDomains; named by {users})")
