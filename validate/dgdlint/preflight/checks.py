"""The preflight checks, each reading the cluster through `Cluster` and the release through the plan."""

from __future__ import annotations

from collections.abc import Iterable

from dgdlint.model import as_list, as_map, as_str
from dgdlint.preflight.needs import claim_pods, gpu_demand, needed_secrets, priority_class_names, pull_secret_names
from dgdlint.preflight.report import Report
from dgdlint.preflight.volumes import check_volume_binding, claim_object, cluster_default_class, template_claims
from dgdlint.quantity import parse_quantity, quantity_bytes
from dgdlint.volume_binding import claim_class

DGD_CRD = "dynamographdeployments.nvidia.com"
GPU_PRODUCT_LABEL = "nvidia.com/gpu.product"
SHARED_ACCESS = {"ReadWriteMany", "ReadOnlyMany"}
PULL_SECRET_TYPE = "kubernetes.io/dockerconfigjson"


def _join(items: Iterable[str]) -> str:
    return ", ".join(sorted(items)) or "none"


def _without_empty_required(node: object) -> object:
    """The API server drops an empty `required: []` when it stores a CRD; so does the comparison."""
    if isinstance(node, dict):
        return {key: _without_empty_required(value) for key, value in node.items() if not (key == "required"
                                                                                          and value == [])}
    if isinstance(node, list):
        return [_without_empty_required(item) for item in node]
    return node


def _served_schemas(crd: dict, source: str) -> dict[str, dict]:
    from dgdlint.schema import crd_versions

    return {v.version: _without_empty_required(v.schema) for v in crd_versions(crd, source) if v.served}


def bundled_candidates() -> dict[str, dict[str, dict]]:
    """{label: {version: schema}} of the DGD in every bundled operator release, as `dgdlint schemas write`
    converted it: the same conversion `_served_schemas` applies to the cluster's CRD, so equal means the same
    CRD. Empty when no schemas are bundled."""
    import json

    from dgdlint.schema.bundled import bundled_root, read_index

    root = bundled_root()
    if root is None:
        return {}
    out = {}
    for release in read_index(root):
        entry = release.kinds.get("DynamoGraphDeployment")
        if entry:
            out[f"{release.label()} (bundled)"] = {
                version: _without_empty_required(json.loads((root / relative).read_text(encoding="utf-8")))
                for version, relative in entry.get("files", {}).items()}
    return out


def check_api(report: Report, cluster, plan, candidates: dict[str, list[dict]],
              bundled: dict[str, dict[str, dict]] | None = None) -> None:
    """The DGD versions the cluster serves, the release's DGDs among them, and the release CRDs they match:
    the CRDs given (candidates), else the bundled releases."""
    crd = cluster.crd(DGD_CRD)
    if crd is None:
        report.add("api", "error", "DynamoGraphDeployment", "the cluster has no DGD CRD: install the Dynamo "
                   "operator (its platform chart) before this release")
        return
    versions = [v for v in crd["spec"]["versions"] if v.get("served")]
    described = [v["name"] + " (" + ", ".join(w for w in ("storage" if v.get("storage") else "",
                                                          "deprecated" if v.get("deprecated") else "") if w) + ")"
                 if v.get("storage") or v.get("deprecated") else v["name"] for v in versions]
    served = _served_schemas(crd, "cluster")
    matched = [label for label, crds in candidates.items()
               if any(_served_schemas(c, label) == served for c in crds)]
    compared = list(candidates)
    if not candidates and bundled:
        matched = [label for label, schemas in bundled.items() if schemas == served]
        compared = list(bundled)
    detail = f"served: {', '.join(described)}"
    if matched:
        detail += f"; the same CRD as {_join(matched)}"
    elif compared:
        detail += f"; matches none of {_join(compared)} (another operator release)"
    report.add("api", "ok" if matched or not compared else "warning", "DynamoGraphDeployment", detail)
    for graph in plan.graphs:
        version = graph.graph.obj.version
        if version not in served:
            report.add("api", "error", graph.graph.obj.label, f"uses {version}, which the cluster does not serve "
                       f"(serves {_join(served)}): pick a preset of a served version")


