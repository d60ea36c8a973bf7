"""GPU features the Dynamo operator's webhook checks per component: the GPU memory service (GMS), its
failover engines, checkpoints beside them, and the GPU power-limit annotation."""

from __future__ import annotations

import re

from dgdlint.hub_restore import converted_views
from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.rules.registry import Hit, rule
from dgdlint.webhook_component import GPU_POWER_LIMIT, INTER_POD, INTRA_POD
from dgdlint.webhook_model import graph_views

GMS_COMPONENT_TYPES = ("worker", "prefill", "decode")
NO_FAILOVER_TYPES = ("epp", "frontend", "planner")


def _gms_problems(view, component, converted):
    """`converted` is the component as the webhook sees it after ConvertTo restores the record's v1beta1
    fields: a container it adds is the pod's (a v1alpha1 graph's `nvidia.com/dgd-spec` supplies it); one
    it takes away (the dropped generated main) is operator-conversion-record-refused's to report."""
    gms = component.gms
    label = component.component.label
    if component.type.text not in GMS_COMPONENT_TYPES:
        yield gms.path, f"{label}: the GPU memory service runs only in worker, prefill or decode components, " \
                        f"not {component.type.text or 'an untyped one'!r}"
    if component.main_gpu_count < 1:
        yield gms.path, f"{label}: the GPU memory service needs at least 1 GPU on the main container"
    if component.gms_mode == INTER_POD and view.graph.backend_framework != "vllm":
        yield gms.path + ("mode",), f"{label}: the inter-pod GPU memory service layout runs only with vLLM " \
                                    f"(backendFramework is {view.graph.backend_framework or 'unset'!r})"
    if component.gms_mode != INTRA_POD:
        return
    names = list(dict.fromkeys(component.container_names() + converted.container_names()))
    seen = set()
    clients_path = gms.path + ("extraClientContainers",)
    for index, client in enumerate(as_list(as_map(gms.value).get("extraClientContainers"))):
        name = as_str(client) or ""
        if name in seen:
            yield clients_path + (index,), f"{label}: extraClientContainers lists {name!r} twice"
            continue
        seen.add(name)
        if name not in names:
            yield clients_path + (index,), f"{label}: extraClientContainers names {name!r}, which is not a " \
                                           f"container of the pod ({', '.join(names) or 'none'})"


@rule(
    name="gpu-memory-service-invalid", code="DGD640", severity="error", family="admission",
    title="The GPU memory service runs in a GPU worker, with client containers of its pod",
    rationale="""The operator's webhook rejects a GPU memory service on a component that is not a worker,
    prefill or decode component, or whose main container asks for no GPU; in the intra-pod layout each
    `extraClientContainers` entry must name a container of the pod, once (a v1alpha1 `frontendSidecar`
    is a container `sidecar-frontend` of it, and so is a container the conversion restores into a
    v1alpha1 graph from its `nvidia.com/dgd-spec` record); the inter-pod layout runs
    only with vLLM (and only on Grove: grove-pathway-required).""",
    remediation="Put the GPU memory service on a GPU worker, list each client container once by its name, and "
                "use the inter-pod layout only with backendFramework vllm.",
)
def gpu_memory_service_invalid(model: Model):
    for view, converted in zip(graph_views(model), converted_views(model), strict=True):
        for component, restored in zip(view.components, converted.components, strict=True):
            if component.gms is not None:
                for path, message in _gms_problems(view, component, restored):
                    yield Hit(view.obj, path, message)


def _failover_problems(component):
    failover = component.failover
    label = component.component.label
    mode = component.failover_mode
    gms_mode = component.gms_mode
    if gms_mode is None:
        yield failover.path, f"{label}: failover ({mode}) needs the GPU memory service on the component"
    elif gms_mode != mode:
        yield failover.path + ("mode",), f"{label}: failover mode {mode} differs from the GPU memory service's " \
                                         f"{gms_mode}"
    if mode == INTER_POD:
        if component.main_gpu_count < 1:
            yield failover.path, f"{label}: inter-pod failover needs at least 1 GPU on the main container"
        if component.type.text in NO_FAILOVER_TYPES:
            yield failover.path, f"{label}: failover is not supported for a {component.type.text} component"
    shadows = as_map(failover.value).get("numShadows")
    if component.alpha and mode == INTRA_POD and isinstance(shadows, int) and shadows not in (0, 1):
        yield failover.path + ("numShadows",), f"{label}: intra-pod failover runs one fixed shadow, so " \
                                               f"numShadows {shadows} is refused (use mode interPod for more)"


