"""`dgdlint plan`: what a set of manifests will ask of the cluster, before it is applied.

Per DynamoGraphDeployment component and per workload (the download Job above all): pods, GPUs (resource,
count per pod, product when a `nvidia.com/gpu.product` selector names one), CPU, memory, shared memory,
images, streaming endpoint and the claims it mounts with their sizes; then totals over every pod; then
the findings of the GPU fit rules (and of parsing, and of the schema stage when a CRD is given).

How the numbers are counted:
- A pod's request for a resource is what the scheduler reserves: the larger of its containers' sum
  (sidecar init containers included) and its largest init container, a request defaulting to the limit
  when only a limit is set. Limits follow the same rule and are unbounded when a container has none.
- A DGD component has replicas x nodes pods (a multi-node component asks for its GPUs on each node); a
  Job has `parallelism` pods at once (at most `completions`); Deployments, StatefulSets and ReplicaSets
  their replicas; a Pod one. A DaemonSet's pod count depends on the cluster and is not counted.
- Totals count every pod of every component and workload: the peak, since the chart's workers hold their
  GPUs while their gate waits for the download Job. The totals without Jobs are the steady state.
- Helm test hooks (`helm.sh/hook: test`) are left out: installing or applying never creates them.

Exit codes: 0 no error finding; 1 an error finding (input that does not parse or render included);
2 usage error."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal

from dgdlint.findings import Finding
from dgdlint.model import (
    Component,
    Container,
    Graph,
    KObject,
    Model,
    PodSettings,
    Workload,
    _is_gpu_resource,
    as_map,
    as_str,
)
from dgdlint.quantity import format_bytes, format_cores, parse_quantity, quantity_bytes

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
STREAMING_ENDPOINT = "NIM_DYNAMO_STREAMING_ENDPOINT"
OPERATOR_SHARED_MEMORY = "8Gi"  # what the Dynamo operator mounts at /dev/shm when a component sets nothing
DASH = "-"

# ---------------------------------------------------------------------------------------------
# What one pod asks for.


@dataclass
class PodResources:
    cpu: Decimal = Decimal(0)
    cpu_limit: Decimal | None = Decimal(0)  # None: some container has no limit (unbounded)
    memory: int = 0
    memory_limit: int | None = 0
    gpus: dict[str, int] = field(default_factory=dict)  # resource name -> devices per pod
    unparsed: list[str] = field(default_factory=list)  # quantities that did not parse (left out)


def _amount(container: Container, table: str, resource: str, unparsed: list[str]) -> Decimal | None:
    """The container's request (or limit) of `resource`; a missing request defaults to the limit."""
    entries = [container.limits] if table == "limits" else [container.requests, container.limits]
    for entries_table in entries:
        if resource in entries_table:
            quantity = entries_table[resource][0]
            value = parse_quantity(quantity)
            if value is None:
                unparsed.append(f"{container.name or 'main'}: {resource} {quantity!r}")
            return value
    return None


def _is_sidecar(container: Container) -> bool:
    return as_str(container.obj.get(container.path + ("restartPolicy",))) == "Always"


def pod_resources(containers: list[Container], init_containers: list[Container]) -> PodResources:
    """Effective pod requests and limits, as the scheduler computes them."""
    sidecars = [c for c in init_containers if _is_sidecar(c)]
    running = containers + sidecars
    names = set()
    for container in containers + init_containers:
        names.update(container.requests)
        names.update(container.limits)
    out = PodResources()
    unparsed: list[str] = []

    def effective(resource: str, table: str) -> Decimal | None:
        amounts = [_amount(c, table, resource, unparsed) for c in running]
        if table == "limits" and any(a is None for a in amounts):
            return None
        total = sum((a or Decimal(0) for a in amounts), Decimal(0))
        started = Decimal(0)
        for init in init_containers:
            amount = _amount(init, table, resource, unparsed)
            if any(init is sidecar for sidecar in sidecars):
                started += amount or Decimal(0)
            elif amount is not None:
                total = max(total, amount + started)
        return total

    out.cpu = effective("cpu", "requests") or Decimal(0)
    out.cpu_limit = effective("cpu", "limits")
    memory = effective("memory", "requests")
    out.memory = int(memory.to_integral_value(rounding=ROUND_CEILING)) if memory else 0
    memory_limit = effective("memory", "limits")
    out.memory_limit = (int(memory_limit.to_integral_value(rounding=ROUND_CEILING))
                        if memory_limit is not None else None)
    for resource in sorted(names):
        if _is_gpu_resource(resource):
            count = effective(resource, "requests")
            if count:
                out.gpus[resource] = int(count)
    out.unparsed = sorted(set(unparsed))
    return out


