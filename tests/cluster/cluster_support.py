"""What the cluster tier's test modules share besides fixtures."""

from __future__ import annotations

import pytest

# Marked `cluster` (`pytest -m cluster` runs only these) and kept on one xdist worker, so the session's
# control plane starts once (`--dist loadgroup`, as `make test` runs).
CLUSTER = [pytest.mark.cluster, pytest.mark.xdist_group("cluster")]


def operator_pod(graph: dict) -> dict:
    """The Pod the Dynamo operator makes of a DGD's first component, as far as the API server's pod validation
    reads it: its pod template's spec (v1beta1), or a v1alpha1 service's extraPodSpec with its mainContainer
    as `main`, which takes the service's own probes, envs and envFromSecret and an image; with the labels the
    operator stamps, and the grace period its component defaults give a pod spec that sets none."""
    if "components" in graph["spec"]:
        component = graph["spec"]["components"][0]
        name, kind = component["name"], component.get("type", "")
        spec = component["podTemplate"]["spec"]
        written = component["podTemplate"].get("metadata") or {}
    else:
        name, service = next(iter(graph["spec"]["services"].items()))
        kind = service.get("componentType", "")
        spec = dict(service.get("extraPodSpec") or {})
        written = service.get("extraPodMetadata") or {}  # the operator's pod template metadata
        main = dict(spec.pop("mainContainer", {}), name="main")
        main.setdefault("image", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0")
        main.update({probe: service[probe] for probe in ("livenessProbe", "readinessProbe") if probe in service})
        if service.get("envs"):  # the service's envs come first, its main container's after them
            main["env"] = [*service["envs"], *main.get("env", [])]
        if service.get("envFromSecret"):
            main["envFrom"] = [*main.get("envFrom", []), {"secretRef": {"name": service["envFromSecret"]}}]
        spec["containers"] = [main]
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
