"""Building the model from loaded documents: the only place that reads apiVersion and the two DGD shapes
(v1alpha1 `spec.services`, v1beta1 `spec.components`)."""

from __future__ import annotations

from dgdlint.load import LoadResult
from dgdlint.model.decoded import zero_null_quantities
from dgdlint.model.documents import objects_of
from dgdlint.model.graph import Component, Graph, Model, Pvc, Workload
from dgdlint.model.objects import (
    DEFAULT_GPU_RESOURCE,
    DGD_KIND,
    DYNAMO_GROUP,
    WORKLOAD_POD_SPEC,
    Container,
    EnvVar,
    KObject,
    Mount,
    as_list,
    as_map,
    as_str,
    mount_fields,
)
from dgdlint.model.pod import PodSettings


def build_model(loaded: LoadResult, default_namespace: str = "default") -> Model:
    model = Model(findings=list(loaded.findings), files=list(loaded.files))
    for document in loaded.documents:
        for obj in objects_of(document, default_namespace, model):
            if document.has_null:
                zero_null_quantities(obj.group, obj.kind, obj.value)
            model.objects.append(obj)
    return _index(model)


def model_of(objects: list[KObject]) -> Model:
    """A model of objects made elsewhere than from files (a rule's view of a graph as another reader sees it)."""
    return _index(Model(objects=list(objects)))


def _index(model: Model) -> Model:
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


def _env_entries(obj: KObject, raw: object, path: tuple, origin: str) -> list[EnvVar]:
    entries = []
    for index, item in enumerate(raw if type(raw) is list else as_list(raw)):  # (the quick test first)
        if not isinstance(item, dict):
            continue
        name = item.get("name")
        if type(name) is not str:
            name = as_str(name)
        if not name:
            continue
        value_from = item.get("valueFrom")
        value_from = value_from if isinstance(value_from, dict) else None
        raw = item.get("value")  # missing and null alike are "" (the API server prunes or zeroes a null)
        text = raw if type(raw) is str else as_str(raw)
        value = None if value_from is not None else ("" if raw is None else text)
        written = bool(text) and isinstance(raw, (str, int, float))
        entries.append(EnvVar(name, value, value_from, path + (index,), origin, written))
    return entries


def _strings(value: object) -> list[str]:
    return [text for text in (as_str(item) for item in as_list(value)) if text is not None]


def container_of(obj: KObject, raw: object, path: tuple, volumes: dict | None = None) -> Container:
    """A container written elsewhere than a pod's container list (a conversion record's), read as the model
    reads one; `path` is where it is said to be in `obj`, `volumes` the pod's (name -> (volume, path))."""
    return _container(obj, raw, path, volumes=volumes)


def _container(obj: KObject, raw: object, path: tuple, env_prefix: list[EnvVar] | None = None,
               volumes: dict | None = None) -> Container:
    raw = as_map(raw)
    resources = as_map(raw.get("resources"))
    container = Container(
        obj=obj, path=path, name=as_str(raw.get("name")) or "", image=as_str(raw.get("image")),
        image_path=path + ("image",), command=_strings(raw.get("command")), args=_strings(raw.get("args")),
        working_dir=as_str(raw.get("workingDir")), raw=raw,
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
                                      path + ("volumeMounts", index), claim, mount.get("readOnly") is True,
                                      mount_fields(mount)))
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
    # A null field is no field: the API server prunes it before anyone reads the object.
    if spec.get("components") is not None or (spec.get("services") is None and obj.version != "v1alpha1"):
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
    # Only the container named `main` is the main one: the pod builder merges that one into its main container
    # and keeps every other as a sidecar (graph.go GenerateBasePodSpec), and the webhook reads that one's image
    # (shared_helpers.go runtimeVersionImageAndPath). A lone container of another name is a sidecar too.
    main_index = next((i for i, c in enumerate(containers) if as_map(c).get("name") == "main"), None)
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