# ---------------------------------------------------------------------------------------------
# The plan: one part per DGD component or workload.


@dataclass
class ClaimUse:
    name: str
    mount_paths: list[str]
    size: str | None  # None: the claim is not defined in this set of manifests

    @property
    def size_bytes(self) -> int | None:
        return quantity_bytes(self.size) if self.size else None


@dataclass
class Part:
    obj: KObject
    name: str
    type: str  # component type, or the workload kind
    pods: int | None  # None: not countable from the manifests (a DaemonSet)
    pods_note: str
    resources: PodResources
    products: list[str] | None  # None: any product
    images: list[str]
    streaming_endpoint: str | None
    shared_memory: str
    claims: list[ClaimUse]
    is_job: bool = False
    component: Component | None = None
    workload: Workload | None = None


@dataclass
class GraphPlan:
    graph: Graph
    parts: list[Part]


@dataclass
class ClaimPlan:
    name: str
    namespace: str
    size: str | None
    access_modes: list[str]
    storage_class: str | None
    defined_by: str


@dataclass
class Totals:
    gpus: dict[str, int] = field(default_factory=dict)
    cpu: Decimal = Decimal(0)
    cpu_limit: Decimal | None = Decimal(0)
    memory: int = 0
    memory_limit: int | None = 0

    @property
    def gpu_count(self) -> int:
        return sum(self.gpus.values())

    def add(self, part: Part) -> None:
        pods = part.pods or 0
        resources = part.resources
        for resource, count in resources.gpus.items():
            self.gpus[resource] = self.gpus.get(resource, 0) + pods * count
        self.cpu += pods * resources.cpu
        self.memory += pods * resources.memory
        if pods:
            self.cpu_limit = None if self.cpu_limit is None or resources.cpu_limit is None \
                else self.cpu_limit + pods * resources.cpu_limit
            self.memory_limit = None if self.memory_limit is None or resources.memory_limit is None \
                else self.memory_limit + pods * resources.memory_limit

    def to_dict(self) -> dict:
        return {
            "gpus": self.gpu_count,
            "gpus_by_resource": dict(sorted(self.gpus.items())),
            "cpu": float(self.cpu),
            "memory": self.memory,
            "limits": {"cpu": float(self.cpu_limit) if self.cpu_limit is not None else None,
                       "memory": self.memory_limit},
        }


@dataclass
class Plan:
    model: Model
    graphs: list[GraphPlan]
    workloads: list[Part]
    claims: list[ClaimPlan]
    totals: Totals
    totals_without_jobs: Totals
    findings: list[Finding]
    gpu_targets: int  # how many NIM workers and download Jobs name a GPU product
    not_counted: list[Part]

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")


def is_helm_test_hook(obj: KObject) -> bool:
    hooks = as_str(obj.annotations.get("helm.sh/hook")) or ""
    return any(hook.strip() in ("test", "test-success") for hook in hooks.split(","))


def _claims(obj: KObject, model: Model, containers: list[Container]) -> list[ClaimUse]:
    by_claim: dict[str, list[str]] = {}
    for container in containers:
        for mount in container.mounts:
            if mount.claim:
                paths = by_claim.setdefault(mount.claim, [])
                if mount.mount_path and mount.mount_path not in paths:
                    paths.append(mount.mount_path)
    out = []
    for name, paths in by_claim.items():
        pvc = model.pvc(obj.namespace, name)
        out.append(ClaimUse(name, paths, pvc.size if pvc else None))
    return out


