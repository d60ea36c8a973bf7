"""Component settings the Dynamo operator's webhook checks one component at a time: shared memory,
the endpoint picker (EPP), the frontend sidecar, elastic expert parallelism's launch, and the
v1alpha1-only fields (claims, ingress)."""

from __future__ import annotations

from dgdlint.model import Model, as_str
from dgdlint.quantity import parse_quantity
from dgdlint.rules.registry import Hit, rule
from dgdlint.webhook_component import FRONTEND_SIDECAR_CONTAINER
from dgdlint.webhook_model import graph_views


@rule(
    name="shared-memory-negative", code="DGD620", severity="error", family="admission",
    title="Shared memory is not negative",
    rationale="""The operator's webhook rejects a component whose shared memory size (v1beta1
    `sharedMemorySize`, v1alpha1 `sharedMemory.size`) is a negative quantity. A v1alpha1
    `sharedMemory.disabled: true` converts to size 0 whatever `size` says, so it is never refused.""",
    remediation="Give a positive size such as `64Gi`, or `0` to mount no /dev/shm of the operator's.",
)
def shared_memory_negative(model: Model):
    for view in graph_views(model):
        for component in view.components:
            size = component.shared_memory_size
            amount = parse_quantity(size.value) if size.present else None
            if amount is not None and amount < 0:
                yield Hit(view.obj, size.path, f"{component.component.label}: shared memory {size.text!r} is negative")


def _epp_problems(component):
    """(path, problem) of an endpoint-picker component, and of any component's eppConfig."""
    config = component.field("eppConfig")
    if component.type.text == "epp":
        if component.is_multinode:
            yield component.path + ("multinode",), "an EPP component cannot be multinode"
        replicas = component.field("replicas")
        if replicas.present and replicas.value != 1:
            yield replicas.path, f"an EPP component runs exactly 1 replica, not {replicas.value!r}"
        if not config.present:
            yield component.path, "an EPP component needs eppConfig"
    if not isinstance(config.value, dict):
        return
    ref = config.value.get("configMapRef")
    if isinstance(ref, dict) and not as_str(ref.get("name")):
        yield config.path + ("configMapRef",), "eppConfig.configMapRef has no name"
    if component.alpha and (config.value.get("configMapRef") is None) == (config.value.get("config") is None):
        yield config.path, "eppConfig needs exactly one of configMapRef or config"


@rule(
    name="epp-component-invalid", code="DGD621", severity="error", family="admission",
    title="An endpoint picker (EPP) runs one single-node replica from a configuration",
    rationale="""The operator's webhook rejects an `epp` component that is multinode, has a replica count
    other than 1, or has no `eppConfig`, and an `eppConfig.configMapRef` without a name (v1alpha1: an
    eppConfig with both or neither of `configMapRef` and `config`). Whether the cluster has the
    InferencePool API the EPP needs is checked by the webhook too, but only a live cluster can say.""",
    remediation="Give the EPP component `replicas: 1`, no multinode, and an eppConfig with either a named "
                "configMapRef or an inline config.",
)
def epp_component_invalid(model: Model):
    for view in graph_views(model):
        for component in view.components:
            for path, problem in _epp_problems(component):
                yield Hit(view.obj, path, f"{component.component.label}: {problem}")


