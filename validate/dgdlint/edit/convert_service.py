"""One v1alpha1 service -> one v1beta1 component, as the operator's conversion maps the fields: the service
map key becomes `name`, `componentType`/`subComponentType` become `type`, `extraPodSpec` becomes
`podTemplate.spec` with `mainContainer` as the container named `main`, and the service-level fields (envs,
envFromSecret, resources, volumeMounts, probes) are merged into that container, `mainContainer` winning
as the operator merges them. Every value keeps its comments; a field with no v1beta1 place is a note."""

from __future__ import annotations

from dataclasses import dataclass, field

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dgdlint.edit.comments import CommentTable
from dgdlint.edit.notes import Note, line_of
from dgdlint.quantity import parse_quantity

MAIN = "main"
FRONTEND_SIDECAR = "sidecar-frontend"
DEFAULT_GPU = "nvidia.com/gpu"
PROMOTED_SUBTYPES = ("prefill", "decode")
GMS_MODES = {"intraPod": "IntraPod", "interPod": "InterPod"}  # v1alpha1 -> v1beta1 spelling of a GMS mode
COMPONENT_TYPES = ("frontend", "worker", "prefill", "decode", "planner", "epp")  # the v1beta1 CRD's enum
SAME_NAME = ("replicas", "minAvailable", "runtimeVersionOverride", "globalDynamoNamespace", "multinode",
             "modelRef", "topologyConstraint", "eppConfig", "providerOverride")
POD_FIELDS = ("envs", "envFromSecret", "resources", "volumeMounts", "livenessProbe", "readinessProbe",
              "extraPodSpec", "extraPodMetadata", "frontendSidecar")
NO_PLACE = {
    "dynamoNamespace": "v1beta1 derives the Dynamo namespace from the graph",
    "autoscaling": "v1beta1 scales through a DynamoGraphDeploymentScalingAdapter (scalingAdapter) instead",
    "ingress": "v1beta1 has no per-component ingress; expose the frontend with your own Ingress",
    "annotations": "v1beta1 has no component-level annotations; pod annotations go in podTemplate.metadata",
    "labels": "v1beta1 has no component-level labels; pod labels go in podTemplate.metadata",
}


@dataclass
class Context:
    file: str
    start: int  # 0-based first line of the document body in the file
    table: CommentTable
    notes: list[Note] = field(default_factory=list)

    def note(self, severity: str, code: str, container, key, message: str) -> None:
        self.notes.append(Note(self.file, line_of(container, key, self.start), severity, code, message))

    def drop(self, container, key, message: str, severity: str = "warning") -> None:
        """A field with no place in the target version: said, never silent. Its comments go with it."""
        self.note(severity, "convert-field-dropped", container, key, message)
        self.table.pop(container, key)


def _map(value) -> CommentedMap | None:
    return value if isinstance(value, CommentedMap) else None


def _seq(value) -> CommentedSeq | None:
    return value if isinstance(value, CommentedSeq) else None


def convert_service(ctx: Context, services: CommentedMap, name: str, components: CommentedSeq) -> None:
    """Append the component for `services[name]` to `components`."""
    service = services[name]
    index = len(components)
    component = CommentedMap()
    component["name"] = name
    components.append(component)
    ctx.table.move(services, name, components, index)
    if not isinstance(service, CommentedMap):
        ctx.note("warning", "convert-field-dropped", services, name,
                 f"service {name} is empty; the component has only its name")
        return
    pod = _Pod(ctx, service, name)
    for key in list(service.keys()):
        value = service[key]
        if key == "componentType":
            kind = _component_type(ctx, service, value)
            if str(kind) in COMPONENT_TYPES:
                component["type"] = kind
                ctx.table.move(service, key, component, "type")
            else:
                ctx.drop(service, key, f"{name}: componentType {str(value)!r} is not a v1beta1 type "
                                       f"({', '.join(COMPONENT_TYPES)}); it is left out, so the operator runs the "
                                       "component without a type as it ran an unknown one. Set type if you know it")
        elif key == "subComponentType":
            _sub_component_type(ctx, service, value, component)
        elif key in SAME_NAME:
            component[key] = value
            ctx.table.move(service, key, component, key)
        elif key == "serviceName":
            if str(value) != name:
                ctx.drop(service, key, f"serviceName {value!r} differs from the service key {name!r}; v1beta1 "
                                       "names the component by its key only")
            else:
                ctx.table.move(service, key, component, "name")
        elif key == "sharedMemory":
            _shared_memory(ctx, service, component)
        elif key in POD_FIELDS:
            if "podTemplate" not in component:
                component["podTemplate"] = None  # its place, filled below
            pod.take(key, value)
        elif key == "scalingAdapter":
            if _map(value) and value.get("enabled") is True:
                component["scalingAdapter"] = CommentedMap()
                ctx.table.move(service, key, component, key)
            else:
                ctx.drop(service, key, "scalingAdapter is not enabled: the same as none in v1beta1", "info")
        elif key in ("gpuMemoryService", "failover", "checkpoint"):
            _experimental(ctx, service, key, component)
        elif key in NO_PLACE:
            ctx.drop(service, key, f"{name}.{key} has no place in v1beta1 ({NO_PLACE[key]}); it is left out")
        else:
            ctx.drop(service, key, f"{name}.{key} is not a v1alpha1 service field; it is left out")
    if "type" in component:
        component.move_to_end("type", last=False)
        component.move_to_end("name", last=False)
    template = pod.build()
    if template is None:
        component.pop("podTemplate", None)
    else:
        component["podTemplate"] = template
    if pod.cache is not None:
        component["compilationCache"] = pod.cache
    if pod.sidecar:
        component["frontendSidecar"] = FRONTEND_SIDECAR