def _images(containers: list[Container]) -> list[str]:
    images: list[str] = []
    for container in containers:
        if container.image and container.image not in images:
            images.append(container.image)
    return images


def _streaming_endpoint(containers: list[Container]) -> str | None:
    for container in containers:
        value = container.env_value(STREAMING_ENDPOINT)
        if value:
            return value
    return None


def _products(pod: PodSettings) -> list[str] | None:
    from dgdlint.rules.gpu_fit import selected_products

    selection = selected_products(pod)
    return selection.products if selection is not None else None


def _component_shared_memory(component: Component) -> str:
    raw = component.obj.get(component.path)
    raw = as_map(raw)
    if component.graph.shape == "services" and as_map(raw.get("sharedMemory")).get("disabled") is True:
        return "disabled"
    size = component.shared_memory
    if size is None:
        return f"{OPERATOR_SHARED_MEMORY} (operator default)"
    return "disabled" if parse_quantity(size) == 0 else size


def _workload_shared_memory(workload: Workload) -> str:
    volumes = workload.pod.volumes()
    for container in workload.all_containers:
        for mount in container.mounts:
            if mount.mount_path and mount.mount_path.rstrip("/") == "/dev/shm" and mount.volume in volumes:
                empty_dir = as_map(volumes[mount.volume][0].get("emptyDir"))
                if as_str(empty_dir.get("medium")) == "Memory":
                    return as_str(empty_dir.get("sizeLimit")) or "memory-backed, no size limit"
    return "runtime default"


def component_part(model: Model, component: Component) -> Part:
    containers = [component.main, *component.sidecars]
    everything = containers + component.init_containers
    replicas = component.replicas if component.replicas is not None else 1
    nodes = max(component.node_count, 1)
    note = f"{replicas} replica{'s' if replicas != 1 else ''}" + (" (default)" if component.replicas is None else "")
    if nodes > 1:
        note += f" x {nodes} nodes"
    return Part(component.obj, component.name, component.type or DASH, replicas * nodes, note,
                pod_resources(containers, component.init_containers), _products(component.pod), _images(everything),
                _streaming_endpoint([component.main]), _component_shared_memory(component),
                _claims(component.obj, model, everything), component=component)


def _int_field(obj: KObject, path: tuple) -> int | None:
    value = obj.get(path)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _workload_pods(workload: Workload) -> tuple[int | None, str]:
    obj, kind = workload.obj, workload.obj.kind
    if kind in ("Job", "CronJob"):
        base = ("spec",) if kind == "Job" else ("spec", "jobTemplate", "spec")
        parallelism = _int_field(obj, base + ("parallelism",))
        completions = _int_field(obj, base + ("completions",))
        pods = 1 if parallelism is None else parallelism
        if completions is not None:
            pods = min(pods, completions)
        note = f"{pods} pod{'s' if pods != 1 else ''} at once"
        return pods, note + (", on each run of the schedule" if kind == "CronJob" else "")
    if kind == "DaemonSet":
        return None, "one pod per matching node"
    if kind == "Pod":
        return 1, "1 pod"
    replicas = _int_field(obj, ("spec", "replicas"))
    pods = 1 if replicas is None else replicas
    return pods, f"{pods} replica{'s' if pods != 1 else ''}" + (" (default)" if replicas is None else "")


def workload_part(model: Model, workload: Workload) -> Part:
    pods, note = _workload_pods(workload)
    containers = workload.all_containers
    return Part(workload.obj, workload.obj.name, workload.obj.kind, pods, note,
                pod_resources(workload.containers, workload.init_containers), _products(workload.pod),
                _images(containers), _streaming_endpoint(containers), _workload_shared_memory(workload),
                _claims(workload.obj, model, containers), is_job=workload.obj.kind in ("Job", "CronJob"),
                workload=workload)


