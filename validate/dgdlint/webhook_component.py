"""One component as the Dynamo operator's admission webhook reads it (webhook_model.py reads the graph):
its annotations, Grove and multinode settings, GPU memory service, each value with the path where the
manifest holds it or would hold it, in v1beta1 terms whichever shape the manifest has."""

from __future__ import annotations

from dataclasses import dataclass

from dgdlint.model import Component, as_list, as_map, as_str, walk
from dgdlint.once import once
from dgdlint.quantity import canonical_quantity, parse_quantity

# Annotation and label keys the operator reads (its consts package).
GROVE_UPDATE_STRATEGY = "nvidia.com/grove-update-strategy"
DISCOVERY_MODE = "nvidia.com/dynamo-kube-discovery-mode"
ORIGIN_VERSION = "nvidia.com/dynamo-operator-origin-version"
VLLM_EXECUTOR_BACKEND = "nvidia.com/vllm-distributed-executor-backend"
GPU_POWER_LIMIT = "dynamo.nvidia.com/gpu-power-limit"
NVIDIA_GPU = "nvidia.com/gpu"
MAIN_CONTAINER = "main"
FRONTEND_SIDECAR_CONTAINER = "sidecar-frontend"
GROVE_API_VERSION = "grove.io/v1alpha1"
INTER_POD, INTRA_POD = "InterPod", "IntraPod"


@dataclass(frozen=True)
class Value:
    """A manifest value (None when absent) and the path where it is, or would be."""

    value: object
    path: tuple

    @property
    def present(self) -> bool:
        return self.value is not None

    @property
    def text(self) -> str | None:
        return as_str(self.value)


@dataclass(frozen=True)
class Override:
    """A providerOverride: its fields as written, where it is, and which Grove object it would patch."""

    api_version: str | None
    target: str | None
    value: object
    path: tuple
    scope: str  # root, component, multinode.leader, multinode.worker


def value_at(obj, path: tuple) -> Value:
    return Value(obj.get(path), path)


def override_at(obj, path: tuple, scope: str) -> Override | None:
    raw = obj.get(path)
    if not isinstance(raw, dict):
        return None
    return Override(as_str(raw.get("apiVersion")), as_str(raw.get("target")), raw.get("value"), path, scope)


def _gms_mode(text: str | None) -> str:
    """The v1beta1 mode (v1alpha1 spells it `interPod`); unset means intra-pod, as the webhook reads it."""
    if not text:
        return INTRA_POD
    return text[:1].upper() + text[1:]


