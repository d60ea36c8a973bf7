"""The normalized views: DGD components and graphs (whatever the API shape), workloads, claims (pod settings:
pod.py), and the Model that holds them with its per-model indexes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from dgdlint.findings import Finding
from dgdlint.model.claims import MadeClaim, made_claims
from dgdlint.model.objects import Container, KObject, as_list, as_map, as_str
from dgdlint.model.pod import PodSettings
from dgdlint.once import once
from dgdlint.release import NEWEST, Release


@dataclass
class Component:
    """A DGD component (v1alpha1 service or v1beta1 component)."""

    graph: Graph
    name: str
    type: str
    path: tuple
    replicas: int | None
    replicas_path: tuple
    main: Container
    pod: PodSettings
    sidecars: list[Container]
    init_containers: list[Container]
    shared_memory: str | None
    shared_memory_path: tuple
    runtime_version_override: str | None
    node_count: int

    @property
    def obj(self) -> KObject:
        return self.graph.obj

    @property
    def all_containers(self) -> list[Container]:
        """The main container, the sidecars, then the init containers."""
        return [self.main, *self.sidecars, *self.init_containers]

    @property
    def is_frontend(self) -> bool:
        return self.type == "frontend"

    @property
    def is_worker(self) -> bool:
        return self.type in ("worker", "decode", "prefill", "main") or (
            self.type not in ("frontend", "planner", "epp") and self.main.gpu_request() is not None
        )

    @property
    def pods(self) -> int:
        return (self.replicas if self.replicas is not None else 1) * max(self.node_count, 1)

    @once
    def label(self) -> str:
        return f"{self.graph.obj.label} component {self.name}"

    @property
    def name_path(self) -> tuple:
        """Where the component's name is written: the service's key (v1alpha1) or its `name` (v1beta1)."""
        return self.path if self.graph.shape == "services" else self.path + ("name",)

    @property
    def shared_memory_disabled(self) -> bool:
        """Shared memory turned off: v1alpha1 `sharedMemory.disabled: true`, or a size of zero."""
        raw = as_map(self.obj.get(self.path + ("sharedMemory",)))
        return self.graph.shape == "services" and raw.get("disabled") is True

    def own_volume_mounts(self) -> list[tuple[dict, tuple]]:
        """The component's own volume mounts of spec.pvcs claims (a v1alpha1 service's `volumeMounts`; a v1beta1
        component has only its containers' mounts), with their paths."""
        if self.graph.shape != "services":
            return []
        path = self.path + ("volumeMounts",)
        return [(as_map(mount), path + (index,)) for index, mount in enumerate(as_list(self.obj.get(path)))]

    def compilation_cache(self) -> tuple[str, str, tuple] | None:
        """(claim, mount path as written or "", where) of the compilation cache the operator gets: a v1beta1
        component's `compilationCache`, a v1alpha1 service's first volumeMount with useAsCompilationCache
        (the conversion makes it compilationCache, its name the pvcName, its mountPoint the mountPath)."""
        if self.graph.shape != "services":
            cache = self.obj.get(self.path + ("compilationCache",))
            if not isinstance(cache, dict):
                return None
            return (as_str(cache.get("pvcName")) or "", as_str(cache.get("mountPath")) or "",
                    self.path + ("compilationCache",))
        for mount, path in self.own_volume_mounts():
            if mount.get("useAsCompilationCache") is True:
                return as_str(mount.get("name")) or "", as_str(mount.get("mountPoint")) or "", path
        return None

    def own_resource_quantities(self):
        """(path, value) of each quantity in the component's own resources block (v1alpha1 services have one, of
        strings; a v1beta1 component's resources are its containers')."""
        if self.graph.shape != "services":
            return
        resources = as_map(self.obj.get(self.path + ("resources",)))
        for table in ("requests", "limits"):
            entries = as_map(resources.get(table))
            for key, value in entries.items():
                if key not in ("gpuType", "custom"):
                    yield self.path + ("resources", table, key), value
            for key, value in as_map(entries.get("custom")).items():
                yield self.path + ("resources", table, "custom", key), value


@dataclass
class Pvc:
    """A PVC the set creates: a PersistentVolumeClaim object, or a v1alpha1 `spec.pvcs` entry with create."""

    obj: KObject
    path: tuple
    name: str
    namespace: str
    access_modes: list[str]
    storage_class: str | None
    size: str | None