def build_plan(model: Model, extra_findings: list[Finding] = (), schema_stage=None) -> Plan:
    from dgdlint.rules.gpu_fit import gpu_targets

    graphs = [GraphPlan(graph, [component_part(model, c) for c in graph.components]) for graph in model.graphs
              if not is_helm_test_hook(graph.obj)]
    workloads = [workload_part(model, w) for w in model.workloads if not is_helm_test_hook(w.obj)]
    claims = [ClaimPlan(p.name, p.namespace, p.size, p.access_modes, p.storage_class,
                        "PersistentVolumeClaim" if not p.path else f"{p.obj.label} spec.pvcs")
              for p in model.pvcs if not is_helm_test_hook(p.obj)]
    totals, steady = Totals(), Totals()
    not_counted = []
    for part in [p for g in graphs for p in g.parts] + workloads:
        if part.pods is None:
            not_counted.append(part)
            continue
        totals.add(part)
        if not part.is_job:
            steady.add(part)
    findings = plan_findings(model, list(extra_findings), schema_stage)
    return Plan(model, graphs, workloads, claims, totals, steady, findings, len(gpu_targets(model)), not_counted)


def plan_findings(model: Model, extra: list[Finding], schema_stage=None) -> list[Finding]:
    """Parse findings, schema findings (with a CRD) and the GPU fit rules, after suppression annotations."""
    from dgdlint.policy import apply_suppressions
    from dgdlint.rules import REGISTRY, run_rules

    fit_rules = [r for r in REGISTRY.values() if r.family == "gpu"]
    findings = list(model.findings) + extra
    if schema_stage is not None:
        findings += schema_stage.check(model.objects)
    findings += run_rules(model, fit_rules)
    findings, _suppressed = apply_suppressions(findings, model.objects, set(REGISTRY))
    wanted = {r.name for r in fit_rules}
    return sorted((f for f in findings if f.stage in ("parse", "schema") or f.rule in wanted), key=Finding.sort_key)


# ---------------------------------------------------------------------------------------------
# Showing it.


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _gpus_text(part: Part) -> str:
    if not part.resources.gpus:
        return "none"
    return ", ".join(f"{count} x {resource}" for resource, count in part.resources.gpus.items())


def _products_text(part: Part) -> str:
    if part.products is None:
        return "any product"
    if not part.products:
        return "no product satisfies both the node selector and the node affinity"
    return " or ".join(part.products)


def _with_limit(request: str, limit: str | None) -> str:
    if request == "0" and limit is None:
        return "not set"
    return f"{request} (limit {limit if limit is not None else 'none'})"


def _cpu_text(resources: PodResources) -> str:
    limit = format_cores(resources.cpu_limit) if resources.cpu_limit is not None else None
    return _with_limit(format_cores(resources.cpu), limit)


def _memory_text(resources: PodResources) -> str:
    limit = format_bytes(resources.memory_limit) if resources.memory_limit is not None else None
    return _with_limit(format_bytes(resources.memory), limit)


def _claim_text(claim: ClaimUse) -> str:
    size = claim.size or "size unknown: not in these manifests"
    where = f" at {', '.join(claim.mount_paths)}" if claim.mount_paths else ""
    return f"{claim.name} ({size}){where}"


def _totals_text(totals: Totals) -> str:
    gpus = _plural(totals.gpu_count, "GPU")
    if totals.gpus:
        gpus += " (" + ", ".join(f"{count} x {resource}" for resource, count in sorted(totals.gpus.items())) + ")"
    cpu_limit = format_cores(totals.cpu_limit) if totals.cpu_limit is not None else None
    memory_limit = format_bytes(totals.memory_limit) if totals.memory_limit is not None else None
    return (f"{gpus}, CPU {_with_limit(format_cores(totals.cpu), cpu_limit)}, "
            f"memory {_with_limit(format_bytes(totals.memory), memory_limit)}")


def _fit_note(plan: Plan) -> str:
    if not plan.gpu_targets:
        return ("nothing to check: no NIM worker or download Job names its GPU product "
                "(nvidia.com/gpu.product node selector or required node affinity)")
    what = "1 NIM worker or download Job" if plan.gpu_targets == 1 else \
        f"{plan.gpu_targets} NIM workers and download Jobs"
    return f"checked the GPU products of {what} against the product table and the support matrix's floors"


