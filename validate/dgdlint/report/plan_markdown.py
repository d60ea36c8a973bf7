"""`dgdlint plan --format markdown`: tables and a Mermaid flowchart, which GitHub and GitLab render in pull
requests."""

from __future__ import annotations

from dgdlint.plan import DASH, Part, Plan
from dgdlint.quantity import format_bytes, format_cores
from dgdlint.report.plan_text import (
    cpu_text,
    fit_note,
    gpus_text,
    memory_text,
    products_text,
    summary_text,
    with_limit,
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return f"`{text}`" if text and text != DASH else DASH


def _markdown_row(first: str, part: Part) -> str:
    resources = part.resources
    cells = [
        first, part.pods_note,
        ", ".join(f"{count} x `{resource}`" for resource, count in resources.gpus.items()) or DASH,
        (", ".join(_code(p) for p in part.products) if part.products else products_text(part))
        if resources.gpus else DASH,
        cpu_text(resources), memory_text(resources), part.shared_memory,
        "<br>".join(_code(i) for i in part.images) or DASH,
        _code(part.streaming_endpoint or DASH),
        "<br>".join(f"{_code(c.name)} {c.size or 'size unknown'}"
                    + (f" at {', '.join(_code(p) for p in c.mount_paths)}" if c.mount_paths else "")
                    for c in part.claims) or DASH,
    ]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


_PART_COLUMNS = ("Pods", "GPUs per pod", "GPU product", "CPU", "Memory", "Shared memory", "Images",
                 "Streaming endpoint", "Claims")


def render_markdown(plan: Plan) -> str:
    lines = ["### dgdlint plan", ""]
    for graph_plan in plan.graphs:
        obj = graph_plan.graph.obj
        lines += [f"#### DynamoGraphDeployment `{obj.name}` (namespace `{obj.namespace}`, `{obj.api_version}`)", "",
                  "| Component (type) | " + " | ".join(_PART_COLUMNS) + " |",
                  "|" + "---|" * (len(_PART_COLUMNS) + 1)]
        lines += [_markdown_row(f"{part.name} ({part.type})", part) for part in graph_plan.parts]
        lines.append("")
    if plan.workloads:
        lines += ["#### Jobs and other workloads", "",
                  "| Workload | " + " | ".join(_PART_COLUMNS) + " |", "|" + "---|" * (len(_PART_COLUMNS) + 1)]
        lines += [_markdown_row(f"{part.obj.kind} `{part.obj.name}`", part) for part in plan.workloads]
        lines.append("")
    if plan.claims:
        lines += ["#### Claims", "", "| Claim | Size | Access modes | Storage class | Defined by |",
                  "|---|---|---|---|---|"]
        for claim in plan.claims:
            lines.append(f"| `{claim.name}` | {claim.size or DASH} | {', '.join(claim.access_modes) or DASH} | "
                         f"{claim.storage_class or 'cluster default'} | {claim.defined_by} |")
        lines.append("")
    lines += ["#### Totals", "", "| Counting | GPUs | CPU | Memory |", "|---|---|---|---|"]
    rows = [("every pod, Jobs included", plan.totals)]
    if plan.has_install_hooks:
        rows.append(("first install, in Argo CD's sync waves" if plan.first_install_order == "argo-cd"
                     else "first install, hooks run first", plan.totals_first_install))
    rows.append(("once the Jobs have finished", plan.totals_without_jobs))
    for label, totals in rows:
        cpu_limit = format_cores(totals.cpu_limit) if totals.cpu_limit is not None else None
        memory_limit = format_bytes(totals.memory_limit) if totals.memory_limit is not None else None
        gpus = str(totals.gpu_count)
        if len(totals.gpus) == 1:
            gpus += f" (`{next(iter(totals.gpus))}`)"
        elif totals.gpus:
            gpus += " (" + ", ".join(f"{n} x `{r}`" for r, n in sorted(totals.gpus.items())) + ")"
        lines.append(f"| {label} | {gpus} | {with_limit(format_cores(totals.cpu), cpu_limit)} | "
                     f"{with_limit(format_bytes(totals.memory), memory_limit)} |")
    for part in plan.not_counted:
        lines += ["", f"Not counted: {part.obj.kind} `{part.obj.name}` ({part.pods_note}, which depends on the "
                      "cluster)."]
    note = fit_note(plan)
    lines += ["", "#### GPU fit", "", f"{note[0].upper()}{note[1:]}. Findings: {summary_text(plan)}.", ""]
    for finding in plan.findings:
        lines.append(f"- **{finding.severity}** `{finding.rule}` {_cell(finding.file)}:{finding.line}: "
                     f"{_cell(finding.message)}")
    if plan.findings:
        lines.append("")
    lines += ["```mermaid", *mermaid(plan), "```"]
    return "\n".join(lines) + "\n"


def _mermaid_label(*parts: str) -> str:
    """A quoted Mermaid label, one line per part; quotes and angle brackets as Mermaid's entity codes."""
    def escape(text: str) -> str:
        return text.replace("#", "#35;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")

    return '"' + "<br/>".join(escape(p) for p in parts if p) + '"'


def mermaid(plan: Plan) -> list[str]:
    """A flowchart: frontend -> workers per graph, the claims they mount, the Jobs that fill them first."""
    from dgdlint.downloads import download_jobs

    ids: dict[object, str] = {}

    def node(key: object) -> str:  # parts by identity (two objects may share a name), claims by name
        return ids.setdefault(key, f"n{len(ids) + 1}")

    job_parts = {id(part.workload): part for part in plan.workloads}

    lines = ["flowchart LR"]
    edges: list[str] = []
    for index, graph_plan in enumerate(plan.graphs, 1):
        obj = graph_plan.graph.obj
        lines.append(f"  subgraph g{index}[{_mermaid_label(f'DynamoGraphDeployment {obj.name}')}]")
        for part in graph_plan.parts:
            detail = [part.pods_note]
            if part.resources.gpus:
                detail.append(f"{gpus_text(part)} per pod")
                if part.products:
                    detail.append(" or ".join(part.products))
            lines.append(f"    {node(id(part))}[{_mermaid_label(f'{part.name} ({part.type})', *detail)}]")
        lines.append("  end")
        frontends = [p for p in graph_plan.parts if p.component and p.component.is_frontend]
        others = [p for p in graph_plan.parts if p not in frontends]
        for frontend in frontends:
            for other in others:
                label = f"streaming {other.streaming_endpoint}" if other.streaming_endpoint else "requests"
                edges.append(f"  {node(id(frontend))} -->|{_mermaid_label(label)}| {node(id(other))}")
        for job, _container in download_jobs(plan.model, graph_plan.graph):
            for other in others:
                if id(job) in job_parts and other.component and other.component.is_worker:
                    edges.append(f"  {node(id(job_parts[id(job)]))} -.->|{_mermaid_label('completes before')}| "
                                 f"{node(id(other))}")
    for part in plan.workloads:
        detail = [part.pods_note] + ([f"{gpus_text(part)} per pod"] if part.resources.gpus else [])
        lines.append(f"  {node(id(part))}[[{_mermaid_label(f'{part.obj.kind} {part.obj.name}', *detail)}]]")
    claims = {(c.namespace, c.name): c for c in plan.claims}
    shown = set()
    for part in [p for g in plan.graphs for p in g.parts] + plan.workloads:
        for claim in part.claims:
            key = ("claim", part.obj.namespace, claim.name)
            if key not in shown:
                shown.add(key)
                known = claims.get((part.obj.namespace, claim.name))
                modes = ", ".join(known.access_modes) if known else ""
                lines.append(f"  {node(key)}[({_mermaid_label(f'claim {claim.name}', claim.size or '', modes)})]")
            label = ", ".join(claim.mount_paths) or "mounts"
            edges.append(f"  {node(id(part))} -->|{_mermaid_label(label)}| {node(key)}")
    return lines + edges


def render(plan: Plan) -> str:
    return render_markdown(plan)