@dataclass
class Graph:
    """A DynamoGraphDeployment and its components, whichever API version writes it."""

    obj: KObject
    shape: str  # "services" (v1alpha1) or "components" (v1beta1)
    components: list[Component] = field(default_factory=list)
    pvc_entries: list[tuple[dict, tuple]] = field(default_factory=list)  # v1alpha1 spec.pvcs

    @property
    def spec(self) -> dict:
        return as_map(self.obj.value.get("spec"))

    @property
    def backend_framework(self) -> str | None:
        return as_str(self.spec.get("backendFramework"))

    @property
    def frontends(self) -> list[Component]:
        return [c for c in self.components if c.is_frontend]

    @property
    def workers(self) -> list[Component]:
        return [c for c in self.components if c.is_worker]

    @property
    def components_field(self) -> str:
        """The spec field that lists the components: `services` (v1alpha1) or `components` (v1beta1)."""
        return self.shape

    def listed_pvc_names(self) -> set[str]:
        return {as_str(entry.get("name")) for entry, _ in self.pvc_entries if as_str(entry.get("name"))}


@dataclass
class Workload:
    """A plain workload (Job, Pod, Deployment, ...) with its pod spec."""

    obj: KObject
    pod: PodSettings
    containers: list[Container]
    init_containers: list[Container]

    @property
    def all_containers(self) -> list[Container]:
        return self.init_containers + self.containers

    @property
    def label(self) -> str:
        return self.obj.label


@dataclass
class Model:
    """The checked set: its objects, graphs, workloads and claims, with the indexes rules share."""

    objects: list[KObject] = field(default_factory=list)
    graphs: list[Graph] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    pvcs: list[Pvc] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    release: Release = NEWEST  # the operator release the check is for (see release.py)
    stored: dict = field(default_factory=dict)  # on an update (dgdlint diff): the old side's objects, by ref
    _memo: dict = field(default_factory=dict, repr=False)

    def memo(self, key: str, compute):
        """An index computed once per model, so cross-object rules stay linear in the input."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def pod_owners(self) -> Iterator[Workload | Component]:
        """What makes pods: every workload, then every DynamoGraphDeployment's component (judged on the pod
        settings the operator copies into its pods). Each has `obj`, `label`, `pod` and `all_containers`."""
        yield from self.workloads
        for graph in self.graphs:
            yield from graph.components

    def jobs(self) -> list[Workload]:
        return self.memo("jobs", lambda: [w for w in self.workloads if w.obj.kind == "Job"])

    def made_claims(self) -> list[MadeClaim]:
        """Every PersistentVolumeClaim the set makes (model/claims.py): claim objects, the operator's claims
        of v1alpha1 spec.pvcs entries with create: true, and each claim of a StatefulSet's
        volumeClaimTemplates."""
        return self.memo("made-claims", lambda: made_claims(self.objects, self.graphs))

    def namespaces(self) -> set[str]:
        """The namespaces the set's namespaced objects land in (written, or the run's default)."""
        return self.memo("namespaces", lambda: {o.namespace for o in self.objects if not o.cluster_scoped})

    def qualified(self, namespace: str, name: str) -> str:
        """How a message names a namespaced object: `namespace/name` where the set spans namespaces (two
        claims of one name may then be meant), else its name."""
        return f"{namespace}/{name}" if len(self.namespaces()) > 1 else name

    def label(self, obj) -> str:
        """obj.label with `namespace/name` where the set spans namespaces (`PersistentVolumeClaim ns/cache`)."""
        if obj.cluster_scoped or not obj.name:
            return obj.label
        return f"{obj.kind} {self.qualified(obj.namespace, obj.name)}"

    def pvc(self, namespace: str, name: str) -> Pvc | None:
        index = self.memo("pvcs", lambda: {(c.namespace, c.name): c for c in reversed(self.pvcs)})
        return index.get((namespace, name))

    def declared_env(self) -> list:
        """(who, container, entry) for each env entry as written, once: a graph-level entry reaches every
        component's container and is named by its graph, any other by the component or workload."""
        return self.memo("declared-env", self._declared_env)

    def _declared_env(self) -> list:
        found, seen = [], set()
        for owner, container, _pod in self.all_containers():
            obj = container.obj
            for entry in container.env:
                key = (id(obj), entry.path)
                if key not in seen:
                    seen.add(key)
                    found.append((obj.label if entry.origin == "graph" else owner.label, container, entry))
        return found

    def all_containers(self):
        """(owner label, obj, container, pod settings) for every container of every DGD and workload."""
        for graph in self.graphs:
            for component in graph.components:
                for container in component.all_containers:
                    yield component, container, component.pod
        for workload in self.workloads:
            for container in workload.all_containers:
                yield workload, container, workload.pod