def _part_lines(part: Part, indent: str) -> list[str]:
    resources = part.resources
    gpu = _gpus_text(part)
    if resources.gpus:
        gpu += f" per pod, {_products_text(part)}"
    rows = [("GPUs", gpu), ("CPU", _cpu_text(resources)), ("memory", _memory_text(resources)),
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
    lines.append(f"Once the Jobs have finished:     {_totals_text(plan.totals_without_jobs)}")
    for part in plan.not_counted:
        lines.append(f"Not counted: {part.obj.label} ({part.pods_note}, which depends on the cluster)")
    lines.append("")
    lines.append(f"GPU fit: {_fit_note(plan)}")
    for finding in plan.findings:
        lines.append(f"  {finding.file}:{finding.line}:{finding.column}: {finding.severity} {finding.rule} "
                     f"{finding.message}")
    lines.append(_summary_text(plan))
    return "\n".join(lines) + "\n"


def _storage_class(claim: ClaimPlan) -> str:
    return f"storage class {claim.storage_class}" if claim.storage_class else "the cluster's default storage class"


def _summary_text(plan: Plan) -> str:
    counts = {s: sum(1 for f in plan.findings if f.severity == s) for s in ("error", "warning", "info")}
    return f"{_plural(counts['error'], 'error')}, {_plural(counts['warning'], 'warning')}, {counts['info']} info"


# Markdown: tables and a Mermaid flowchart, which GitHub and GitLab render in pull requests.


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return f"`{text}`" if text and text != DASH else DASH


def _markdown_row(first: str, part: Part) -> str:
    resources = part.resources
    cells = [
        first, part.pods_note,
        ", ".join(f"{count} x `{resource}`" for resource, count in resources.gpus.items()) or DASH,
        (", ".join(_code(p) for p in part.products) if part.products else _products_text(part))
        if resources.gpus else DASH,
        _cpu_text(resources), _memory_text(resources), part.shared_memory,
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
    for label, totals in (("every pod, Jobs included", plan.totals),
                          ("once the Jobs have finished", plan.totals_without_jobs)):
        cpu_limit = format_cores(totals.cpu_limit) if totals.cpu_limit is not None else None
        memory_limit = format_bytes(totals.memory_limit) if totals.memory_limit is not None else None
        gpus = str(totals.gpu_count)
        if len(totals.gpus) == 1:
            gpus += f" (`{next(iter(totals.gpus))}`)"
        elif totals.gpus:
            gpus += " (" + ", ".join(f"{n} x `{r}`" for r, n in sorted(totals.gpus.items())) + ")"
        lines.append(f"| {label} | {gpus} | {_with_limit(format_cores(totals.cpu), cpu_limit)} | "
                     f"{_with_limit(format_bytes(totals.memory), memory_limit)} |")
    for part in plan.not_counted:
        lines += ["", f"Not counted: {part.obj.kind} `{part.obj.name}` ({part.pods_note}, which depends on the "
                      "cluster)."]
    note = _fit_note(plan)
    lines += ["", "#### GPU fit", "", f"{note[0].upper()}{note[1:]}. Findings: {_summary_text(plan)}.", ""]
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
    from dgdlint.cosmos import download_jobs

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
                detail.append(f"{_gpus_text(part)} per pod")
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
        detail = [part.pods_note] + ([f"{_gpus_text(part)} per pod"] if part.resources.gpus else [])
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


def render_json(plan: Plan) -> str:
    def part_dict(part: Part) -> dict:
        resources = part.resources
        return {
            "name": part.name, "type": part.type, "pods": part.pods, "pods_note": part.pods_note,
            "gpus": [{"resource": r, "per_pod": n} for r, n in resources.gpus.items()],
            "gpu_products": part.products,
            "cpu": {"request": float(resources.cpu),
                    "limit": float(resources.cpu_limit) if resources.cpu_limit is not None else None},
            "memory": {"request": resources.memory, "limit": resources.memory_limit},
            "shared_memory": part.shared_memory, "images": part.images,
            "streaming_endpoint": part.streaming_endpoint,
            "claims": [{"name": c.name, "mount_paths": c.mount_paths, "size": c.size, "size_bytes": c.size_bytes}
                       for c in part.claims],
            "not_quantities": resources.unparsed,
        }

    document = {
        "graphs": [{"name": g.graph.obj.name, "namespace": g.graph.obj.namespace,
                    "api_version": g.graph.obj.api_version, "file": g.graph.obj.file,
                    "components": [part_dict(p) for p in g.parts]} for g in plan.graphs],
        "workloads": [dict(part_dict(p), kind=p.obj.kind, namespace=p.obj.namespace, file=p.obj.file)
                      for p in plan.workloads],
        "claims": [{"name": c.name, "namespace": c.namespace, "size": c.size,
                    "size_bytes": quantity_bytes(c.size) if c.size else None, "access_modes": c.access_modes,
                    "storage_class": c.storage_class, "defined_by": c.defined_by} for c in plan.claims],
        "totals": plan.totals.to_dict(),
        "totals_without_jobs": plan.totals_without_jobs.to_dict(),
        "not_counted": [p.obj.ref for p in plan.not_counted],
        "gpu_fit_targets": plan.gpu_targets,
        "findings": [f.to_dict() for f in plan.findings],
    }
    return json.dumps(document, indent=2) + "\n"


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json}


# ---------------------------------------------------------------------------------------------
# Command line.


def build_parser() -> argparse.ArgumentParser:
    from dgdlint.cli import add_namespace_option, add_render_options

    parser = argparse.ArgumentParser(
        prog="dgdlint plan",
        description="Show what manifests will ask of the cluster (pods, GPUs, CPU, memory, claims, totals) and "
                    "check the GPUs they target.")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="YAML/JSON files, directories (recursive), or -")
    add_render_options(parser)
    add_namespace_option(parser)
    parser.add_argument("--format", choices=tuple(RENDERERS), default="text", help="output (default: text)")
    parser.add_argument("--output", metavar="FILE", help="write the plan to FILE instead of stdout")
    parser.add_argument("--crd", metavar="PATH_OR_URL", action="append", default=[],
                        help="also run the schema stage with this CRD (file, directory, URL or `cluster`; "
                             "repeatable; env DGDLINT_CRD)")
    return parser