@rule(
    name="frontend-sidecar-invalid", code="DGD622", severity="error", family="admission",
    title="frontendSidecar names a container of the pod",
    rationale="""v1beta1 `frontendSidecar` names the container of the component's pod that runs the frontend;
    the operator's webhook rejects it empty, without a pod template, or naming no container of
    `podTemplate.spec.containers`. In v1alpha1 `frontendSidecar` describes a container the operator
    injects as `sidecar-frontend`, and the webhook rejects it when `extraPodSpec.containers` already has a
    container of that name.""",
    remediation="Name an existing container in frontendSidecar (v1beta1), or rename the v1alpha1 container "
                "that clashes with `sidecar-frontend`.",
)
def frontend_sidecar_invalid(model: Model):
    for view in graph_views(model):
        for component in view.components:
            label = component.component.label
            if component.alpha:
                sidecar = component.field("frontendSidecar")
                if sidecar.present and FRONTEND_SIDECAR_CONTAINER in component.sidecar_names():
                    yield Hit(view.obj, sidecar.path, f"{label}: the operator injects the frontend sidecar as "
                                                      f"{FRONTEND_SIDECAR_CONTAINER!r}, and extraPodSpec.containers "
                                                      "already has a container of that name")
                # the v1beta1 frontendSidecar of the converted service: one restored from nvidia.com/dgd-spec
                sidecar, template = component.restored_frontend_sidecar, not component.restored_no_pod_template
            else:
                sidecar = component.field("frontendSidecar")
                template = isinstance(component.raw.get("podTemplate"), dict)
            if sidecar is None or not sidecar.present:
                continue
            names = component.container_names()
            if not template:
                yield Hit(view.obj, sidecar.path, f"{label}: frontendSidecar is set but the component has no "
                                                  "podTemplate with the container")
            elif not sidecar.text:
                yield Hit(view.obj, sidecar.path, f"{label}: frontendSidecar is empty")
            elif sidecar.text not in names:
                yield Hit(view.obj, sidecar.path, f"{label}: frontendSidecar {sidecar.text!r} names no container "
                                                  f"of the pod ({', '.join(names) or 'none'})")


def _elastic_ep_ray(command_line: list[str]) -> bool:
    """--enable-elastic-ep with the Ray data-parallel backend, in any spelling vLLM accepts."""
    words = [word for item in command_line for word in item.split()]
    if "--enable-elastic-ep" not in words:
        return False
    for flag in ("--data-parallel-backend", "-dpb"):
        for index, word in enumerate(words):
            if f"{flag} ray" in word or f"{flag}=ray" in word:
                return True
            if word == flag and index + 1 < len(words) and words[index + 1] == "ray":
                return True
    return False


@rule(
    name="elastic-ep-command-missing", code="DGD623", severity="error", family="admission",
    title="Elastic expert parallelism on Ray has an explicit command",
    rationale="""For a vLLM worker started with `--enable-elastic-ep` and the Ray data-parallel backend the
    operator starts a Ray head by wrapping the main container's command. With no command (the image's
    entrypoint) there is nothing to wrap, and the webhook rejects the component.""",
    remediation='Give the main container its command, e.g. `command: ["python3", "-m", "dynamo.vllm"]`.',
)
def elastic_ep_command_missing(model: Model):
    for view in graph_views(model):
        if view.graph.backend_framework != "vllm":
            continue
        for component in view.components:
            main = component.component.main
            if component.main_declared and not main.command and _elastic_ep_ray(main.command_line):
                yield Hit(view.obj, main.path,
                          f"{component.component.label}: elastic EP on Ray needs an explicit command on the main "
                          "container; the operator cannot wrap the image's entrypoint")


@rule(
    name="pvc-name-missing", code="DGD624", severity="error", family="admission",
    title="Every v1alpha1 spec.pvcs entry has a name",
    rationale="""The operator's webhook rejects a v1alpha1 `spec.pvcs` entry whose name is empty: the claim
    could be neither created nor mounted.""",
    remediation="Name the claim (the name the services' volumeMounts use).",
)
def pvc_name_missing(model: Model):
    for view in graph_views(model):
        for entry, path in view.graph.pvc_entries:
            if "name" in entry and not as_str(entry.get("name")):
                yield Hit(view.obj, path + ("name",), f"{view.obj.label}: a spec.pvcs entry has an empty name")


@rule(
    name="ingress-host-missing", code="DGD625", severity="error", family="admission",
    title="An enabled v1alpha1 ingress has a host",
    rationale="The operator's webhook rejects a v1alpha1 service whose `ingress.enabled` is true without "
              "`ingress.host`.",
    remediation="Set ingress.host, or disable the ingress.",
)
def ingress_host_missing(model: Model):
    for view in graph_views(model):
        for component in view.components:
            ingress = component.field("ingress") if component.alpha else None
            if ingress is not None and isinstance(ingress.value, dict) and ingress.value.get("enabled") is True \
                    and not as_str(ingress.value.get("host")):
                yield Hit(view.obj, ingress.path + ("enabled",),
                          f"{component.component.label}: the ingress is enabled but has no host")