@dataclass
class ComponentView:
    """A component as the operator's webhook reads it, in either API version."""

    component: Component
    alpha: bool  # v1alpha1 service (spec.services)
    # v1alpha1: a v1beta1 frontendSidecar restored from nvidia.com/dgd-spec, and whether the service then builds
    # no pod template; only a view that carries the record's restored fields has them (hub_restore)
    restored_frontend_sidecar, restored_no_pod_template = None, False

    @once
    def obj(self):
        return self.component.obj

    @once
    def path(self) -> tuple:
        return self.component.path

    def field(self, *names) -> Value:
        # walked from the component, not from the object's root: read many times
        return Value(walk(self.raw, names), self.path + tuple(names))

    def experimental_path(self, name: str) -> tuple:
        """Where an experimental setting lives: v1beta1 under `experimental`, v1alpha1 on the service."""
        return self.path + ((name,) if self.alpha else ("experimental", name))

    @once
    def raw(self) -> dict:
        return as_map(self.obj.get(self.path))

    @property
    def type(self) -> Value:
        return self.field("componentType" if self.alpha else "type")

    @property
    def pod_annotations_path(self) -> tuple:
        return self.path + (("extraPodMetadata", "annotations") if self.alpha else ("podTemplate", "metadata",
                                                                                       "annotations"))

    @once
    def pod_annotations(self) -> dict:
        return as_map(self.obj.get(self.pod_annotations_path))

    @property
    def power_limit(self) -> Value | None:
        annotations = self.pod_annotations
        if annotations.get(GPU_POWER_LIMIT) is None:  # a null entry is pruned by the API server: none stored
            return None
        return Value(annotations[GPU_POWER_LIMIT], self.pod_annotations_path + (GPU_POWER_LIMIT,))

    @property
    def service_annotations(self) -> Value:
        """v1alpha1 services carry annotations of their own (v1beta1 components have none)."""
        return self.field("annotations") if self.alpha else Value(None, self.path + ("annotations",))

    @once
    def node_count(self) -> int:
        """GetNumberOfNodes: the multinode node count, 1 without multinode."""
        multinode = self.raw.get("multinode")
        if not isinstance(multinode, dict):
            return 1
        count = multinode.get("nodeCount", 2)  # the CRD's default
        return count if isinstance(count, int) and not isinstance(count, bool) else 0

    @property
    def is_multinode(self) -> bool:
        return self.node_count > 1

    @once
    def gms(self) -> Value | None:
        """The GPU memory service block, if the operator sees one (v1alpha1: only when enabled)."""
        path = self.experimental_path("gpuMemoryService")
        raw = self.obj.get(path)
        if not isinstance(raw, dict) or (self.alpha and raw.get("enabled") is not True):
            return None
        return Value(raw, path)

    @once
    def gms_mode(self) -> str | None:
        gms = self.gms
        return None if gms is None else _gms_mode(as_str(as_map(gms.value).get("mode")))

    @once
    def inter_pod_gms(self) -> bool:
        return self.gms_mode == INTER_POD

    @once
    def failover(self) -> Value | None:
        path = self.experimental_path("failover")
        raw = self.obj.get(path)
        if not isinstance(raw, dict) or (self.alpha and raw.get("enabled") is not True):
            return None
        return Value(raw, path)

    @property
    def failover_mode(self) -> str | None:
        failover = self.failover
        return None if failover is None else _gms_mode(as_str(as_map(failover.value).get("mode")))

    @property
    def num_shadows(self) -> int:
        """Inter-pod failover shadows, as the webhook counts them (unset or below 1 means 1)."""
        failover = self.failover
        count = as_map(failover.value).get("numShadows") if failover else None
        return count if isinstance(count, int) and not isinstance(count, bool) and count >= 1 else 1

    @once
    def force_scaling_group(self) -> Value:
        return value_at(self.obj, self.experimental_path("grove") + ("forceScalingGroup",))

    @once
    def forced_scaling_group(self) -> bool:
        return self.force_scaling_group.value is True

    @property
    def checkpoint(self) -> Value | None:
        path = self.experimental_path("checkpoint")
        raw = self.obj.get(path)
        return Value(raw, path) if isinstance(raw, dict) else None

    @once
    def uses_scaling_group(self) -> bool:
        """UsesPCSG: Grove renders the component as a PodCliqueScalingGroup."""
        return self.node_count > 1 or self.inter_pod_gms or self.forced_scaling_group

    @property
    def scaling_adapter(self) -> bool:
        raw = self.raw.get("scalingAdapter")
        if self.alpha:
            return isinstance(raw, dict) and raw.get("enabled") is True
        return isinstance(raw, dict)

    @property
    def replicas(self) -> int:
        """Replicas as the webhook compares them (unset is 1)."""
        value = self.raw.get("replicas")
        return value if isinstance(value, int) and not isinstance(value, bool) else 1

    @property
    def shared_memory_size(self) -> Value:
        """The size the webhook checks. v1alpha1 `sharedMemory.disabled: true` converts to size 0
        whatever `size` says (ConvertFromSharedMemorySpec), so no size is left to check."""
        if not self.alpha:
            return self.field("sharedMemorySize")
        if self.field("sharedMemory", "disabled").value is True:
            return Value(None, self.path + ("sharedMemory", "size"))
        return self.field("sharedMemory", "size")

    @property
    def main_declared(self) -> bool:
        """Whether the pod has the operator's main container (v1beta1: the container named `main`)."""
        return self.alpha or self.component.main.name == MAIN_CONTAINER

    def _main_gpu(self) -> tuple[str, tuple] | None:
        if not self.main_declared:
            return None
        for table in (self.component.main.limits, self.component.main.requests):
            for resource in sorted(table):
                name = resource.lower()
                if name == "gpu" or name.endswith("/gpu") or "/mig-" in name or name.startswith("gpu."):
                    return table[resource]
        return None

    @once
    def main_gpu_count(self) -> int:
        """The main container's scalar GPU count as the webhook reads it: limits first, then requests;
        0 when it asks none or the quantity is not a whole number."""
        found = self._main_gpu()
        amount = parse_quantity(found[0]) if found else None
        return int(amount) if amount is not None and amount == int(amount) else 0

    @property
    def power_gpu_quantity(self) -> Value:
        """The main container's `nvidia.com/gpu` (limits first, then requests) as a canonical quantity, with
        its path: what the webhook compares on an update under a power limit (effectiveNumberOfGPUsV1Beta1,
        the planner's scalar count). No other GPU resource counts; None when it asks none."""
        if self.main_declared:
            for table in (self.component.main.limits, self.component.main.requests):
                found = table.get(NVIDIA_GPU)
                if found is not None:
                    return Value(canonical_quantity(found[0]), found[1])
        return Value(None, (self.path if self.alpha else self.component.main.path) + ("resources",))

    def container_names(self) -> list[str]:
        """The names of the pod's containers as the operator sees them. v1alpha1: the main one is `main`,
        and a `frontendSidecar` becomes a container `sidecar-frontend` after the others, unless one has
        that name already (the conversion's appendFrontendSidecar)."""
        if not self.alpha:
            return self.sidecar_names()
        names = [MAIN_CONTAINER, *self.sidecar_names()]
        if isinstance(self.raw.get("frontendSidecar"), dict) and FRONTEND_SIDECAR_CONTAINER not in names:
            names.append(FRONTEND_SIDECAR_CONTAINER)
        return names

    def sidecar_names(self) -> list[str]:
        """The names of the containers the manifest writes (v1alpha1: those of extraPodSpec.containers)."""
        return [container.name for container in self._containers()]

    def _containers(self):
        component = self.component
        if self.alpha:
            return list(component.sidecars)
        return sorted([c for c in (component.main, *component.sidecars) if c.path[-2:-1] == ("containers",)],
                      key=lambda c: c.path[-1])

    def dra_claims_path(self) -> tuple | None:
        """The first container resources.claims (DRA) of the pod, as the webhook looks for them."""
        if self.alpha:
            claims = self.raw.get("resources", {}).get("claims") if isinstance(self.raw.get("resources"), dict) \
                else None
            if as_list(claims):
                return self.path + ("resources", "claims")
        pod = self.component.pod
        for key in ("containers", "initContainers") + (("mainContainer",) if self.alpha else ()):
            raw = pod.spec.get(key)
            entries = [(key, raw)] if key == "mainContainer" else [(key, i, c) for i, c in enumerate(as_list(raw))]
            for entry in entries:
                container = as_map(entry[-1])
                if as_list(as_map(container.get("resources")).get("claims")):
                    return pod.path + tuple(entry[:-1]) + ("resources", "claims")
        return None

    @property
    def provider_override(self) -> Override | None:
        return override_at(self.obj, self.path + ("providerOverride",), "component")

    def role_overrides(self) -> list[Override]:
        found = []
        for role in ("leader", "worker"):
            override = override_at(self.obj, self.path + ("multinode", role, "providerOverride"), f"multinode.{role}")
            if override is not None:
                found.append(override)
        return found

    @property
    def topology_constraint(self) -> Value:
        return self.field("topologyConstraint")
