"""`dgdlint plan --format text`: the plan for people, one block per deployment and workload, then the totals
and the GPU fit findings."""

from __future__ import annotations

from dgdlint.plan import ClaimPlan, ClaimUse, Part, Plan, PodResources, Totals
from dgdlint.quantity import format_bytes, format_cores


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def gpus_text(part: Part) -> str:
    if not part.resources.gpus:
        return "none"
    return ", ".join(f"{count} x {resource}" for resource, count in part.resources.gpus.items())


def products_text(part: Part) -> str:
    if part.products is None:
        return "any product"
    if not part.products:
        return "no product satisfies both the node selector and the node affinity"
    return " or ".join(part.products)


def with_limit(request: str, limit: str | None) -> str:
    if request == "0" and limit is None:
        return "not set"
    return f"{request} (limit {limit if limit is not None else 'none'})"


def cpu_text(resources: PodResources) -> str:
    limit = format_cores(resources.cpu_limit) if resources.cpu_limit is not None else None
    return with_limit(format_cores(resources.cpu), limit)


def memory_text(resources: PodResources) -> str:
    limit = format_bytes(resources.memory_limit) if resources.memory_limit is not None else None
    return with_limit(format_bytes(resources.memory), limit)


def _claim_text(claim: ClaimUse) -> str:
    size = claim.size or "size unknown: not in these manifests"
    where = f" at {', '.join(claim.mount_paths)}" if claim.mount_paths else ""
    return f"{claim.name} ({size}){where}"


def _totals_text(totals: Totals) -> str:
    gpus = plural(totals.gpu_count, "GPU")
    if totals.gpus:
        gpus += " (" + ", ".join(f"{count} x {resource}" for resource, count in sorted(totals.gpus.items())) + ")"
    cpu_limit = format_cores(totals.cpu_limit) if totals.cpu_limit is not None else None
    memory_limit = format_bytes(totals.memory_limit) if totals.memory_limit is not None else None
    return (f"{gpus}, CPU {with_limit(format_cores(totals.cpu), cpu_limit)}, "
            f"memory {with_limit(format_bytes(totals.memory), memory_limit)}")


def fit_note(plan: Plan) -> str:
    if not plan.gpu_targets:
        return ("nothing to check: no NIM worker or download Job names its GPU product "
                "(nvidia.com/gpu.product node selector or required node affinity)")
    what = "1 NIM worker or download Job" if plan.gpu_targets == 1 else \
        f"{plan.gpu_targets} NIM workers and download Jobs"
    return f"checked the GPU products of {what} against the product table and the support matrix's floors"


def _part_lines(part: Part, indent: str) -> list[str]:
    resources = part.resources
    gpu = gpus_text(part)
    if resources.gpus:
        gpu += f" per pod, {products_text(part)}"
    rows = [("GPUs", gpu), ("CPU", cpu_text(resources)), ("memory", memory_text(resources)),
            ("shared memory", part.shared_memory), ("images", ", ".join(part.images) or "none")]
    if part.streaming_endpoint:
        rows.append(("streaming", part.streaming_endpoint))
    if part.claims:
        rows.append(("claims", "; ".join(_claim_text(c) for c in part.claims)))
    if resources.unparsed:
        rows.append(("not counted", "; ".join(resources.unparsed) + " (not quantities)"))
    return [f"{indent}{label:<15}{value}" for label, value in rows]


def render_text(plan: Plan) -> str:
    lines: list[str] = []
    for graph_plan in plan.graphs:
        obj = graph_plan.graph.obj
        lines.append(f"{obj.label} (namespace {obj.namespace}, {obj.api_version})")
        for part in graph_plan.parts:
            lines.append(f"  {part.name} ({part.type}): {part.pods_note}")
            lines += _part_lines(part, "    ")
        lines.append("")
    for part in plan.workloads:
        lines.append(f"{part.obj.label} (namespace {part.obj.namespace}): {part.pods_note}")
        lines += _part_lines(part, "    ")
        lines.append("")
    for claim in plan.claims:
        modes = ", ".join(claim.access_modes) or "no access mode"
        lines.append(f"Claim {claim.name} (namespace {claim.namespace}, {claim.defined_by}): "
                     f"{claim.size or 'no size'}, {modes}, {_storage_class(claim)}")
    if plan.claims:
        lines.append("")
    lines.append(f"Totals, every pod with the Jobs: {_totals_text(plan.totals)}")
    if plan.has_install_hooks:
        label = "First install, Argo CD's waves:" if plan.first_install_order == "argo-cd" else \
            "First install, hooks run first:"
        lines.append(f"{label}  {_totals_text(plan.totals_first_install)}")
    lines.append(f"Once the Jobs have finished:     {_totals_text(plan.totals_without_jobs)}")
    for part in plan.not_counted:
        lines.append(f"Not counted: {part.obj.label} ({part.pods_note}, which depends on the cluster)")
    lines.append("")
    lines.append(f"GPU fit: {fit_note(plan)}")
    for finding in plan.findings:
        lines.append(f"  {finding.file}:{finding.line}:{finding.column}: {finding.severity} {finding.rule} "
                     f"{finding.message}")
    lines.append(summary_text(plan))
    return "\n".join(lines) + "\n"


def _storage_class(claim: ClaimPlan) -> str:
    return f"storage class {claim.storage_class}" if claim.storage_class else "the cluster's default storage class"


def summary_text(plan: Plan) -> str:
    counts = {s: sum(1 for f in plan.findings if f.severity == s) for s in ("error", "warning", "info")}
    return f"{plural(counts['error'], 'error')}, {plural(counts['warning'], 'warning')}, {counts['info']} info"


def render(plan: Plan) -> str:
    return render_text(plan)
