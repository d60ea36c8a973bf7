"""`dgdlint convert --to v1alpha1`: a v1beta1 graph back to the deprecated shape, for an operator that serves
only v1alpha1, where the operator's conversion defines a place for each field: `components` become the
`services` map, `type` becomes `componentType` (prefill and decode as a worker's `subComponentType`), the pod
template becomes `extraPodSpec` with the container named `main` as `mainContainer`. Pod volumes and mounts
stay in the pod spec, which v1alpha1 accepts as they are. A field without a v1alpha1 place is a note."""

from __future__ import annotations

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dgdlint.edit.convert_context import (
    FRONTEND_SIDECAR,
    GMS_MODES,
    MAIN,
    PROMOTED_SUBTYPES,
    Context,
    drop_private_annotations,
    is_true,
    rename_key,
    rename_mode,
    set_api_version,
)
from dgdlint.edit.notes import Note
from dgdlint.edit.roundtrip import EditableDocument
from dgdlint.quantity import parse_quantity

SAME_NAME = ("replicas", "minAvailable", "runtimeVersionOverride", "globalDynamoNamespace", "multinode",
             "modelRef", "topologyConstraint", "eppConfig", "providerOverride")
SIDECAR_FIELDS = {"name": None, "image": "image", "args": "args", "env": "envs"}


def to_v1alpha1(document: EditableDocument, root: CommentedMap) -> list[Note]:
    """`root` (the document, or an item of its list) converted in place."""
    ctx = Context(document.file, document.chunk.start, document.table)
    set_api_version(root, "v1alpha1")
    drop_private_annotations(ctx, root, "v1alpha1")
    if "status" in root:
        ctx.drop(root, "status", "status is written by the operator, not converted; it is left out", "info")
        del root["status"]
    spec = root.get("spec")
    if not isinstance(spec, CommentedMap):
        return ctx.notes
    for key in list(spec.keys()):
        value = spec[key]
        if key == "components":
            services = CommentedMap()
            for index, component in enumerate(value if isinstance(value, CommentedSeq) else []):
                _component(ctx, value, index, component, services)
            rename_key(spec, "components", "services", services, ctx)
            _list_compilation_caches(spec, services)
            ctx.rehome(spec, "services")
        elif key == "env":
            rename_key(spec, "env", "envs", value, ctx)
        elif key == "topologyConstraint" and isinstance(value, CommentedMap) and "clusterTopologyName" in value:
            rename_key(value, "clusterTopologyName", "topologyProfile", value["clusterTopologyName"], ctx)
    return ctx.notes


def _list_compilation_caches(spec: CommentedMap, services: CommentedMap) -> None:
    """A v1alpha1 mount names a claim of spec.pvcs: list the compilation caches' claims (create: false)."""
    listed = {str(p.get("name")) for p in spec.get("pvcs") or [] if isinstance(p, CommentedMap)}
    for service in services.values():
        for mount in service.get("volumeMounts") or []:
            name = str(mount.get("name"))
            if is_true(mount.get("useAsCompilationCache")) and name not in listed:
                pvcs = spec.get("pvcs")
                if not isinstance(pvcs, CommentedSeq):
                    position = list(spec.keys()).index("services")
                    spec.insert(position, "pvcs", CommentedSeq())
                    pvcs = spec["pvcs"]
                pvcs.append(CommentedMap([("name", mount["name"]), ("create", False)]))
                listed.add(name)