def check_namespace(report: Report, cluster, namespace: str) -> bool:
    if cluster.namespace(namespace) is None:
        report.add("namespace", "error", namespace, "does not exist: create it (kubectl create namespace "
                   f"{namespace}) and its secrets before installing")
        return False
    report.add("namespace", "ok", namespace, "exists")
    return True


def check_secrets(report: Report, cluster, plan, namespace: str) -> None:
    pulls = pull_secret_names(plan)
    for name, keys in sorted(needed_secrets(plan).items()):
        found = cluster.secret_keys(namespace, name)
        role = "pull secret" if name in pulls else "secret"
        if found is None:
            report.add("secret", "error", name, f"{role} missing in {namespace}")
            continue
        kind, present = found
        missing = keys - present
        if missing:
            report.add("secret", "error", name, f"has no key {_join(missing)} (keys: {_join(present)})")
        elif name in pulls and kind != PULL_SECRET_TYPE:
            report.add("secret", "warning", name, f"pull secret of type {kind}, not {PULL_SECRET_TYPE}")
        else:
            report.add("secret", "ok", name, f"{role} present" + (f" with key {_join(keys)}" if keys else ""))


def check_storage(report: Report, cluster, plan, namespace: str, release: str) -> None:
    mounted_by = claim_pods(plan)
    created = {(claim.namespace, claim.name): claim for claim in plan.claims}
    classes = {c["metadata"]["name"]: c for c in cluster.storage_classes()}
    for (claim_namespace, claim_name), claim in sorted(created.items()):
        name = plan.model.qualified(claim_namespace, claim_name)  # namespace/name where the set spans several
        existing = cluster.claim(claim_namespace, claim_name)
        modes = _join(claim.access_modes)
        if existing is not None:
            owner = (existing["metadata"].get("annotations") or {}).get("meta.helm.sh/release-name")
            if owner == release:
                modes_now = _join(existing["spec"].get("accessModes") or [])
                phase = (existing.get("status") or {}).get("phase", "unknown")
                status, changes = kept_claim_changes(claim, existing, classes)
                report.add("storage", status, name, f"kept from an earlier install of {release} ({modes_now}, "
                           f"{phase}): " + ("; ".join(changes) if changes else "Helm adopts it"))
            else:
                report.add("storage", "error", name, "a claim of this name exists and is not this release's: "
                           "Helm refuses to take it over; use it as the existing claim instead")
            continue
        written = claim_object(plan, claim_name, claim_namespace)
        if written is not None and check_volume_binding(report, cluster, plan, written, classes):
            continue
        _provisioned(report, name, claim.storage_class, classes, modes, claim.size)
    for made in template_claims(plan):  # a StatefulSet's, one per replica, unless the cluster has it already
        if cluster.claim(made.namespace, made.name) is None \
                and not check_volume_binding(report, cluster, plan, made, classes):
            spec = as_map(made.value.get("spec"))
            size = as_str(as_map(as_map(spec.get("resources")).get("requests")).get("storage"))
            _provisioned(report, plan.model.qualified(made.namespace, made.name), claim_class(made), classes,
                         _join(as_str(mode) or "" for mode in as_list(spec.get("accessModes"))), size)
    for (claim_namespace, claim_name), pods in sorted(mounted_by.items()):
        if (claim_namespace, claim_name) in created:
            continue
        name = plan.model.qualified(claim_namespace, claim_name)
        existing = cluster.claim(claim_namespace, claim_name)
        if existing is None:
            report.add("storage", "error", name, f"existing claim not found in {claim_namespace}")
            continue
        modes = set(existing["spec"].get("accessModes") or [])
        phase = (existing.get("status") or {}).get("phase", "unknown")
        if pods > 1 and not modes & SHARED_ACCESS:
            report.add("storage", "error", name, f"existing claim is {_join(modes)} but {pods} pods mount it "
                       "(needs ReadWriteMany)")
        else:
            report.add("storage", "ok", name, f"existing claim, {_join(modes)}, {phase}, mounted by {pods} pods")


