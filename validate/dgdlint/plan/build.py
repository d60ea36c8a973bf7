"""Building the plan: one part per DGD component or workload, the claims, the totals, and the findings in
its scope (parse, schema, GPU fit). Writing it is dgdlint.report.plan_text, plan_markdown and plan_json."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal

from dgdlint.findings import Finding
from dgdlint.model import Component, Container, Graph, KObject, Model, PodSettings, Workload, as_map, as_str
from dgdlint.plan.phases import install_step, is_helm_test_hook
from dgdlint.plan.resources import PodResources, pod_resources
from dgdlint.quantity import parse_quantity, quantity_bytes

STREAMING_ENDPOINT = "NIM_DYNAMO_STREAMING_ENDPOINT"
OPERATOR_SHARED_MEMORY = "8Gi"  # what the Dynamo operator mounts at /dev/shm when a component sets nothing
DASH = "-"



@dataclass
class ClaimUse:
    name: str
    mount_paths: list[str]
    size: str | None  # None: the claim is not defined in this set of manifests
    namespace: str = ""  # the mounting pod's, where the claim must be

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

    def peak(self, other: Totals) -> Totals:
        """What two phases that never overlap ask for at most: the larger of each, resource by resource."""
        def larger(a, b):
            return None if a is None or b is None else max(a, b)

        gpus = {resource: max(self.gpus.get(resource, 0), other.gpus.get(resource, 0))
                for resource in {*self.gpus, *other.gpus}}
        return Totals(gpus, max(self.cpu, other.cpu), larger(self.cpu_limit, other.cpu_limit),
                      max(self.memory, other.memory), larger(self.memory_limit, other.memory_limit))

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
    totals_first_install: Totals  # step by step (hooks, then waves): the largest step
    has_install_hooks: bool  # some hook finishes before a later step (else the first install is `totals`)
    first_install_order: str | None  # "helm" (its hooks), "argo-cd" (its hooks and waves), None (all at once)
    findings: list[Finding]
    gpu_targets: int  # how many NIM workers and download Jobs name a GPU product
    not_counted: list[Part]

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")


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
        out.append(ClaimUse(name, paths, pvc.size if pvc else None, obj.namespace))
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
    from dgdlint.gpu import selected_products

    selection = selected_products(pod)
    return selection.products if selection is not None else None


def _component_shared_memory(component: Component) -> str:
    if component.shared_memory_disabled:
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
    from dgdlint.gpu import gpu_targets

    graphs = [GraphPlan(graph, [component_part(model, c) for c in graph.components]) for graph in model.graphs
              if not is_helm_test_hook(graph.obj)]
    workloads = [workload_part(model, w) for w in model.workloads if not is_helm_test_hook(w.obj)]
    claims = [ClaimPlan(p.name, p.namespace, p.size, p.access_modes, p.storage_class,
                        "PersistentVolumeClaim" if not p.path else f"{p.obj.label} spec.pvcs")
              for p in model.pvcs if not is_helm_test_hook(p.obj)]
    totals, steady = Totals(), Totals()
    not_counted, steps = [], []
    for part in [p for g in graphs for p in g.parts] + workloads:
        if part.pods is None:
            not_counted.append(part)
            continue
        totals.add(part)
        if not part.is_job:
            steady.add(part)
        step = install_step(part.obj)
        if step is not None:
            steps.append((step, part))
    first_install, sequenced = _first_install(steps)
    order = ("argo-cd" if any(step.argo for step, _part in steps) else "helm") if sequenced else None
    findings = plan_findings(model, list(extra_findings), schema_stage)
    return Plan(model, graphs, workloads, claims, totals, steady, first_install, sequenced, order, findings,
                len(gpu_targets(model)), not_counted)


def _first_install(steps: list) -> tuple[Totals, bool]:
    """What a first install asks for at most, step by step: the parts of the step, and what earlier steps
    left running (a hook has finished); and whether some hook finishes before a later step starts (else the
    first install is every pod at once). One pass over the steps in order, however many waves there are."""
    by_key: dict[tuple[int, int], list] = {}
    for step, part in steps:
        by_key.setdefault((step.stage, step.wave), []).append((step, part))
    peak, staying = Totals(), Totals()
    for key in sorted(by_key):
        here = replace(staying, gpus=dict(staying.gpus))
        for step, part in by_key[key]:
            here.add(part)
            if not step.passes:
                staying.add(part)
        peak = peak.peak(here)
    last = max(by_key, default=None)
    sequenced = any(step.passes and (step.stage, step.wave) < last for step, _part in steps)
    return peak, sequenced


def plan_findings(model: Model, extra: list[Finding], schema_stage=None) -> list[Finding]:
    """Parse findings, schema findings (with a CRD) and the GPU fit rules' findings; the command applies the
    policy (annotations, configuration, baseline) to them as to any command's findings."""
    from dgdlint.rules import REGISTRY, run_rules

    findings = list(model.findings) + extra
    if schema_stage is not None:
        findings += schema_stage.check(model.objects)
    findings += run_rules(model, [r for r in REGISTRY.values() if r.family == "gpu"])
    return sorted(findings, key=Finding.sort_key)


def in_plan_scope(finding: Finding) -> bool:
    """What a plan reports: parse and schema findings and the GPU fit rules', nothing of the other rules."""
    from dgdlint.rules import REGISTRY

    rule_ = REGISTRY.get(finding.rule)
    return finding.stage in ("parse", "schema") or (rule_ is not None and rule_.family == "gpu")