def _component_type(ctx: Context, service: CommentedMap, value):
    sub = service.get("subComponentType")
    if str(value) == "worker" and str(sub) in PROMOTED_SUBTYPES:
        return sub
    return value


def _sub_component_type(ctx: Context, service: CommentedMap, value, component: CommentedMap) -> None:
    if value is None or str(value) == "" or (
            str(service.get("componentType")) == "worker" and str(value) in PROMOTED_SUBTYPES):
        ctx.table.move(service, "subComponentType", component, "type")  # now the type: its comments join the type's
        return
    ctx.drop(service, "subComponentType", f"subComponentType {value!r} has no place in v1beta1 (only a worker's "
                                          "prefill or decode becomes its type)")


def _shared_memory(ctx: Context, service: CommentedMap, component: CommentedMap) -> None:
    shared = _map(service["sharedMemory"]) or {}
    if shared.get("disabled") is True:
        component["sharedMemorySize"] = "0"
    elif shared.get("size") not in (None, "", 0, "0"):
        component["sharedMemorySize"] = shared["size"]
    else:
        ctx.drop(service, "sharedMemory", "sharedMemory sets neither a size nor disabled: the operator's default "
                                          "either way", "info")
        return
    ctx.table.move(service, "sharedMemory", component, "sharedMemorySize")
    for key in list(shared):
        ctx.table.move(shared, key, component, "sharedMemorySize")


def _experimental(ctx: Context, service: CommentedMap, key: str, component: CommentedMap) -> None:
    value = _map(service[key])
    if value is None or (key != "checkpoint" and value.get("enabled") is not True):
        ctx.drop(service, key, f"{key} is not enabled: the same as none in v1beta1", "info")
        return
    experimental = component.setdefault("experimental", CommentedMap())
    if key != "checkpoint" and "enabled" in value:
        del value["enabled"]
    if key != "checkpoint":
        rename_mode(value, GMS_MODES)
    experimental[key] = value
    ctx.table.move(service, key, experimental, key)


def rename_mode(holder: CommentedMap, spellings: dict[str, str]) -> None:
    """The GPU memory service and failover `mode` are spelled differently in the two versions."""
    old = holder.get("mode")
    if isinstance(old, str) and old in spellings:
        holder["mode"] = type(old)(spellings[old]) if type(old) is not str else spellings[old]


def _valid_quantity(value) -> bool:
    try:
        parse_quantity(str(value))
    except (ValueError, TypeError, ArithmeticError):
        return False
    return True


