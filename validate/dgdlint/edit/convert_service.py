"""One v1alpha1 service -> one v1beta1 component, as the operator's conversion maps the fields: the service
map key becomes `name`, `componentType`/`subComponentType` become `type`, `extraPodSpec` becomes
`podTemplate.spec` with `mainContainer` as the container named `main`, and the service-level fields (envs,
envFromSecret, resources, volumeMounts, probes) are merged into that container, `mainContainer` winning
as the operator merges them. Every value keeps its comments; a field with no v1beta1 place is a note."""

from __future__ import annotations

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dgdlint.edit.convert_context import (
    FRONTEND_SIDECAR,
    GMS_MODES,
    PROMOTED_SUBTYPES,
    Context,
    is_true,
    rename_mode,
)
from dgdlint.edit.convert_context import as_map as _map
from dgdlint.edit.convert_pod import PodBuilder

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
    pod = PodBuilder(ctx, service, name)
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
            if _map(value) and is_true(value.get("enabled")):
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
    ctx.rehome(components, index)


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
    if is_true(shared.get("disabled")):
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
    if value is None or (key != "checkpoint" and not is_true(value.get("enabled"))):
        ctx.drop(service, key, f"{key} is not enabled: the same as none in v1beta1", "info")
        return
    experimental = component.setdefault("experimental", CommentedMap())
    if key != "checkpoint" and "enabled" in value:
        del value["enabled"]
    if key != "checkpoint":
        rename_mode(value, GMS_MODES)
    experimental[key] = value
    ctx.table.move(service, key, experimental, key)