def _usage(message: str) -> int:
    print(f"dgdlint plan: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exit_:  # argparse exits 2 on a usage error, 0 on --help
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    if not args.paths and not args.chart:
        return _usage("give at least one PATH (or - for stdin), or --chart DIR")
    if (args.values or args.set_values or args.set_string_values) and not args.chart:
        return _usage("-f/--values and --set need --chart")

    from dgdlint.load import LoadResult, UsageError, expand_paths, load_paths, load_text
    from dgdlint.model import build_model
    from dgdlint.report import write_report
    from dgdlint.schema import CrdError, SchemaStage, crd_sources_from_env

    crd_sources = args.crd or crd_sources_from_env()
    schema_stage = None
    if crd_sources:
        try:
            schema_stage = SchemaStage(crd_sources)
        except CrdError as error:
            return _usage(str(error))
    try:
        loaded = load_paths(expand_paths(args.paths)) if args.paths else LoadResult()
    except UsageError as error:
        return _usage(str(error))
    extra: list[Finding] = []
    if args.chart:
        from dgdlint.render import RenderError, RenderRequest, render_chart, render_finding

        request = RenderRequest(chart=args.chart, values_files=args.values, set_values=args.set_values,
                                set_string_values=args.set_string_values, release=args.release,
                                namespace=args.namespace)
        try:
            for template in render_chart(request, engine=args.engine):
                load_text(template.source, template.text, loaded)
        except RenderError as error:
            extra.append(render_finding(args.chart, str(error), args.values))
    plan = build_plan(build_model(loaded, args.namespace), extra, schema_stage)
    problem = write_report(RENDERERS[args.format](plan), args.output)
    if problem:
        return _usage(problem)
    return EXIT_FINDINGS if plan.errors else EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
