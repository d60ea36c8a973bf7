"""One normalized view of a set of manifests.

A DynamoGraphDeployment reads the same whatever its shape (v1alpha1 `spec.services` or v1beta1
`spec.components`): components with a type, replicas, a main container (image, command, args, env
with where each value came from, resources, mounts) and pod settings. Jobs, Pods and other
workloads share the container and pod views; PVCs, Secrets and the rest stay plain objects.
Only this module looks at apiVersion. Every accessor tolerates wrong types, because rules run on
objects that may have failed the schema stage."""

from __future__ import annotations

from dataclasses import dataclass, field

from dgdlint.findings import Finding, Location
from dgdlint.load import Document, LoadResult, format_path

DGD_KIND = "DynamoGraphDeployment"
DYNAMO_GROUP = "nvidia.com"
DEFAULT_GPU_RESOURCE = "nvidia.com/gpu"
WORKLOAD_POD_SPEC = {
    "Pod": ("spec",),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
}


def as_map(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list:
    return value if isinstance(value, list) else []


def as_str(value: object) -> str | None:
    """Scalars as the API server would coerce them for a string field; collections are None."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


@dataclass
class KObject:
    """A Kubernetes object in the input set, with the document it came from."""

    doc: Document
    base: tuple  # path of this object inside its document (non-empty for `kind: List` items)
    value: dict
    default_namespace: str

    @property
    def kind(self) -> str:
        return as_str(self.value.get("kind")) or ""

    @property
    def api_version(self) -> str:
        return as_str(self.value.get("apiVersion")) or ""

    @property
    def group(self) -> str:
        return self.api_version.split("/", 1)[0] if "/" in self.api_version else ""

    @property
    def version(self) -> str:
        return self.api_version.rsplit("/", 1)[-1]

    @property
    def metadata(self) -> dict:
        return as_map(self.value.get("metadata"))

    @property
    def name(self) -> str:
        return as_str(self.metadata.get("name")) or as_str(self.metadata.get("generateName")) or ""

    @property
    def namespace(self) -> str:
        return as_str(self.metadata.get("namespace")) or self.default_namespace

    @property
    def annotations(self) -> dict:
        return as_map(self.metadata.get("annotations"))

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}"

    @property
    def label(self) -> str:
        """How messages name the object: `Job cosmos3-reasoner-download`."""
        return f"{self.kind} {self.name}" if self.name else self.kind

    @property
    def file(self) -> str:
        return self.doc.file

    def position(self, path: tuple) -> tuple[int, int]:
        return self.doc.position(self.base + tuple(path))

    def location(self, path: tuple, note: str = "") -> Location:
        line, column = self.position(path)
        return Location(self.file, line, column, format_path(path), note)

    def get(self, path: tuple) -> object:
        node: object = self.value
        for part in path:
            if isinstance(part, int):
                node = node[part] if isinstance(node, list) and -len(node) <= part < len(node) else None
            else:
                node = node.get(part) if isinstance(node, dict) else None
            if node is None:
                return None
        return node


@dataclass
class EnvVar:
    name: str
    value: str | None  # None when the value comes from valueFrom (or is missing)
    value_from: dict | None
    path: tuple  # the entry's path in its object
    origin: str  # "graph", "component", "container"

    @property
    def is_literal(self) -> bool:
        return self.value_from is None


@dataclass
class Mount:
    volume: str
    mount_path: str | None
    sub_path: str | None
    path: tuple
    claim: str | None = None  # the PVC behind the mount, when it can be resolved


@dataclass
class Container:
    obj: KObject
    path: tuple
    name: str
    image: str | None
    image_path: tuple
    command: list[str]
    args: list[str]
    working_dir: str | None
    env: list[EnvVar] = field(default_factory=list)
    env_lists: list[tuple[tuple, list]] = field(default_factory=list)  # raw lists, for duplicate checks
    requests: dict[str, tuple[str, tuple]] = field(default_factory=dict)  # resource -> (quantity, path)
    limits: dict[str, tuple[str, tuple]] = field(default_factory=dict)
    mounts: list[Mount] = field(default_factory=list)
    env_anchor: tuple = ()  # where this container's env is declared (v1alpha1: the service's envs)

    def env_path(self, name: str) -> tuple:
        """Where a finding about env `name` points: its effective entry, else the env list it belongs in."""
        entry = self.env_var(name)
        return entry.path if entry is not None else (self.env_anchor or self.path)

    def env_var(self, name: str) -> EnvVar | None:
        """The effective entry for `name` (later sources override earlier ones, as the operator merges)."""
        found = None
        for entry in self.env:
            if entry.name == name:
                found = entry
        return found

    def env_value(self, name: str) -> str | None:
        entry = self.env_var(name)
        return entry.value if entry is not None else None

    @property
    def command_line(self) -> list[str]:
        return self.command + self.args

    def gpu_request(self) -> tuple[str, int, tuple] | None:
        """(resource name, count, path) of the GPU-like extended resource this container asks for."""
        for table in (self.limits, self.requests):
            for resource, (quantity, path) in table.items():
                if _is_gpu_resource(resource):
                    return resource, parse_count(quantity), path
        return None


def _is_gpu_resource(resource: str) -> bool:
    return resource.endswith("/gpu") or "/mig-" in resource or resource.startswith("gpu.")


def canonical_json(value: object, unordered: bool = False) -> str:
    """Comparable text of a manifest value (keys sorted); `unordered` for lists whose order means nothing,
    such as tolerations."""
    import json

    if unordered and isinstance(value, list):
        return json.dumps(sorted(json.dumps(item, sort_keys=True, default=str) for item in value))
    return json.dumps(value, sort_keys=True, default=str)


def parse_count(quantity: str | None) -> int:
    try:
        return int(float(quantity)) if quantity is not None else 0
    except (ValueError, OverflowError):  # "INF" or "1e400" is no count either
        return 0


@dataclass
class PodSettings:
    obj: KObject
    path: tuple  # the PodSpec's path (for v1alpha1, extraPodSpec)
    spec: dict

    def field_path(self, name: str) -> tuple:
        return self.path + (name,)

    @property
    def node_selector(self) -> dict:
        return as_map(self.spec.get("nodeSelector"))

    @property
    def tolerations(self) -> list:
        return as_list(self.spec.get("tolerations"))

    @property
    def affinity(self) -> dict:
        return as_map(self.spec.get("affinity"))

    @property
    def image_pull_secrets(self) -> list[str]:
        names = []
        for entry in as_list(self.spec.get("imagePullSecrets")):
            name = as_str(as_map(entry).get("name"))
            if name:
                names.append(name)
        return names

    @property
    def service_account(self) -> str | None:
        return as_str(self.spec.get("serviceAccountName")) or as_str(self.spec.get("serviceAccount"))

    @property
    def node_name(self) -> str | None:
        return as_str(self.spec.get("nodeName"))

    def volumes(self) -> dict[str, tuple[dict, tuple]]:
        out = {}
        for index, volume in enumerate(as_list(self.spec.get("volumes"))):
            name = as_str(as_map(volume).get("name"))
            if name:
                out[name] = (as_map(volume), self.path + ("volumes", index))
        return out


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

    @property
    def label(self) -> str:
        return f"{self.graph.obj.label} component {self.name}"


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
    objects: list[KObject] = field(default_factory=list)
    graphs: list[Graph] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    pvcs: list[Pvc] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    _memo: dict = field(default_factory=dict, repr=False)

    def memo(self, key: str, compute):
        """An index computed once per model, so cross-object rules stay linear in the input."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def jobs(self) -> list[Workload]:
        return self.memo("jobs", lambda: [w for w in self.workloads if w.obj.kind == "Job"])

    def pvc(self, namespace: str, name: str) -> Pvc | None:
        index = self.memo("pvcs", lambda: {(c.namespace, c.name): c for c in reversed(self.pvcs)})
        return index.get((namespace, name))

    def all_containers(self):
        """(owner label, obj, container, pod settings) for every container of every DGD and workload."""
        for graph in self.graphs:
            for component in graph.components:
                for container in [component.main, *component.sidecars, *component.init_containers]:
                    yield component, container, component.pod
        for workload in self.workloads:
            for container in workload.all_containers:
                yield workload, container, workload.pod


# ---------------------------------------------------------------------------------------------
# Building the model.


def build_model(loaded: LoadResult, default_namespace: str = "default") -> Model:
    model = Model(findings=list(loaded.findings), files=list(loaded.files))
    for document in loaded.documents:
        for obj in _objects_of(document, default_namespace, model):
            model.objects.append(obj)
    for obj in model.objects:
        if obj.kind == DGD_KIND and obj.group == DYNAMO_GROUP:
            model.graphs.append(_build_graph(obj))
        elif obj.kind in WORKLOAD_POD_SPEC:
            model.workloads.append(_build_workload(obj))
        elif obj.kind == "PersistentVolumeClaim":
            spec = as_map(obj.value.get("spec"))
            storage = as_str(as_map(as_map(spec.get("resources")).get("requests")).get("storage"))
            model.pvcs.append(Pvc(obj, (), obj.name, obj.namespace,
                                  [m for m in (as_str(x) for x in as_list(spec.get("accessModes"))) if m],
                                  as_str(spec.get("storageClassName")), storage))
    for graph in model.graphs:
        # The graph-level env list reaches every component's main container: check its duplicates there too
        # (duplicate-env reports each list once, whatever the number of containers it reaches).
        key = "env" if graph.shape == "components" else "envs"
        raw_env = graph.spec.get(key)
        if isinstance(raw_env, list):
            for component in graph.components:
                component.main.env_lists.insert(0, (("spec", key), raw_env))
        for entry, path in graph.pvc_entries:
            if entry.get("create") is True and as_str(entry.get("name")):
                mode = as_str(entry.get("volumeAccessMode"))
                model.pvcs.append(Pvc(graph.obj, path, as_str(entry.get("name")), graph.obj.namespace,
                                      [mode] if mode else [], as_str(entry.get("storageClass")),
                                      as_str(entry.get("size"))))
    return model


def _objects_of(document: Document, default_namespace: str, model: Model):
    value = document.value
    if not isinstance(value, dict):
        kind = "a list" if isinstance(value, list) else "a scalar"
        model.findings.append(Finding(
            rule="not-an-object", severity="error", stage="parse", file=document.file,
            line=document.line, column=document.column, path="",
            message=f"document {document.index + 1} is {kind}, not a Kubernetes object (a mapping)",
            remediation="Each YAML document must be one object with apiVersion, kind and metadata."))
        return
    kind = as_str(value.get("kind"))
    if kind and kind.endswith("List") and isinstance(value.get("items"), list) and "apiVersion" in value:
        for index, item in enumerate(value["items"]):
            base = ("items", index)
            if isinstance(item, dict) and as_str(item.get("kind")) and as_str(item.get("apiVersion")):
                yield KObject(document, base, item, default_namespace)
            else:
                line, column = document.position(base)
                model.findings.append(Finding(
                    rule="not-an-object", severity="error", stage="parse", file=document.file,
                    line=line, column=column, path=format_path(base),
                    message=f"item {index} of {kind} is not a Kubernetes object with apiVersion and kind",
                    remediation="Give every list item apiVersion and kind."))
        return
    missing = [key for key in ("apiVersion", "kind") if not as_str(value.get(key))]
    if missing:
        model.findings.append(Finding(
            rule="not-an-object", severity="error", stage="parse", file=document.file,
            line=document.line, column=document.column, path="",
            message=f"document {document.index + 1} has no {' or '.join(missing)}: not a Kubernetes object",
            remediation="Add apiVersion and kind (for example `apiVersion: nvidia.com/v1beta1`, "
                        "`kind: DynamoGraphDeployment`)."))
        return
    yield KObject(document, (), value, default_namespace)


def _env_entries(obj: KObject, raw: object, path: tuple, origin: str) -> list[EnvVar]:
    entries = []
    for index, item in enumerate(as_list(raw)):
        item = as_map(item)
        name = as_str(item.get("name"))
        if not name:
            continue
        value_from = item.get("valueFrom") if isinstance(item.get("valueFrom"), dict) else None
        value = None if value_from is not None else (as_str(item.get("value")) if "value" in item else "")
        entries.append(EnvVar(name, value, value_from, path + (index,), origin))
    return entries


def _strings(value: object) -> list[str]:
    return [text for text in (as_str(item) for item in as_list(value)) if text is not None]


def _container(obj: KObject, raw: object, path: tuple, env_prefix: list[EnvVar] | None = None,
               volumes: dict | None = None) -> Container:
    raw = as_map(raw)
    resources = as_map(raw.get("resources"))
    container = Container(
        obj=obj, path=path, name=as_str(raw.get("name")) or "", image=as_str(raw.get("image")),
        image_path=path + ("image",), command=_strings(raw.get("command")), args=_strings(raw.get("args")),
        working_dir=as_str(raw.get("workingDir")),
    )
    container.env = list(env_prefix or []) + _env_entries(obj, raw.get("env"), path + ("env",), "container")
    container.env_anchor = path + ("env",) if isinstance(raw.get("env"), list) else path
    if isinstance(raw.get("env"), list):
        container.env_lists.append((path + ("env",), raw["env"]))
    for table_name in ("requests", "limits"):
        table = getattr(container, table_name)
        for resource, quantity in as_map(resources.get(table_name)).items():
            text = as_str(quantity)
            if text is not None:
                table[str(resource)] = (text, path + ("resources", table_name, resource))
    for index, mount in enumerate(as_list(raw.get("volumeMounts"))):
        mount = as_map(mount)
        volume = as_str(mount.get("name"))
        if not volume:
            continue
        claim = None
        if volumes and volume in volumes:
            claim = as_str(as_map(volumes[volume][0].get("persistentVolumeClaim")).get("claimName"))
        container.mounts.append(Mount(volume, as_str(mount.get("mountPath")), as_str(mount.get("subPath")),
                                      path + ("volumeMounts", index), claim))
    return container


def _build_workload(obj: KObject) -> Workload:
    spec_path = WORKLOAD_POD_SPEC[obj.kind]
    spec = as_map(obj.get(spec_path))
    pod = PodSettings(obj, spec_path, spec)
    volumes = pod.volumes()
    containers = [_container(obj, raw, spec_path + ("containers", i), volumes=volumes)
                  for i, raw in enumerate(as_list(spec.get("containers")))]
    inits = [_container(obj, raw, spec_path + ("initContainers", i), volumes=volumes)
             for i, raw in enumerate(as_list(spec.get("initContainers")))]
    return Workload(obj, pod, containers, inits)


def _build_graph(obj: KObject) -> Graph:
    spec = as_map(obj.value.get("spec"))
    if "components" in spec or ("services" not in spec and obj.version != "v1alpha1"):
        graph = Graph(obj, "components")
        graph_env = _env_entries(obj, spec.get("env"), ("spec", "env"), "graph")
        for index, raw in enumerate(as_list(spec.get("components"))):
            graph.components.append(_v1beta1_component(graph, as_map(raw), ("spec", "components", index), graph_env))
    else:
        graph = Graph(obj, "services")
        graph_env = _env_entries(obj, spec.get("envs"), ("spec", "envs"), "graph")
        for name, raw in as_map(spec.get("services")).items():
            graph.components.append(_v1alpha1_service(graph, str(name), as_map(raw), ("spec", "services", name),
                                                      graph_env))
        for index, entry in enumerate(as_list(spec.get("pvcs"))):
            graph.pvc_entries.append((as_map(entry), ("spec", "pvcs", index)))
    return graph


def _replicas(raw: dict) -> int | None:
    value = raw.get("replicas")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _node_count(raw: dict) -> int:
    count = as_map(raw.get("multinode")).get("nodeCount")
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1


def _v1beta1_component(graph: Graph, raw: dict, path: tuple, graph_env: list[EnvVar]) -> Component:
    obj = graph.obj
    spec_path = path + ("podTemplate", "spec")
    spec = as_map(as_map(raw.get("podTemplate")).get("spec"))
    pod = PodSettings(obj, spec_path, spec)
    volumes = pod.volumes()
    containers = as_list(spec.get("containers"))
    main_index = next((i for i, c in enumerate(containers) if as_map(c).get("name") == "main"),
                      0 if len(containers) == 1 else None)
    if main_index is None:
        main = _container(obj, {}, spec_path + ("containers",), graph_env, volumes)
        main.env = list(graph_env)
    else:
        main = _container(obj, containers[main_index], spec_path + ("containers", main_index), graph_env, volumes)
    sidecars = [_container(obj, c, spec_path + ("containers", i), volumes=volumes)
                for i, c in enumerate(containers) if i != main_index]
    inits = [_container(obj, c, spec_path + ("initContainers", i), volumes=volumes)
             for i, c in enumerate(as_list(spec.get("initContainers")))]
    return Component(
        graph=graph, name=as_str(raw.get("name")) or "", type=as_str(raw.get("type")) or "", path=path,
        replicas=_replicas(raw), replicas_path=path + ("replicas",), main=main, pod=pod, sidecars=sidecars,
        init_containers=inits, shared_memory=as_str(raw.get("sharedMemorySize")),
        shared_memory_path=path + ("sharedMemorySize",),
        runtime_version_override=as_str(raw.get("runtimeVersionOverride")), node_count=_node_count(raw))


_V1ALPHA1_RESOURCE_KEYS = {"cpu": "cpu", "memory": "memory"}


def _v1alpha1_service(graph: Graph, name: str, raw: dict, path: tuple, graph_env: list[EnvVar]) -> Component:
    obj = graph.obj
    spec_path = path + ("extraPodSpec",)
    spec = as_map(raw.get("extraPodSpec"))
    pod = PodSettings(obj, spec_path, spec)
    volumes = pod.volumes()
    service_env = _env_entries(obj, raw.get("envs"), path + ("envs",), "component")
    main = _container(obj, spec.get("mainContainer"), spec_path + ("mainContainer",), graph_env + service_env,
                      volumes)
    if isinstance(raw.get("envs"), list):
        main.env_lists.insert(0, (path + ("envs",), raw["envs"]))
    if isinstance(raw.get("envs"), list) or not isinstance(as_map(spec.get("mainContainer")).get("env"), list):
        main.env_anchor = path + ("envs",) if isinstance(raw.get("envs"), list) else path
    # Service-level resources: {requests, limits}: {cpu, memory, gpu, gpuType, custom}.
    resources = as_map(raw.get("resources"))
    for table_name in ("requests", "limits"):
        table_path = path + ("resources", table_name)
        source = as_map(resources.get(table_name))
        table: dict[str, tuple[str, tuple]] = {}
        for key, resource in _V1ALPHA1_RESOURCE_KEYS.items():
            text = as_str(source.get(key))
            if text is not None:
                table[resource] = (text, table_path + (key,))
        gpu = as_str(source.get("gpu"))
        if gpu is not None:
            gpu_type = as_str(source.get("gpuType")) or DEFAULT_GPU_RESOURCE
            table[gpu_type] = (gpu, table_path + ("gpu",))
        for resource, quantity in as_map(source.get("custom")).items():
            text = as_str(quantity)
            if text is not None:
                table[str(resource)] = (text, table_path + ("custom", resource))
        table.update(getattr(main, table_name))  # mainContainer.resources win, as the operator merges them
        setattr(main, table_name, table)
    for index, mount in enumerate(as_list(raw.get("volumeMounts"))):
        mount = as_map(mount)
        volume = as_str(mount.get("name"))
        if volume:
            main.mounts.append(Mount(volume, as_str(mount.get("mountPoint")), None, path + ("volumeMounts", index),
                                     claim=volume))
    sidecars = [_container(obj, c, spec_path + ("containers", i), volumes=volumes)
                for i, c in enumerate(as_list(spec.get("containers")))]
    inits = [_container(obj, c, spec_path + ("initContainers", i), volumes=volumes)
             for i, c in enumerate(as_list(spec.get("initContainers")))]
    shared = as_map(raw.get("sharedMemory"))
    return Component(
        graph=graph, name=name, type=as_str(raw.get("componentType")) or "", path=path,
        replicas=_replicas(raw), replicas_path=path + ("replicas",), main=main, pod=pod, sidecars=sidecars,
        init_containers=inits, shared_memory=as_str(shared.get("size")),
        shared_memory_path=path + ("sharedMemory", "size"),
        runtime_version_override=as_str(raw.get("runtimeVersionOverride")), node_count=_node_count(raw))
