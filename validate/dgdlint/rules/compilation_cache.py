"""The compilation cache as the operator's pod builder mounts it (graph.go applyCompilationCache and
applyCompilationCacheVolume): a v1beta1 component's `compilationCache`, or what the conversion makes of a
v1alpha1 service's first volume mount flagged `useAsCompilationCache` (that mount stays on the main
container, by name and mountPoint). What these refuse, the API server and the webhook let through, and
the component's pods are never built."""

from __future__ import annotations

import re

from dgdlint.model import Component, Model, as_map, as_str
from dgdlint.rules.registry import Hit, rule

# consts DefaultVLLMCacheMountPoint; getDefaultCompilationCacheMountPoint has none for the other frameworks.
DEFAULT_MOUNT_POINTS = {"vllm": "/root/.cache/vllm"}
WORKER_TYPES = ("worker", "prefill", "decode")  # IsWorkerComponent
# DetectBackendFrameworkFromArgs: `python -m dynamo.<framework>` in the main container's command and args.
_DETECT = {framework: re.compile(rf"python[0-9.]*\s+[^|&;]*-m\s+[^|&;]*dynamo\.{framework}[^|&;]*")
           for framework in ("vllm", "sglang", "trtllm")}


def detected_framework(component: Component) -> str | None:
    """The framework named by the main container's command and args, when exactly one is."""
    text = " ".join(component.main.command + component.main.args)
    found = [framework for framework, pattern in _DETECT.items() if pattern.search(text)]
    return found[0] if len(found) == 1 else None


def pod_framework(component: Component) -> str | None:
    """The backend framework the pod builder gets for a component (getBackendFrameworkFromComponent): none
    (noop) for a component that is not a worker; for a worker the one its command names, else
    spec.backendFramework, else the one the graph's workers name (backendFrameworkForGeneratedDCDs)."""
    if component.type not in WORKER_TYPES:
        return None
    own = detected_framework(component)
    if own is not None:
        return own
    if component.graph.backend_framework:
        return component.graph.backend_framework
    named = {detected_framework(c) for c in component.graph.components if c.type in WORKER_TYPES} - {None}
    return named.pop() if len(named) == 1 else None


@rule(
    name="compilation-cache-invalid", code="DGD649", severity="error", family="admission",
    title="The compilation cache is a writable claim the operator can mount",
    rationale="""The operator mounts the compilation cache (v1beta1 `compilationCache`; v1alpha1, the
    first volume mount with `useAsCompilationCache: true`, which its conversion makes one) on the main
    container at `mountPath`, else the backend's default (vLLM's /root/.cache/vllm; SGLang, TensorRT-LLM
    and non-worker components have none), and adds a volume of the claim named after it. It refuses to
    build the pod, after the API server and the webhook have accepted the deployment, when the cache has
    no claim name, no mount path and no default, another volume of the main container is mounted at
    that path, the cache's mount there is read-only, or a pod volume of the claim's name is not that claim
    or is read-only (a second pod volume of that name the API server refuses itself). A main-container
    mount of the claim without a path is given the cache's path.""",
    remediation="Name the claim and give the cache a mountPath of its own (no other mount there, not "
                "readOnly); a pod volume of the claim's name must be `persistentVolumeClaim: {claimName: "
                "<the claim>}` without readOnly, or be left out (the operator adds it).",
)
def compilation_cache_invalid(model: Model):
    for graph in model.graphs:
        for component in graph.components:
            yield from _component(component)


def _component(component: Component):
    cache = component.compilation_cache()
    if cache is None:
        return
    claim, written, where = cache
    obj, label = component.obj, component.label
    if not claim:
        yield Hit(obj, where + ("name",), f"{label}: the compilation cache mount has no name, so the operator's "
                                          "compilationCache has no pvcName and it builds no pod")
        return
    framework = pod_framework(component)
    mount_path = written or DEFAULT_MOUNT_POINTS.get(framework or "", "")
    if not mount_path:
        yield Hit(obj, where, f"{label}: the compilation cache {claim!r} has no mount path, and the operator has "
                              f"no default for backend framework {framework or 'noop'!r} (this component's); "
                              "it builds no pod")
        return
    yield from _mounts(component, claim, mount_path)
    yield from _volume(component, claim)


def _mounts(component: Component, claim: str, mount_path: str):
    for mount in component.main.mounts:
        path = mount.mount_path or (mount_path if mount.volume == claim else "")
        if path != mount_path:
            continue
        if mount.volume != claim:
            yield Hit(component.obj, mount.path, f"{component.label}: the main container mounts volume "
                                                 f"{mount.volume!r} at {mount_path}, the compilation cache's "
                                                 f"mount path; the operator builds no pod")
        elif mount.read_only:
            yield Hit(component.obj, mount.path + ("readOnly",),
                      f"{component.label}: the compilation cache {claim!r} is mounted read-only at "
                      f"{mount_path}; the operator needs it writable and builds no pod")


def _volume(component: Component, claim: str):
    found = component.pod.volumes().get(claim)
    if found is None:
        return  # the operator adds it
    volume, path = found
    source = volume.get("persistentVolumeClaim")
    label = f"{component.label}: pod volume {claim!r}, the compilation cache's,"
    if not isinstance(source, dict):
        yield Hit(component.obj, path, f"{label} is not a persistentVolumeClaim volume; the operator builds no pod")
    elif as_str(source.get("claimName")) != claim:
        yield Hit(component.obj, path + ("persistentVolumeClaim", "claimName"),
                  f"{label} names claim {as_str(as_map(source).get('claimName'))!r}, not {claim!r}; the operator "
                  "builds no pod")
    elif source.get("readOnly") is True:
        yield Hit(component.obj, path + ("persistentVolumeClaim", "readOnly"),
                  f"{label} is read-only; the operator needs it writable and builds no pod")