def _component(ctx: Context, components, index: int, component, services: CommentedMap) -> None:
    if not isinstance(component, CommentedMap) or not component.get("name"):
        ctx.note("error", "convert-component-unnamed", components, index,
                 f"components[{index}] has no name, which v1alpha1 needs as its services key")
        return
    name = str(component["name"])
    service = CommentedMap()
    services[name] = service
    ctx.table.move(components, index, services, name)
    ctx.table.move(component, "name", services, name)
    for key in list(component.keys()):
        value = component[key]
        if key == "name":
            continue
        if key == "type":
            if str(value) in PROMOTED_SUBTYPES:
                service["componentType"] = "worker"
                service["subComponentType"] = value
            else:
                service["componentType"] = value
            ctx.table.move(component, key, service, "componentType")
        elif key in SAME_NAME:
            service[key] = value
            ctx.table.move(component, key, service, key)
        elif key == "sharedMemorySize":
            if _is_zero(value):  # the operator's ConvertToSharedMemorySpec: any zero (0, 0Gi) is disabled
                service["sharedMemory"] = CommentedMap([("disabled", True)])
            else:
                service["sharedMemory"] = CommentedMap([("size", value)])
            ctx.table.move(component, key, service["sharedMemory"], next(iter(service["sharedMemory"])))
        elif key == "compilationCache" and isinstance(value, CommentedMap):
            mount = CommentedMap([("name", value.get("pvcName"))])
            if value.get("mountPath"):
                mount["mountPoint"] = value["mountPath"]
            mount["useAsCompilationCache"] = True
            service.setdefault("volumeMounts", CommentedSeq()).append(mount)
            ctx.table.move(component, key, service, "volumeMounts")
        elif key == "scalingAdapter":
            service[key] = CommentedMap([("enabled", True)])
            ctx.table.move(component, key, service, key)
        elif key == "experimental" and isinstance(value, CommentedMap):
            _experimental(ctx, component, value, service)
        elif key == "podTemplate" and isinstance(value, CommentedMap):
            _pod_template(ctx, component, value, service, name)
        elif key == "frontendSidecar":
            continue  # taken with the pod template, where its container is
        else:
            ctx.drop(component, key, f"{name}.{key} has no place in v1alpha1; it is left out")
    ctx.rehome(services, name)


def _is_zero(value) -> bool:
    """Whether a sharedMemorySize is zero as a quantity (`0`, `0Gi`, `0.0`): the operator tests the sign of the
    parsed quantity, not its spelling."""
    quantity = parse_quantity(value)
    return quantity is not None and quantity == 0


def _experimental(ctx: Context, component, experimental: CommentedMap, service: CommentedMap) -> None:
    """v1beta1 `experimental` unwrapped into the v1alpha1 service; the comments of the `experimental` key go
    with the first of its fields that has a place there (else with the component, as a dropped field's)."""
    moved = []
    for key in list(experimental.keys()):
        value = experimental[key]
        if key in ("gpuMemoryService", "failover") and isinstance(value, CommentedMap):
            value.insert(0, "enabled", True)
            rename_mode(value, {new: old for old, new in GMS_MODES.items()})
            service[key] = value
        elif key == "checkpoint":
            service[key] = value
        else:
            ctx.drop(experimental, key, f"experimental.{key} has no place in v1alpha1; it is left out")
            continue
        ctx.table.move(experimental, key, service, key)
        moved.append(key)
    own = ctx.table.pop(component, "experimental")
    if own is not None and (own.above or own.eol):
        if moved:
            ctx.table.put(service, moved[0], own)
        else:
            ctx.orphans.append(own)