@rule(
    name="failover-invalid", code="DGD641", severity="error", family="admission",
    title="Failover runs on the GPU memory service, in its mode",
    rationale="""Failover engines share weights through the GPU memory service. The operator's webhook
    rejects failover on a component without a GPU memory service or in another mode than it; inter-pod
    failover also needs a GPU on the main container and is refused on epp, frontend and planner
    components; v1alpha1 intra-pod failover has one fixed shadow, so `numShadows` other than 0 or 1
    is refused (an unset v1alpha1 mode is intraPod: the CRD defaults it before the webhook runs).""",
    remediation="Add the GPU memory service in the same mode as failover, and give inter-pod failover a GPU "
                "worker.",
)
def failover_invalid(model: Model):
    for view in graph_views(model):
        for component in view.components:
            if component.failover is not None:
                for path, message in _failover_problems(component):
                    yield Hit(view.obj, path, message)


def _checkpoint_problems(component):
    checkpoint = component.checkpoint
    label = component.component.label
    clients_path = checkpoint.path + ("job", "gmsClientContainers")
    if as_list(component.obj.get(clients_path)):
        if component.gms is None:
            yield clients_path, f"{label}: checkpoint job gmsClientContainers need the GPU memory service"
        elif component.gms_mode == INTER_POD:
            yield clients_path, f"{label}: checkpoint job gmsClientContainers work only with the intra-pod " \
                                "GPU memory service"
    if as_map(checkpoint.value).get("enabled") is True:
        if component.inter_pod_gms:
            yield checkpoint.path, f"{label}: checkpoints cannot be enabled with the inter-pod GPU memory service"
        if component.failover is not None:
            yield checkpoint.path, f"{label}: checkpoints cannot be enabled with failover"


@rule(
    name="checkpoint-incompatible", code="DGD642", severity="error", family="admission",
    title="Checkpoints are combined only with what supports them",
    rationale="""The operator's webhook rejects an enabled checkpoint on a component with the inter-pod GPU
    memory service or with failover, and checkpoint-job `gmsClientContainers` without the GPU memory
    service or with its inter-pod layout. (Whether the operator runs with checkpoints enabled at all is
    its configuration: only the cluster can say.)""",
    remediation="Drop the checkpoint, or the failover or inter-pod layout it cannot run with.",
)
def checkpoint_incompatible(model: Model):
    for view in graph_views(model):
        for component in view.components:
            if component.checkpoint is not None:
                for path, message in _checkpoint_problems(component):
                    yield Hit(view.obj, path, message)


_DECIMAL_INT = re.compile(r"[+-]?[0-9]+")


def power_limit_problem(text: str | None) -> str | None:
    """What the operator says of a power-limit value (a decimal integer above zero), None when fine."""
    if text is None or not _DECIMAL_INT.fullmatch(text) or not -(2**63) <= int(text) < 2**63:
        return "must be a decimal integer (watts)"
    return None if int(text) > 0 else "must be greater than zero"


@rule(
    name="gpu-power-limit-invalid", code="DGD643", severity="error", family="admission",
    title="The GPU power-limit annotation is a positive integer, on scalar GPUs",
    rationale="""`dynamo.nvidia.com/gpu-power-limit` on a component's pod template tells the planner the
    per-GPU power in watts. The operator's webhook rejects a value that is not a decimal integer above
    zero, and the annotation on a component that gets GPUs through DRA resource claims or runs the
    GPU memory service (power accounting reads scalar GPU counts only). The annotation cannot change
    later, so a wrong value means deleting and recreating the graph.""",
    remediation='Write the watts as a plain integer (`"700"`), on a component that requests `nvidia.com/gpu`.',
)
def gpu_power_limit_invalid(model: Model):
    for view in graph_views(model):
        for component in view.components:
            limit = component.power_limit
            if limit is None:
                continue
            label = component.component.label
            problem = power_limit_problem(limit.text)
            if problem:
                yield Hit(view.obj, limit.path, f"{label}: {GPU_POWER_LIMIT} {limit.text!r} {problem}")
            where = component.gms.path if component.gms is not None else component.dra_claims_path()
            if where is not None:
                what = "the GPU memory service" if component.gms is not None else "DRA resource claims"
                yield Hit(view.obj, where, f"{label}: {what} cannot be combined with {GPU_POWER_LIMIT}",
                          related=[view.obj.location(limit.path, "the power limit")])