class _Pod:
    """The pod template being assembled from the service's pod-level fields."""

    def __init__(self, ctx: Context, service: CommentedMap, name: str):
        self.ctx, self.service, self.name = ctx, service, name
        self.fields: dict[str, object] = {}
        self.cache: CommentedMap | None = None  # a volumeMount flagged useAsCompilationCache
        self.sidecar = False

    def take(self, key: str, value) -> None:
        self.fields[key] = value

    def build(self) -> CommentedMap | None:
        ctx, service = self.ctx, self.service
        extra = _map(self.fields.get("extraPodSpec")) or CommentedMap()
        main = CommentedMap()
        main["name"] = MAIN
        given = _map(extra.get("mainContainer"))
        if given is not None:
            for key in list(given.keys()):
                if key == "name":
                    ctx.table.pop(given, key)
                    continue
                main[key] = given[key]
                ctx.table.move(given, key, main, key)
        self._env(main)
        self._env_from(main)
        self._resources(main)
        spec = CommentedMap()
        for key in list(extra.keys()):
            if key in ("mainContainer", "containers"):
                spec.setdefault("containers", None)  # the list's place: where the source had it
                if key == "containers":
                    ctx.table.move(extra, key, spec, "containers")
            else:
                spec[key] = extra[key]
                ctx.table.move(extra, key, spec, key)
        if "containers" not in spec:
            spec.insert(0, "containers", None)
        self._mounts(main, spec)
        for probe in ("livenessProbe", "readinessProbe"):
            if probe in self.fields and probe not in main:
                main[probe] = self.fields[probe]
                ctx.table.move(service, probe, main, probe)
            elif probe in self.fields:
                ctx.drop(service, probe, f"{probe} is also set on mainContainer, which the operator uses")
        containers = CommentedSeq([main])
        ctx.table.move(extra, "mainContainer", containers, 0)
        for index, container in enumerate(_seq(extra.get("containers")) or []):
            if _map(container) and str(container.get("name")) == MAIN:
                ctx.drop(extra["containers"], index, "a second container named main; mainContainer is the one "
                                                     "the operator runs")
                continue
            ctx.table.move(extra["containers"], index, containers, len(containers))
            containers.append(container)
        self._frontend_sidecar(containers)
        metadata = _map(self.fields.get("extraPodMetadata"))
        if len(main) == 1 and len(containers) == 1 and list(spec.keys()) == ["containers"] and metadata is None:
            return None  # nothing for the pod: the operator's defaults, as without a podTemplate
        spec["containers"] = containers
        template = CommentedMap()
        if metadata is not None:
            template["metadata"] = metadata
            ctx.table.move(service, "extraPodMetadata", template, "metadata")
        template["spec"] = spec
        ctx.table.move(service, "extraPodSpec", template, "spec")
        return template

    def _env(self, main: CommentedMap) -> None:
        envs = _seq(self.fields.get("envs"))
        if envs is None:
            return
        merged = CommentedSeq()
        for index, entry in enumerate(envs):
            self.ctx.table.move(envs, index, merged, len(merged))
            merged.append(entry)
        own = _seq(main.get("env"))
        for index, entry in enumerate(own or []):
            name = str(entry.get("name")) if _map(entry) else None
            at = next((i for i, e in enumerate(merged) if _map(e) and str(e.get("name")) == name), None)
            if at is None:
                self.ctx.table.move(own, index, merged, len(merged))
                merged.append(entry)
            else:
                self.ctx.note("info", "convert-env-merged", own, index,
                              f"{name} is set in envs and in mainContainer.env; mainContainer's value is kept, "
                              "as the operator merges them")
                self.ctx.table.pop(merged, at)
                self.ctx.table.move(own, index, merged, at)
                merged[at] = entry
        self.ctx.table.move(self.service, "envs", main, "env")
        main["env"] = merged

    def _env_from(self, main: CommentedMap) -> None:
        secret = self.fields.get("envFromSecret")
        if secret in (None, ""):
            if "envFromSecret" in self.fields:
                self.ctx.table.pop(self.service, "envFromSecret")
            return
        entry = CommentedMap()
        entry["secretRef"] = CommentedMap([("name", secret)])
        existing = _seq(main.get("envFrom"))
        if existing is None:
            main["envFrom"] = CommentedSeq([entry])
            self.ctx.table.move(self.service, "envFromSecret", main, "envFrom")
        else:
            for index in reversed(range(len(existing))):
                self.ctx.table.move(existing, index, existing, index + 1)
            existing.insert(0, entry)
            self.ctx.table.move(self.service, "envFromSecret", existing, 0)

    def _resources(self, main: CommentedMap) -> None:
        given = _map(self.fields.get("resources"))
        if given is None:
            return
        out = _map(main.get("resources")) or CommentedMap()
        for table_name in list(given.keys()):
            source = given[table_name]
            if table_name == "claims":
                out.setdefault("claims", source)
                self.ctx.table.move(given, table_name, out, "claims")
                continue
            if table_name not in ("requests", "limits") or not _map(source):
                self.ctx.drop(given, table_name, f"resources.{table_name} is not a v1alpha1 resources field")
                continue
            target = _map(out.get(table_name))
            table = CommentedMap()
            for key in list(source.keys()):
                value = source[key]
                if key == "gpuType":
                    self.ctx.table.pop(source, key)
                    continue
                names = ([(str(k), v, value) for k, v in value.items()] if key == "custom" and _map(value)
                         else [(str(source.get("gpuType") or DEFAULT_GPU) if key == "gpu" else str(key), value,
                                source)])
                for resource, quantity, holder in names:
                    where = key if holder is source else resource
                    if not _valid_quantity(quantity):
                        self.ctx.drop(holder, where, f"{self.name}: resources.{table_name}.{where} {quantity!r} is "
                                                     "not a quantity; the operator ignores it, so it is left out")
                        continue
                    if target is not None and resource in target:
                        self.ctx.drop(holder, where, f"{self.name}: {resource} is also in mainContainer's "
                                                     f"resources.{table_name}, which the operator uses", "info")
                        continue
                    table[resource] = quantity
                    self.ctx.table.move(holder, where, table, resource)
                if key == "custom":
                    self.ctx.table.pop(source, key)
            if target is not None:
                for key in list(target.keys()):
                    table[key] = target[key]
                    self.ctx.table.move(target, key, table, key)
            if table:
                out[table_name] = table
                self.ctx.table.move(given, table_name, out, table_name)
        if out:
            main["resources"] = out
            self.ctx.table.move(self.service, "resources", main, "resources")

    def _mounts(self, main: CommentedMap, spec: CommentedMap) -> None:
        mounts = _seq(self.fields.get("volumeMounts"))
        if mounts is None:
            return
        table = self.ctx.table
        own = _seq(main.get("volumeMounts"))
        out = own if own is not None else CommentedSeq()
        volumes = _seq(spec.get("volumes"))
        names = {str(v.get("name")) for v in volumes or [] if _map(v)}
        for index, mount in enumerate(mounts):
            if not _map(mount) or not mount.get("name"):
                self.ctx.drop(mounts, index, f"{self.name}: volumeMounts[{index}] names no PVC")
                continue
            if mount.get("useAsCompilationCache") is True:
                self._compilation_cache(mounts, index, mount)
                continue
            if not mount.get("mountPoint"):
                self.ctx.note("error", "convert-mount-point-missing", mounts, index,
                              f"{self.name}: volumeMounts[{index}] ({mount['name']}) has no mountPoint; a v1beta1 "
                              "container mount needs mountPath. Add the mountPoint, then convert")
                continue
            entry = CommentedMap()
            entry["name"] = mount["name"]
            entry["mountPath"] = mount["mountPoint"]
            table.move(mount, "name", entry, "name")
            table.move(mount, "mountPoint", entry, "mountPath")
            table.move(mounts, index, out, len(out))
            out.append(entry)
            if str(mount["name"]) not in names:
                volume = CommentedMap()
                volume["name"] = mount["name"]
                volume["persistentVolumeClaim"] = CommentedMap([("claimName", mount["name"])])
                if volumes is None:
                    volumes = spec["volumes"] = CommentedSeq()
                volumes.append(volume)
                names.add(str(mount["name"]))
        if out:
            main["volumeMounts"] = out
            table.move(self.service, "volumeMounts", main, "volumeMounts")

    def _compilation_cache(self, mounts, index, mount) -> None:
        self.ctx.note("info", "convert-compilation-cache", mounts, index,
                      f"{self.name}: volumeMounts[{index}] is the compilation cache: component.compilationCache")
        self.cache = CommentedMap([("pvcName", mount["name"])])
        if mount.get("mountPoint"):
            self.cache["mountPath"] = mount["mountPoint"]

    def _frontend_sidecar(self, containers: CommentedSeq) -> None:
        sidecar = _map(self.fields.get("frontendSidecar"))
        if sidecar is None:
            return
        container = CommentedMap([("name", FRONTEND_SIDECAR)])
        for source, target in (("image", "image"), ("args", "args"), ("envs", "env")):
            if source in sidecar:
                container[target] = sidecar[source]
                self.ctx.table.move(sidecar, source, container, target)
        if sidecar.get("envFromSecret"):
            container["envFrom"] = CommentedSeq([CommentedMap([("secretRef", CommentedMap(
                [("name", sidecar["envFromSecret"])]))])])
            self.ctx.table.move(sidecar, "envFromSecret", container, "envFrom")
        self.ctx.table.move(self.service, "frontendSidecar", containers, len(containers))
        containers.append(container)
        self.sidecar = True