def _provisioned(report: Report, name: str, storage_class: str | None, classes: dict[str, dict], modes: str,
                 size: str | None) -> None:
    """A claim the release creates for a provisioner: its class (none written: the DefaultStorageClass plugin
    writes the cluster's default in on create) must exist."""
    wanted = storage_class or cluster_default_class(classes)
    if wanted is None:
        report.add("storage", "error", name, f"names no storage class and the cluster has no default one ({modes})")
    elif wanted not in classes:
        report.add("storage", "error", name, f"storage class {wanted} does not exist (classes: {_join(classes)})")
    else:
        report.add("storage", "ok", name, f"created with storage class {wanted} (provisioner "
                   f"{classes[wanted].get('provisioner')}), {modes}, {size}: the provisioner must support {modes}")


def kept_claim_changes(claim, existing: dict, classes: dict[str, dict]) -> tuple[str, list[str]]:
    """("ok" | "warning" | "error", what the release asks of a claim that exists and how an update fares):
    its class and access modes never change, it never shrinks, and only a bound claim grows, when its class
    allows volume expansion. The chart's own check reads the claim with `lookup`, which Argo CD never runs."""
    spec = existing.get("spec") or {}
    errors, warnings = [], []
    has = spec.get("storageClassName")
    if claim.storage_class is not None and has is not None and claim.storage_class != has:
        errors.append(f"the release asks for storage class {claim.storage_class!r}, the claim has {has!r}, "
                      "which never changes")
    modes = spec.get("accessModes") or []
    if sorted(claim.access_modes) != sorted(modes):
        errors.append(f"the release asks for {_join(claim.access_modes)}, the claim is {_join(modes)}, which "
                      "never changes")
    wanted, had = quantity_bytes(claim.size), quantity_bytes(((spec.get("resources") or {}).get("requests")
                                                               or {}).get("storage"))
    if wanted is not None and had is not None and wanted != had:
        sizes = f"the release asks for {claim.size}, the claim requests {spec['resources']['requests']['storage']}"
        expandable = (classes.get(has or "") or {}).get("allowVolumeExpansion") is True
        if wanted < had:
            errors.append(f"{sizes}: a claim never shrinks")
        elif (existing.get("status") or {}).get("phase") != "Bound":
            errors.append(f"{sizes}: the API server resizes only a bound claim")
        elif not expandable:
            errors.append(f"{sizes}: its storage class {has or '(none)'} does not allow volume expansion")
        else:
            warnings.append(f"{sizes}: it grows when the update is applied (the chart's hook download mode "
                            "never updates it: patch it yourself)")
    if errors:
        return "error", [*errors, "an update of the claim is refused; keep the claim's values, or use a new claim"]
    return ("warning" if warnings else "ok"), warnings


def check_priority_classes(report: Report, cluster, plan) -> None:
    for name in sorted(priority_class_names(plan)):
        found = cluster.priority_class(name)
        if found is None:
            report.add("priority", "error", name, "priority class does not exist")
        else:
            report.add("priority", "ok", name, f"exists (value {found.get('value')})")


def node_gpus(nodes: list[dict], resource: str) -> dict[str, int]:
    """{product label (or "unlabelled"): allocatable GPUs of that resource}."""
    offer: dict[str, int] = {}
    for node in nodes:
        amount = (node.get("status") or {}).get("allocatable", {}).get(resource)
        if amount is None:
            continue
        product = (node["metadata"].get("labels") or {}).get(GPU_PRODUCT_LABEL, "unlabelled")
        offer[product] = offer.get(product, 0) + int(parse_quantity(str(amount)) or 0)
    return offer


def check_gpus(report: Report, cluster, plan) -> None:
    demand = gpu_demand(plan)
    if not demand:
        report.add("gpu", "ok", "GPUs", "the release asks for none")
        return
    nodes = cluster.nodes()
    for (resource, products), needed in sorted(demand.items()):
        offer = node_gpus(nodes, resource)
        usable = sum(count for product, count in offer.items() if not products or product in products)
        wanted = f"{needed} {resource} on {' or '.join(products) if products else 'any product'}"
        nodes_say = ", ".join(f"{product}: {count}" for product, count in sorted(offer.items())) or "no node has any"
        status = "ok" if usable >= needed else "error"
        report.add("gpu", status, resource, f"the release asks for {wanted} (dgdlint plan); allocatable on "
                   f"nodes by {GPU_PRODUCT_LABEL}: {nodes_say}")