def _pod_template(ctx: Context, component, template: CommentedMap, service: CommentedMap, name: str) -> None:
    if isinstance(template.get("metadata"), CommentedMap):
        service["extraPodMetadata"] = template["metadata"]
        ctx.table.move(template, "metadata", service, "extraPodMetadata")
    spec = template.get("spec")
    if not isinstance(spec, CommentedMap):
        return
    containers = spec.get("containers") if isinstance(spec.get("containers"), CommentedSeq) else CommentedSeq()
    # Only the container named main is the main one (decomposePodTemplateFromHub): a lone container of another
    # name stays a container of extraPodSpec, and the service has no mainContainer, as the operator serves it.
    main_index = next((i for i, c in enumerate(containers) if isinstance(c, CommentedMap)
                       and str(c.get("name")) == MAIN), None)
    if main_index is None and containers:
        ctx.note("warning", "convert-main-container-missing", spec, "containers",
                 f"{name}: no container is named {MAIN}, so the service gets no mainContainer and its containers "
                 "stay in extraPodSpec.containers, as the operator converts it; both versions need a main container "
                 f"with an image: name yours {MAIN}")
    sidecar_name = str(component.get("frontendSidecar")) if component.get("frontendSidecar") else None
    extra = CommentedMap()
    rest = CommentedSeq()
    for key in list(spec.keys()):
        if key != "containers":
            extra[key] = spec[key]
            ctx.table.move(spec, key, extra, key)
            continue
        for index, container in enumerate(containers):
            if index == main_index:
                if isinstance(container, CommentedMap) and "name" in container:
                    ctx.table.move(container, "name", extra, "mainContainer")
                    del container["name"]
                extra["mainContainer"] = container
                ctx.table.move(containers, index, extra, "mainContainer")
            elif sidecar_name and isinstance(container, CommentedMap) and str(container.get("name")) == sidecar_name \
                    and _frontend_sidecar(ctx, containers, index, container, service, name):
                continue
            else:
                ctx.table.move(containers, index, rest, len(rest))
                rest.append(container)
        if rest:
            extra["containers"] = rest
            ctx.table.move(spec, "containers", extra, "containers")
    if extra:
        service["extraPodSpec"] = extra
        ctx.table.move(template, "spec", service, "extraPodSpec")
    ctx.table.move(component, "podTemplate", service, "extraPodSpec" if extra else "extraPodMetadata")


def _frontend_sidecar(ctx: Context, containers, index: int, container: CommentedMap, service, name: str) -> bool:
    """The sidecar container as v1alpha1's frontendSidecar, when that can hold it (False: it cannot)."""
    beyond = [str(key) for key in container if key not in SIDECAR_FIELDS and key != "envFrom"]
    if beyond:
        _plain_sidecar(ctx, containers, index, name, f"sets {', '.join(beyond)}, which")
        return False
    env_from = container.get("envFrom")
    secret = None
    if env_from:  # one secret, whole (no prefix): what envFromSecret means
        first = env_from[0] if isinstance(env_from, CommentedSeq) and len(env_from) == 1 else None
        reference = first.get("secretRef") if isinstance(first, CommentedMap) and list(first) == ["secretRef"] \
            else None
        secret = reference.get("name") if isinstance(reference, CommentedMap) else None
        if not secret:
            _plain_sidecar(ctx, containers, index, name, "takes an envFrom other than one whole secret, which")
            return False
    sidecar = CommentedMap()
    for key, target in SIDECAR_FIELDS.items():
        if target and key in container:
            sidecar[target] = container[key]
            ctx.table.move(container, key, sidecar, target)
    if secret:
        sidecar["envFromSecret"] = secret
    service["frontendSidecar"] = sidecar
    ctx.table.move(containers, index, service, "frontendSidecar")
    if str(container.get("name")) != FRONTEND_SIDECAR:
        ctx.note("info", "convert-frontend-sidecar", containers, index,
                 f"{name}: the sidecar container is named {container.get('name')!r}; v1alpha1 names it "
                 f"{FRONTEND_SIDECAR}")
    return True


def _plain_sidecar(ctx: Context, containers, index: int, name: str, why: str) -> None:
    """A frontend sidecar v1alpha1's frontendSidecar cannot hold stays a plain container, as the operator's
    ConvertFrom keeps every v1beta1 sidecar (restoreFrontendSidecarFromPodTemplate turns only a sidecar it
    converted from v1alpha1 itself back into frontendSidecar); the reference has no v1alpha1 place."""
    ctx.note("warning", "convert-frontend-sidecar", containers, index,
             f"{name}: the frontend sidecar {why} v1alpha1's frontendSidecar cannot hold (it takes image, args, env "
             "and one secret): it stays a plain container of extraPodSpec.containers, as the operator converts it, "
             "and the component no longer names it as its frontend sidecar (v1alpha1 has no place for the name; "
             "the operator keeps it in its private record)")
