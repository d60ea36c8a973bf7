"""What the cluster tier's test modules share besides fixtures."""

from __future__ import annotations

import pytest

# Marked `cluster` (`pytest -m cluster` runs only these) and kept on one xdist worker, so the session's
# control plane starts once (`--dist loadgroup`, as `make test` runs).
CLUSTER = [pytest.mark.cluster, pytest.mark.xdist_group("cluster")]


def operator_pod(graph: dict) -> dict:
    """The Pod the Dynamo operator makes of a DGD's first component, as far as the API server's pod validation
    reads it: its pod template's spec (v1beta1), or a v1alpha1 service's extraPodSpec with its mainContainer
    as `main` before its other containers (one named main gives way), which takes the service's own probes
    (its own merged over them), envs and envFromSecret and an image; with the labels the operator stamps, the
    grace period its component defaults give a pod spec that sets none, and the compilation cache its pod
    builder mounts on `main` (_with_compilation_cache)."""
    if "components" in graph["spec"]:
        component = graph["spec"]["components"][0]
        name, kind = component["name"], component.get("type", "")
        spec = dict(component["podTemplate"]["spec"])
        written = component["podTemplate"].get("metadata") or {}
        cache = component.get("compilationCache")
    else:
        name, service = next(iter(graph["spec"]["services"].items()))
        kind = service.get("componentType", "")
        spec = dict(service.get("extraPodSpec") or {})
        written = service.get("extraPodMetadata") or {}  # the operator's pod template metadata
        main = dict(spec.pop("mainContainer", {}), name="main")
        main.setdefault("image", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0")
        for probe in ("livenessProbe", "readinessProbe"):  # mainContainer's merged over the service's
            if isinstance(service.get(probe), dict):
                main[probe] = _mergo(service[probe], main.get(probe))
        if service.get("envs"):  # the service's envs come first, its main container's after them
            main["env"] = [*service["envs"], *main.get("env", [])]
        if service.get("envFromSecret"):
            main["envFrom"] = [*main.get("envFrom", []), {"secretRef": {"name": service["envFromSecret"]}}]
        spec["containers"] = [main, *(c for c in spec.get("containers") or [] if c.get("name") != "main")]
        flagged = [m for m in service.get("volumeMounts") or [] if m.get("useAsCompilationCache") is True]
        cache = {"pvcName": flagged[0]["name"], "mountPath": flagged[0].get("mountPoint")} if flagged else None
    if cache:
        spec = _with_compilation_cache(spec, cache, graph["spec"].get("backendFramework"))
    # the operator's base pod spec (its component defaults) sets a grace period the written spec may replace
    spec = {**spec, "terminationGracePeriodSeconds": spec.get("terminationGracePeriodSeconds",
                                                               130 if kind == "epp" else 60)}
    labels = {"nvidia.com/dynamo-graph-deployment-name": graph["metadata"]["name"],
              "nvidia.com/dynamo-component": name, "nvidia.com/dynamo-namespace": "default",
              "nvidia.com/dynamo-component-type": kind}
    metadata = {"name": "worker", "labels": {**(written.get("labels") or {}), **labels}}
    if written.get("annotations"):
        metadata["annotations"] = written["annotations"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def _with_compilation_cache(spec: dict, cache: dict, backend: str | None) -> dict:
    """graph.go applyCompilationCache and applyCompilationCacheVolume, as the server gets their result: the
    main container's mounts of the cache's claim without a path take the cache's mountPath (else vLLM's
    default, /root/.cache/vllm), a mount there is added when none is, and a claim volume of the cache's name
    when the pod has none. Only a cache the operator can mount (a named claim with a path) is applied."""
    claim = cache.get("pvcName")
    path = cache.get("mountPath") or {"vllm": "/root/.cache/vllm"}.get(backend or "")
    if not claim or not path:
        return spec
    containers = [dict(c) for c in spec.get("containers") or []]
    for container in containers:
        if container.get("name") != "main":
            continue
        mounts = [dict(m, mountPath=path) if m.get("name") == claim and not m.get("mountPath") else m
                  for m in container.get("volumeMounts") or []]
        at_path = [i for i, m in enumerate(mounts) if m.get("mountPath") == path]  # the first of them is kept
        container["volumeMounts"] = [m for i, m in enumerate(mounts) if i not in at_path[1:]] if at_path else \
            [*mounts, {"name": claim, "mountPath": path}]
    volumes = list(spec.get("volumes") or [])
    if not any(v.get("name") == claim for v in volumes):
        volumes.append({"name": claim, "persistentVolumeClaim": {"claimName": claim}})
    return {**spec, "containers": containers, "volumes": volumes}


def _mergo(base, over):
    """mergo.Merge(base, over, WithOverride), as the operator's conversion merges mainContainer over the
    container of the service's fields: mappings key by key, at a leaf `over` unless it is Go's zero value."""
    def zero(value) -> bool:
        return value in (None, False, "", 0, [], {})

    if not isinstance(base, dict) or not isinstance(over, dict):
        return base if zero(over) else over
    out = dict(base)
    for key, value in over.items():
        if isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key] = _mergo(out[key], value)
        elif not zero(value):
            out[key] = value
    return out
