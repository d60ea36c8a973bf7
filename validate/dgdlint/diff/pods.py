"""A component's pod as the operator builds it, whatever API version the manifest is written in: what
`dgdlint diff` compares for diff-sessions-lost, each value with the path where the user's file holds it.

A v1alpha1 service reaches the operator converted (ConvertTo, api/v1alpha1/shared_spec_conversion.go,
operator commit 2a6da14), with the v1beta1 fields its `nvidia.com/dgd-spec` record restores (hub_restore):

- the `main` container from the service's envs, resources, volumeMounts and extraPodSpec.mainContainer
  (as the model reads it), unless the conversion drops it (dropGeneratedMainContainer); an
  extraPodSpec container named `main` gives way to it (buildSharedPodTemplateFromAlpha);
- a `frontendSidecar` as a container `sidecar-frontend` (image, args, envs) unless one of that name is
  written (appendFrontendSidecar); the record's `sidecar-frontend` lends it command, workingDir, resources
  and mounts (restoreSharedHubOnlyFrontendSidecarContainerFields);
- the record's containers the service does not build, as they are in the record (their path is the
  record annotation's: that is where the user's file holds them);
- `sharedMemory` as `sharedMemorySize`: `disabled: true` is 0, a zero size is none (ConvertFromSharedMemorySpec).

- the main container's envFrom and probes, a generated sidecar's envFrom and what the record lends it, and
  the fields the record restores on the mounts made of the service's volumeMounts (diff.converted).

On both versions the compilation cache (the model's reading, Component.compilation_cache) is mounted on
`main` as the operator renders the pod (graph.go applyCompilationCache): at its mountPath, else the
default of the backend framework the pod builder gets (rules.compilation_cache.pod_framework), a mount of
the cache's claim without a path taking that path; a cache with neither builds no pod, and nothing is
compared of it. Only a container named `main` is the main one (graph.go GenerateBasePodSpec): a pod
without one, even of one container, has an empty main container and all its containers as sidecars.
The other containers keep the order the pod gets (diff.views compares it): as written (v1beta1); a v1alpha1
service's extraPodSpec containers, then its generated `sidecar-frontend`, then the record's."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from dgdlint.diff.converted import converted_main, lend_probes_and_env_from, restore_flat_mount_fields, sidecar_env_from
from dgdlint.hub_containers import MAIN, name_only
from dgdlint.hub_restore import HubRestore, RestoredComponentView
from dgdlint.model import Component, Container, Mount, PodSettings, as_list, as_map, as_str, container_of
from dgdlint.quantity import parse_quantity
from dgdlint.rules.compilation_cache import DEFAULT_MOUNT_POINTS, pod_framework
from dgdlint.webhook_component import FRONTEND_SIDECAR_CONTAINER, ComponentView
from dgdlint.webhook_model import GraphView


@dataclass
class Pod:
    component: Component  # the model's component (name, label, replicas)
    main: Container
    containers: list[Container]  # the others
    init_containers: list[Container]
    shared_memory: tuple[str | None, tuple]
    settings: PodSettings
    count: int  # pods: replicas times the node count, as the operator reads them (multinode: {} is 2 nodes)
    # container name (`main` for the main container) -> field -> where the user's file writes it, where that
    # is not under the container's path (a mount's fields: `mount <path>`)
    field_paths: dict[str, dict[str, tuple]] = field(default_factory=dict)


def components_of(view: GraphView) -> dict[str, ComponentView]:
    """The components the operator gets, by name (a null v1alpha1 service converts to none)."""
    return {c.component.name: c for c in view.components if not view.alpha or c.obj.get(c.path) is not None}


def pods_of(view: GraphView) -> dict[str, Pod]:
    """Component name -> its pod as the operator builds it."""
    return {name: pod_of(component) for name, component in components_of(view).items()}


def pod_of(view: ComponentView) -> Pod:
    component = view.component
    count = view.replicas * max(view.node_count, 1)
    if not view.alpha:
        pod = Pod(component, component.main, list(component.sidecars), list(component.init_containers),
                  (component.shared_memory, component.shared_memory_path), component.pod, count)
    else:
        pod = _converted(view, count)
    _mount_compilation_cache(view, pod)
    # appendMissingPVCVolumesForMounts: a main container's mount of no pod volume gets a claim volume of its name
    volumes = pod.settings.volumes()
    pod.main = replace(pod.main, mounts=[replace(m, claim=m.volume) if m.claim is None and m.volume not in volumes
                                         else m for m in pod.main.mounts])
    return pod


def _hub(view: ComponentView) -> HubRestore | None:
    return view.hub if isinstance(view, RestoredComponentView) else None


def _main_dropped(view: ComponentView) -> bool:
    hub = _hub(view)
    return hub is not None and hub.main_dropped


def _converted(view: ComponentView, count: int) -> Pod:
    component, raw, hub = view.component, view.raw, _hub(view)
    containers = [c for c in component.sidecars if c.name != MAIN]
    sidecar = raw.get("frontendSidecar")
    paths: dict[str, dict[str, tuple]] = {}
    if isinstance(sidecar, dict) and not any(c.name == FRONTEND_SIDECAR_CONTAINER for c in containers):
        paths[FRONTEND_SIDECAR_CONTAINER] = {"command": component.path + ("frontendSidecar", "args")}
        containers.append(sidecar_env_from(_frontend_sidecar(component, sidecar), sidecar,
                                           component.path + ("frontendSidecar",), paths[FRONTEND_SIDECAR_CONTAINER]))
    main = converted_main(component, component.main, paths.setdefault(MAIN, {}))
    if hub is not None:
        record = as_list(as_map(as_map(hub.saved.get("podTemplate")).get("spec")).get("containers"))
        volumes = _volumes(component)
        if isinstance(sidecar, dict):
            containers = [_lend(c, record, hub, volumes, paths.setdefault(c.name, {}), sidecar)
                          if c.name == FRONTEND_SIDECAR_CONTAINER else c for c in containers]
        for _, position in hub.added:
            containers.append(container_of(component.obj, as_map(record[position]),
                                           hub.spec_path("podTemplate", "spec", "containers", position), volumes))
        main = restore_flat_mount_fields(component, main, record, hub.spec_path("podTemplate", "spec", "containers"),
                                         paths[MAIN])
    if _main_dropped(view):  # the hub pod has no container named `main`: its containers stay sidecars
        graph_env = [entry for entry in component.main.env if entry.origin == "graph"]
        main = Container(component.obj, component.path, "", None,
                         component.path + ("extraPodSpec", "mainContainer", "image"), [], [], None, env=graph_env)
    return Pod(component, main, containers, list(component.init_containers), _shared_memory(view),
               component.pod, count, paths)


def _frontend_sidecar(component: Component, sidecar: dict) -> Container:
    """appendFrontendSidecar: the container the conversion makes of a v1alpha1 frontendSidecar."""
    path = component.path + ("frontendSidecar",)
    container = container_of(component.obj, {"name": FRONTEND_SIDECAR_CONTAINER, "image": sidecar.get("image"),
                                             "args": sidecar.get("args"), "env": sidecar.get("envs")}, path)
    container.env = [replace(entry, path=path + ("envs", entry.path[-1])) for entry in container.env]
    return container


def _lend(container: Container, record: list, hub: HubRestore, volumes: dict, paths: dict,
          sidecar: dict) -> Container:
    """The record's first `sidecar-frontend` lends its fields but name, image, args and env (merged over);
    `paths` gets where the lent command, workingDir, probes and envFrom are."""
    found = [i for i, c in enumerate(record) if as_map(c).get("name") == FRONTEND_SIDECAR_CONTAINER]
    if not found or name_only(as_map(record[found[0]])) is True:
        return container
    saved = container_of(container.obj, as_map(record[found[0]]),
                         hub.spec_path("podTemplate", "spec", "containers", found[0]), volumes)
    lent = replace(container, requests={**container.requests, **saved.requests},
                   limits={**container.limits, **saved.limits})
    if saved.command:
        lent.command = saved.command
        paths["command"] = saved.path + ("command",)
    if saved.working_dir:
        lent.working_dir = saved.working_dir
        paths["workingDir"] = saved.path + ("workingDir",)
    if saved.mounts:
        lent.mounts = saved.mounts
    return lend_probes_and_env_from(lent, saved, sidecar, paths)


def _volumes(component: Component) -> dict:
    """The pod's volumes, a v1alpha1 service's volumeMounts naming their claims (the operator adds those)."""
    volumes = dict(component.pod.volumes())
    for mount, path in component.own_volume_mounts():
        name = as_str(mount.get("name"))
        if name and name not in volumes:
            volumes[name] = ({"name": name, "persistentVolumeClaim": {"claimName": name}}, path)
    return volumes


def _shared_memory(view: ComponentView) -> tuple[str | None, tuple]:
    """ConvertFromSharedMemorySpec: disabled is a size of 0, a zero size is no size."""
    shared = view.raw.get("sharedMemory")
    if not isinstance(shared, dict):
        return None, view.path + ("sharedMemory", "size")
    if shared.get("disabled") is True:
        return "0", view.path + ("sharedMemory", "disabled")
    size = as_str(shared.get("size"))
    if size is None or parse_quantity(size) == 0:
        return None, view.path + ("sharedMemory", "size")
    return size, view.path + ("sharedMemory", "size")


def _mount_compilation_cache(view: ComponentView, pod: Pod) -> None:
    found = view.component.compilation_cache()
    if found is None or not found[0] or _main_dropped(view):
        return  # no cache, or one without a claim the operator refuses: nothing to compare
    claim, mount_path, path = found
    mount_path = mount_path or DEFAULT_MOUNT_POINTS.get(pod_framework(view.component) or "", "")
    if not mount_path:
        return  # the operator refuses it (no default for this backend): nothing to compare
    mounts = []
    for mount in pod.main.mounts:
        if mount.volume == claim and not mount.mount_path:
            mount = replace(mount, mount_path=mount_path)
        if mount.mount_path == mount_path and any(m.mount_path == mount_path for m in mounts):
            continue
        mounts.append(mount)
    if not any(m.mount_path == mount_path for m in mounts):
        mounts.append(Mount(claim, mount_path, None, path, claim=claim))
    pod.main = replace(pod.main, mounts=mounts)
