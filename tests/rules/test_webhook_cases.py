"""The Dynamo operator's validating webhook, case by case: each case is a small manifest (or an old and a
new one, for what the webhook checks on an update) built here, the webhook function it exercises, and
the verdict read from that function in the operator's source (ai-dynamo/dynamo at 2a6da14c, under
deploy/operator/internal/webhook/validation/). The cases follow the situations the operator's own unit
tests cover (replicas, multinode, shared memory, volume mounts, ingress, restart, scaling adapter,
annotations, what an update may not change), written anew.

`expect` is the set of rules that report an error, among those that stand for admission: `crd-schema` or
`crd-cel-rule` where the CRD's schema or CEL refuses the object before the webhook sees it, the dgdlint
rule the parity table maps the webhook's check to, or nothing where the webhook admits the object. A
create case runs `dgdlint check`, an update case `dgdlint diff OLD NEW`."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
import yaml

from dgdlint.cli import main
from dgdlint.rules import REGISTRY
from dgdlint.rules.catalogue import DIFF_RULES, STAGE_FINDINGS

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0"
GPU = {"limits": {"nvidia.com/gpu": "1"}}


def _main(command: list[str], resources: dict | None = None) -> dict:
    container = {"name": "main", "image": IMAGE, "command": ["python3", "-m", command[0]], "args": command[1:]}
    if resources:
        container["resources"] = copy.deepcopy(resources)
    return container


def beta() -> dict:
    """A disaggregated-free v1beta1 graph: a frontend and one vLLM worker with a GPU."""
    return {
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
        "metadata": {"name": "qwen3-agg"},
        "spec": {"backendFramework": "vllm", "components": [
            {"name": "Frontend", "type": "frontend",
             "podTemplate": {"spec": {"containers": [_main(["dynamo.frontend"])]}}},
            {"name": "VllmWorker", "type": "worker",
             "podTemplate": {"spec": {"containers": [
                 _main(["dynamo.vllm", "--model", "Qwen/Qwen3-0.6B"], GPU)]}}},
        ]},
    }


def alpha() -> dict:
    """The same graph as a v1alpha1 object: services keyed by name, the main container in extraPodSpec."""
    def service(kind: str, command: list[str], resources: dict | None) -> dict:
        spec = {"componentType": kind, "replicas": 1,
                "extraPodSpec": {"mainContainer": {"image": IMAGE, "command": ["python3", "-m", command[0]],
                                                   "args": command[1:]}}}
        if resources:
            spec["resources"] = {"limits": {"gpu": "1"}}
        return spec
    return {
        "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
        "metadata": {"name": "qwen3-agg"},
        "spec": {"backendFramework": "vllm", "services": {
            "Frontend": service("frontend", ["dynamo.frontend"], None),
            "VllmWorker": service("worker", ["dynamo.vllm", "--model", "Qwen/Qwen3-0.6B"], GPU),
        }},
    }


def worker(dgd: dict) -> dict:
    if dgd["apiVersion"].endswith("v1alpha1"):
        return dgd["spec"]["services"]["VllmWorker"]
    return dgd["spec"]["components"][1]


def ann(values: dict[str, str]) -> Callable[[dict], object]:
    """Set metadata annotations on the graph."""
    return lambda dgd: dgd["metadata"].setdefault("annotations", {}).update(values)


NO_GROVE = {"nvidia.com/enable-grove": "false"}


@dataclass
class Case:
    name: str
    function: str  # the webhook function (or the CRD, for crd-schema) whose verdict the case holds
    new: Callable[[], dict]
    expect: set[str] = field(default_factory=set)
    old: Callable[[], dict] | None = None  # an update case: the object as stored


def changed(base: Callable[[], dict], *edits: Callable[[dict], object]) -> Callable[[], dict]:
    def build() -> dict:
        dgd = base()
        for edit in edits:
            edit(dgd)
        return dgd
    return build


def setw(**fields) -> Callable[[dict], object]:
    """Set fields on the worker component (or service)."""
    return lambda dgd: worker(dgd).update(copy.deepcopy(fields))


def setspec(**fields) -> Callable[[dict], object]:
    return lambda dgd: dgd["spec"].update(copy.deepcopy(fields))


CASES: list[Case] = []


def add(*cases: Case) -> None:
    CASES.extend(cases)


def setpath(path: str, value) -> Callable[[dict], object]:
    """Set a value at a dotted path from the object's root (list indexes as numbers), making maps on the way."""
    def edit(dgd: dict) -> None:
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        node = dgd
        for key in keys[:-1]:
            node = node[key] if isinstance(key, int) else node.setdefault(key, {})
        node[keys[-1]] = copy.deepcopy(value)
    return edit


def append(path: str, value) -> Callable[[dict], object]:
    def edit(dgd: dict) -> None:
        node = dgd
        for key in [int(k) if k.isdigit() else k for k in path.split(".")]:
            node = node[key]
        node.append(copy.deepcopy(value))
    return edit


def drop(path: str) -> Callable[[dict], object]:
    def edit(dgd: dict) -> None:
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        node = dgd
        for key in keys[:-1]:
            node = node[key]
        del node[keys[-1]]
    return edit


W = "spec.components.1"  # the v1beta1 worker
MAIN = W + ".podTemplate.spec.containers.0"
INTER_POD = {"gpuMemoryService": {"mode": "InterPod"}}
INTRA_POD = {"gpuMemoryService": {"mode": "IntraPod"}}
CONTAINER_DISCOVERY = {"nvidia.com/dynamo-kube-discovery-mode": "container"}
POWER = {"dynamo.nvidia.com/gpu-power-limit": "600"}
TOPOLOGY = {"clusterTopologyName": "gb200-topology"}

# --- create: the graph spec (validateDynamoGraphDeploymentSpec)
add(
    Case("a graph of a frontend and a worker is admitted", "validateDynamoGraphDeploymentSpec", beta),
    Case("a graph without components", "validateDynamoGraphDeploymentSpec",
         changed(beta, setspec(components=[])), {"no-components"}),
    Case("a negative replica count is the CRD's (minimum 0)", "CRD schema",
         changed(beta, setw(replicas=-1)), {"crd-schema"}),
    Case("zero replicas are admitted", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(replicas=0))),
    Case("minAvailable off the Grove pathway", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, ann(NO_GROVE), setw(minAvailable=1)), {"grove-pathway-required"}),
    Case("minAvailable on the Grove pathway", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(replicas=2, minAvailable=2))),
    Case("minAvailable above replicas is the CRD's (CEL)", "CRD x-kubernetes-validations",
         changed(beta, setw(replicas=1, minAvailable=2)), {"crd-cel-rule"}),
    Case("minAvailable above zero replicas", "CRD x-kubernetes-validations",
         changed(beta, setw(replicas=0, minAvailable=2))),
    Case("minAvailable 0 is the CRD's (minimum 1)", "CRD schema",
         changed(beta, setw(minAvailable=0)), {"crd-schema"}),
    # The defaulting webhook runs first and, on a create, overwrites the workload provider with the one
    # nvidia.com/enable-grove selects (defaultWorkloadProvider): the manifest's own value is not read.
    Case("minAvailable beside a manifest's workload-provider component", "defaultWorkloadProvider",
         changed(beta, ann({"nvidia.com/workload-provider": "component"}), setw(minAvailable=1))),
    Case("priorityClassName off the Grove pathway", "validateDynamoGraphDeploymentSpec",
         changed(beta, ann(NO_GROVE), setspec(priorityClassName="inference-high")), {"grove-pathway-required"}),
    Case("priorityClassName on the Grove pathway", "validateDynamoGraphDeploymentSpec",
         changed(beta, setspec(priorityClassName="inference-high"))),
    Case("spec.restart on create is the CRD's (CEL: unset on create)", "CRD x-kubernetes-validations",
         changed(beta, setspec(restart={"id": "r1"})), {"crd-cel-rule"}),
    Case("a component topologyConstraint without spec.topologyConstraint", "validateDynamoGraphDeploymentSpec",
         changed(beta, setw(topologyConstraint={"packDomain": "rack"})), {"topology-constraint-incomplete"}),
    Case("spec.topologyConstraint without packDomain and no component constraint",
         "validateDynamoGraphDeploymentSpec",
         changed(beta, setspec(topologyConstraint={"clusterTopologyName": "gb200-topology"})),
         {"topology-constraint-incomplete"}),
    Case("spec.topologyConstraint without packDomain beside a component constraint",
         "validateDynamoGraphDeploymentSpec",
         changed(beta, setspec(topologyConstraint={"clusterTopologyName": "gb200-topology"}),
                 setw(topologyConstraint={"packDomain": "rack"}))),
)

# --- create: Grove resource names (validateDynamoGraphDeploymentSpec, dgdComponentResourceNameLength):
# the PodCliqueSet name is shortened to what 45 characters leave, never below 8, so a single-node
# component name of 37 characters fits and one of 38 does not, whatever the graph's name.
LONG_GRAPH = "qwen3-" + "a" * 55
add(
    Case("a 37-character component under a long graph name fits", "dgdComponentResourceNameLength",
         changed(beta, setpath("metadata.name", LONG_GRAPH), setw(name="w" + "o" * 36))),
    Case("a 38-character component under a long graph name overflows", "dgdComponentResourceNameLength",
         changed(beta, setpath("metadata.name", LONG_GRAPH), setw(name="w" + "o" * 37)), {"grove-name-budget"}),
    Case("a 38-character component off the Grove pathway is not measured", "validateDynamoGraphDeploymentSpec",
         changed(beta, ann(NO_GROVE), setpath("metadata.name", LONG_GRAPH), setw(name="w" + "o" * 37))),
)

# --- create: annotations (validateObjectMeta)
for key, value, bad in [
    ("nvidia.com/dynamo-operator-origin-version", "1.5.0", False),
    ("nvidia.com/dynamo-operator-origin-version", "v1.5", False),
    ("nvidia.com/dynamo-operator-origin-version", "latest", True),
    ("nvidia.com/vllm-distributed-executor-backend", "mp", False),
    ("nvidia.com/vllm-distributed-executor-backend", "Ray", False),
    ("nvidia.com/vllm-distributed-executor-backend", "torchrun", True),
    ("nvidia.com/dynamo-kube-discovery-mode", "pod", False),
    ("nvidia.com/dynamo-kube-discovery-mode", "container", False),
    ("nvidia.com/dynamo-kube-discovery-mode", "endpoints", True),
    ("nvidia.com/grove-update-strategy", "RollingRecreate", False),
    ("nvidia.com/grove-update-strategy", "OnDelete", False),
    ("nvidia.com/grove-update-strategy", "rolling", True),
]:
    add(Case(f"annotation {key}={value}", "validateObjectMeta", changed(beta, ann({key: value})),
             {"operator-annotation-invalid"} if bad else set()))

# --- create: annotation values at the edges of the Go parsers
for key, value, bad in [
    # semver.NewVersion (Masterminds, lenient): a lowercase v and missing parts are fine, leading zeros in
    # the numbers too but not in a numeric pre-release part, nothing around it (as Masterminds semver
    # v3.5.0 and Go's strconv.Atoi below answer when run)
    ("nvidia.com/dynamo-operator-origin-version", "1", False),
    ("nvidia.com/dynamo-operator-origin-version", "1.5.0-dev+2a6da14c", False),
    ("nvidia.com/dynamo-operator-origin-version", "1.5.0.1", True),
    ("nvidia.com/dynamo-operator-origin-version", "", True),
    ("nvidia.com/dynamo-operator-origin-version", "01.2.3", False),
    ("nvidia.com/dynamo-operator-origin-version", "1.2-rc.1", False),
    ("nvidia.com/dynamo-operator-origin-version", "V1.2.3", True),
    ("nvidia.com/dynamo-operator-origin-version", " 1.2.3", True),
    ("nvidia.com/dynamo-operator-origin-version", "1.2.3-rc.01", True),
    ("nvidia.com/dynamo-operator-origin-version", "1.2.3-a..b", True),
    ("nvidia.com/dynamo-operator-origin-version", "18446744073709551616.0.0", True),
    # invalidVLLMDistributedExecutorBackendAnnotation: strings.ToLower, no trimming
    ("nvidia.com/vllm-distributed-executor-backend", "MP", False),
    ("nvidia.com/vllm-distributed-executor-backend", " ray", True),
    ("nvidia.com/vllm-distributed-executor-backend", "", True),
    # validateObjectMeta: discovery mode and Grove update strategy compared exactly
    ("nvidia.com/dynamo-kube-discovery-mode", "Container", True),
    ("nvidia.com/dynamo-kube-discovery-mode", "", True),
    ("nvidia.com/grove-update-strategy", "ondelete", True),
]:
    add(Case(f"annotation {key}={value!r}", "validateObjectMeta", changed(beta, ann({key: value})),
             {"operator-annotation-invalid"} if bad else set()))

# validateDGDPowerLimitValue: strconv.Atoi, then above zero
for value, bad in [("600", False), ("+600", False), ("0600", False), ("0", True), ("-300", True),
                   ("600W", True), (" 600", True), ("1e3", True), ("99999999999999999999", True),
                   ("\u0666\u0660\u0660", True), ("6_00", True), ("0x258", True), ("-0", True)]:
    add(Case(f"gpu-power-limit {value!r}", "validateDGDPowerLimitValue",
             changed(beta, setpath(W + ".podTemplate.metadata", {"annotations": {
                 "dynamo.nvidia.com/gpu-power-limit": value}})),
             {"gpu-power-limit-invalid"} if bad else set()))

# grovePathwayForDynamoGraphDeployment: nvidia.com/enable-grove is off only when it lowercases to "false"
for value, off in [("false", True), ("FALSE", True), ("False", True), (" false", False), ("0", False),
                   ("no", False)]:
    add(Case(f"priorityClassName with enable-grove {value!r}", "grovePathwayForDynamoGraphDeployment",
             changed(beta, ann({"nvidia.com/enable-grove": value}), setspec(priorityClassName="inference-high")),
             {"grove-pathway-required"} if off else set()))

# runtimeVersionOverrideRequired, runtimeversion.ParseImageVersion: the tag after the last ':' past the
# last '/', before any '@', spaces trimmed, MAJOR.MINOR.PATCH with an optional v or V and SemVer's
# pre-release and build parts
REPO = "nvcr.io/nvidia/ai-dynamo/vllm-runtime"
DIGEST = "@sha256:" + "0" * 64
for image, needs in [
    (REPO + ":1.6.0", False), (REPO + ":v1.6.0", False), (REPO + ":V1.6.0", False),
    (REPO + ":1.6.0-rc.1", False), (REPO + ":1.6.0+cuda12.9", False), (REPO + ":1.6.0-rc1+b.2", False),
    (REPO + ":1.6.0" + DIGEST, False),
    (REPO + ":1.6", True), (REPO + ":1.6.0.1", True), (REPO + ":01.6.0", True), (REPO + ":1.6.0-01", True),
    (REPO + ":vv1.6.0", True), (REPO + ":latest", True), (REPO, True), (REPO + DIGEST, True),
    ("registry.local:5000/ai-dynamo/vllm-runtime", True), ("registry.local:5000/ai-dynamo/vllm-runtime:1.6.0", False),
    (REPO + ":1.6.0-", True),
    # strings.TrimSpace trims the tag: a no-break space goes, the control U+001F (no space to Go) stays
    (REPO + ": 1.6.0", False), (REPO + ":\u00a01.6.0", False), (REPO + ":\x1f1.6.0", True),
]:
    add(Case(f"main image {image.replace(DIGEST, '@sha256:…')!r}", "runtimeversion.ParseImageVersion",
             changed(beta, setpath(MAIN + ".image", image)), {"runtime-version-required"} if needs else set()))


# --- create: component fields (validateDynamoComponentDeploymentSharedSpec and what it calls)
add(
    Case("a negative sharedMemorySize", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(sharedMemorySize="-1Gi")), {"shared-memory-negative"}),
    Case("sharedMemorySize 0 (shared memory off)", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(sharedMemorySize="0"))),
    Case("sharedMemorySize 8Gi", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(sharedMemorySize="8Gi"))),
    # resource.Quantity rounds past nano away from zero and keeps a negative zero at zero (as Go's
    # apimachinery answers when run): -0.1n is -1n, refused; -0Gi is 0.
    Case("sharedMemorySize -0.1n (rounds to -1n)", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(sharedMemorySize="-0.1n")), {"shared-memory-negative"}),
    Case("sharedMemorySize -1e-10 (rounds to -1n)", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(sharedMemorySize="-1e-10")), {"shared-memory-negative"}),
    Case("sharedMemorySize -0Gi", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(sharedMemorySize="-0Gi"))),
    Case("sharedMemorySize -1 as a number", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(sharedMemorySize=-1)), {"shared-memory-negative"}),
    Case("a multinode worker of two nodes", "validateMultinodeSpec",
         changed(beta, setw(multinode={"nodeCount": 2}))),
    Case("a multinode nodeCount of 1 is the CRD's (minimum 2)", "CRD schema",
         changed(beta, setw(multinode={"nodeCount": 1})), {"crd-schema"}),
    Case("frontendSidecar naming no container", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(frontendSidecar="frontend")), {"frontend-sidecar-invalid"}),
    Case("frontendSidecar naming a container of the pod", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(frontendSidecar="frontend"),
                 append(W + ".podTemplate.spec.containers",
                        {"name": "frontend", "image": IMAGE, "command": ["python3", "-m", "dynamo.frontend"]}))),
    Case("an epp component with two replicas", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setpath("spec.components.0", {
             "name": "Epp", "type": "epp", "replicas": 2,
             "eppConfig": {"configMapRef": {"name": "epp-config", "key": "epp.yaml"}},
             "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}})),
         {"epp-component-invalid"}),
    Case("an epp component without eppConfig", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setpath("spec.components.0", {
             "name": "Epp", "type": "epp", "replicas": 1,
             "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}})),
         {"epp-component-invalid"}),
    Case("the main container without an image", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, drop(MAIN + ".image")), {"main-image-missing"}),
    Case("a main image tag that is no runtime version, no override", "runtimeVersionOverrideRequired",
         changed(beta, setpath(MAIN + ".image", IMAGE.replace("1.6.0", "nightly"))),
         {"runtime-version-required"}),
    Case("a main image tag that is no runtime version, with an override", "runtimeVersionOverrideRequired",
         changed(beta, setpath(MAIN + ".image", IMAGE.replace("1.6.0", "nightly")),
                 setw(runtimeVersionOverride="1.6.0"))),
)

# --- create: experimental (validateExperimentalSpec, validateGPUMemoryServiceSpec, validateFailoverSpec)
add(
    Case("intra-pod GPU memory service on a worker with a GPU", "validateGPUMemoryServiceSpec",
         changed(beta, setw(experimental=INTRA_POD))),
    Case("the GPU memory service without a GPU", "validateGPUMemoryServiceSpec",
         changed(beta, setw(experimental=INTRA_POD), drop(MAIN + ".resources")), {"gpu-memory-service-invalid"}),
    Case("the GPU memory service on a frontend", "validateGPUMemoryServiceSpec",
         changed(beta, setpath("spec.components.0.experimental", INTRA_POD)), {"gpu-memory-service-invalid"}),
    Case("extraClientContainers naming no container", "validateGPUMemoryServiceSpec",
         changed(beta, setw(experimental={"gpuMemoryService": {"mode": "IntraPod",
                                                               "extraClientContainers": ["loader"]}})),
         {"gpu-memory-service-invalid"}),
    Case("inter-pod GPU memory service on the Grove pathway with vLLM", "validateDynamoGraphDeploymentSpec",
         changed(beta, setw(experimental=INTER_POD))),
    Case("inter-pod GPU memory service off the Grove pathway", "validateDynamoGraphDeploymentSpec",
         changed(beta, ann(NO_GROVE), setw(experimental=INTER_POD)), {"grove-pathway-required"}),
    Case("inter-pod GPU memory service with sglang", "validateDynamoGraphDeploymentSpec",
         changed(beta, setspec(backendFramework="sglang"), setw(experimental=INTER_POD),
                 setpath(MAIN + ".command", ["python3", "-m", "dynamo.sglang"]),
                 setpath(MAIN + ".args", ["--model-path", "Qwen/Qwen3-0.6B"]),
                 setpath("spec.components.0.podTemplate.spec.containers.0.image",
                         IMAGE.replace("vllm-runtime", "sglang-runtime")),
                 setpath(MAIN + ".image", IMAGE.replace("vllm-runtime", "sglang-runtime"))),
         {"gpu-memory-service-invalid"}),
    Case("intra-pod failover without container discovery", "validateObjectMeta",
         changed(beta, setw(experimental={**INTRA_POD, "failover": {"mode": "IntraPod"}})),
         {"intra-pod-failover-discovery"}),
    Case("intra-pod failover with container discovery", "validateObjectMeta",
         changed(beta, ann(CONTAINER_DISCOVERY), setw(experimental={**INTRA_POD, "failover": {"mode": "IntraPod"}}))),
    Case("inter-pod failover without the GPU memory service", "validateFailoverSpec",
         changed(beta, setw(experimental={"failover": {"mode": "InterPod", "numShadows": 1}})),
         {"failover-invalid"}),
    Case("inter-pod failover beside an intra-pod GPU memory service", "validateFailoverSpec",
         changed(beta, ann(CONTAINER_DISCOVERY),
                 setw(experimental={**INTRA_POD, "failover": {"mode": "InterPod", "numShadows": 1}})),
         {"failover-invalid"}),
    Case("inter-pod failover beside an inter-pod GPU memory service", "validateFailoverSpec",
         changed(beta, setw(experimental={**INTER_POD, "failover": {"mode": "InterPod", "numShadows": 1}}))),
    Case("failover numShadows 2 is the CRD's (maximum 1)", "CRD schema",
         changed(beta, setw(experimental={**INTER_POD, "failover": {"mode": "InterPod", "numShadows": 2}})),
         {"crd-schema"}),
    Case("grove.forceScalingGroup off the Grove pathway", "validateGroveSpec",
         changed(beta, ann(NO_GROVE), setw(experimental={"grove": {"forceScalingGroup": True}})),
         {"grove-pathway-required"}),
    Case("grove.forceScalingGroup false off the Grove pathway", "validateGroveSpec",
         changed(beta, ann(NO_GROVE), setw(experimental={"grove": {"forceScalingGroup": False}}))),
    Case("checkpoint job gmsClientContainers without the GPU memory service", "validateComponentCheckpointJobConfig",
         changed(beta, setw(experimental={"checkpoint": {"enabled": False,
                                                         "job": {"gmsClientContainers": ["saver"]}}})),
         {"checkpoint-incompatible"}),
)

# --- create: more of validateExperimentalSpec, the frontend sidecar, the power limit and the KV policy
SIDECAR = {"name": "frontend", "image": IMAGE, "command": ["python3", "-m", "dynamo.frontend"]}
add(
    Case("extraClientContainers naming a container twice", "validateGPUMemoryServiceSpec",
         changed(beta, append(W + ".podTemplate.spec.containers", {"name": "loader", "image": IMAGE}),
                 setw(experimental={"gpuMemoryService": {"mode": "IntraPod",
                                                         "extraClientContainers": ["loader", "loader"]}})),
         {"crd-list-duplicate", "gpu-memory-service-invalid"}),  # a listType set: the API server refuses first
    Case("extraClientContainers naming a container of the pod", "validateGPUMemoryServiceSpec",
         changed(beta, append(W + ".podTemplate.spec.containers", {"name": "loader", "image": IMAGE}),
                 setw(experimental={"gpuMemoryService": {"mode": "IntraPod", "extraClientContainers": ["loader"]}}))),
    # The webhook skips the names of an inter-pod service, but the CRD's CEL refuses them there.
    Case("extraClientContainers of an inter-pod GPU memory service", "CRD x-kubernetes-validations",
         changed(beta, setw(experimental={"gpuMemoryService": {"mode": "InterPod",
                                                               "extraClientContainers": ["loader"]}})),
         {"crd-cel-rule"}),
    Case("the GPU memory service on a decode component", "validateGPUMemoryServiceSpec",
         changed(beta, setw(type="decode", experimental=INTRA_POD))),
    Case("the GPU memory service on a planner", "validateGPUMemoryServiceSpec",
         changed(beta, setw(type="planner", experimental=INTRA_POD)), {"gpu-memory-service-invalid"}),
    Case("checkpoint job gmsClientContainers beside an inter-pod GPU memory service",
         "validateComponentCheckpointJobConfig",
         changed(beta, setw(experimental={**INTER_POD, "checkpoint": {"enabled": False,
                                                                      "job": {"gmsClientContainers": ["saver"]}}})),
         {"checkpoint-incompatible"}),
    Case("checkpoint job gmsClientContainers beside an intra-pod GPU memory service",
         "validateComponentCheckpointJobConfig",
         changed(beta, setw(experimental={**INTRA_POD, "checkpoint": {"enabled": False,
                                                                      "job": {"gmsClientContainers": ["saver"]}}}))),
    Case("an empty frontendSidecar", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(frontendSidecar="")), {"frontend-sidecar-invalid"}),
    Case("frontendSidecar without a pod template", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(frontendSidecar="frontend"), drop(W + ".podTemplate")),
         {"frontend-sidecar-invalid", "main-image-missing"}),  # no pod template: no main image either
    Case("frontendSidecar naming the main container", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(frontendSidecar="main"))),
    Case("frontendSidecar naming a container in another case", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setw(frontendSidecar="Frontend"), append(W + ".podTemplate.spec.containers", SIDECAR)),
         {"frontend-sidecar-invalid"}),
    Case("the GPU power limit beside the GPU memory service", "validateDGDComponentPowerAnnotation",
         changed(beta, setw(experimental=INTRA_POD),
                 setpath(W + ".podTemplate.metadata", {"annotations": POWER})),
         {"gpu-power-limit-invalid"}),
    Case("the GPU power limit beside a container's resource claims", "validateDGDComponentPowerAnnotation",
         changed(beta, setpath(W + ".podTemplate.metadata", {"annotations": POWER}),
                 setpath(W + ".podTemplate.spec.resourceClaims", [{"name": "gpu",
                                                                   "resourceClaimTemplateName": "one-gpu"}]),
                 setpath(MAIN + ".resources.claims", [{"name": "gpu"}])),
         {"gpu-power-limit-invalid"}),
    Case("a KV transfer policy naming a topology that is no DNS subdomain", "validateKvTransferPolicy",
         changed(beta, setspec(experimental={"kvTransferPolicy": {"clusterTopologyName": "GB200_Topology",
                                                                  "domain": "rack"}})),
         {"kv-transfer-policy-name-invalid"}),
    *[Case(f"a KV transfer policy's clusterTopologyName {name[:24]!r} ({len(name)} characters)",
           "validateKvTransferPolicy",
           changed(beta, setspec(experimental={"kvTransferPolicy": {"clusterTopologyName": name, "domain": "rack"}})),
           {"kv-transfer-policy-name-invalid"} if bad else set())
      for name, bad in [("gb200.topology", False), ("a" * 253, False), ("a" * 254, True), ("gb200-.topology", True),
                        ("gb200..topology", True), ("9gb200", False), ("gb200-", True)]],
    Case("a KV transfer policy naming a topology off the Grove pathway", "validateKvTransferPolicy",
         changed(beta, ann(NO_GROVE), setspec(experimental={"kvTransferPolicy": {
             "clusterTopologyName": "gb200-topology", "domain": "rack"}})),
         {"grove-pathway-required"}),
    Case("a KV transfer policy by node label off the Grove pathway", "validateKvTransferPolicy",
         changed(beta, ann(NO_GROVE), setspec(experimental={"kvTransferPolicy": {
             "labelKey": "topology.kubernetes.io/rack", "domain": "rack"}}))),
    Case("an epp component of one replica with eppConfig", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setpath("spec.components.0", {
             "name": "Epp", "type": "epp", "replicas": 1,
             "eppConfig": {"configMapRef": {"name": "epp-config", "key": "epp.yaml"}},
             "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}))),
    Case("a multinode epp component", "validateDynamoComponentDeploymentSharedSpec",
         changed(beta, setpath("spec.components.0", {
             "name": "Epp", "type": "epp", "replicas": 1, "multinode": {"nodeCount": 2},
             "eppConfig": {"configMapRef": {"name": "epp-config", "key": "epp.yaml"}},
             "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}})),
         {"epp-component-invalid"}),
)


# --- create: provider overrides (validateProviderOverride, provideroverride.ExpectedTarget and ValidateValue,
# groveTopologyOverrideCompositionErrors). The defaulting webhook fills a target left out.
GROVE_API = "grove.io/v1alpha1"
HOST = {"topologyConstraint": {"packDomain": "host"}}


def override(value=None, **fields) -> dict:
    return {"apiVersion": GROVE_API, "value": copy.deepcopy(HOST if value is None else value), **fields}


add(
    Case("a component override, its target left to the defaulting webhook", "validateProviderOverride",
         changed(beta, setw(providerOverride=override()))),
    Case("a component override naming its target", "validateProviderOverride",
         changed(beta, setw(providerOverride=override(target="PodCliqueTemplateSpec")))),
    Case("a component override off the Grove pathway", "validateProviderOverride",
         changed(beta, ann(NO_GROVE), setw(providerOverride=override())), {"provider-override-invalid"}),
    Case("a component override of another Grove apiVersion", "validateProviderOverride",
         changed(beta, setw(providerOverride={**override(), "apiVersion": "grove.io/v1beta1"})),
         {"provider-override-invalid"}),
    Case("a single-node component override naming the scaling-group target", "validateProviderOverride",
         changed(beta, setw(providerOverride=override(target="PodCliqueScalingGroupConfig"))),
         {"provider-override-invalid"}),
    Case("a multinode component override naming the scaling-group target", "ExpectedTarget",
         changed(beta, setw(multinode={"nodeCount": 2},
                            providerOverride=override(target="PodCliqueScalingGroupConfig")))),
    Case("a multinode leader override", "validateMultinodeRoleSpec",
         changed(beta, setw(multinode={"nodeCount": 2, "leader": {"providerOverride": override()}}))),
    Case("a multinode worker override on an inter-pod GPU memory service component", "ExpectedTarget",
         changed(beta, setw(experimental=INTER_POD,
                            multinode={"nodeCount": 2, "worker": {"providerOverride": override()}})),
         {"provider-override-invalid"}),
    Case("an override value setting more than the topology constraint", "validateTopologyOwner",
         changed(beta, setw(providerOverride=override({**HOST, "replicas": 2}))), {"provider-override-invalid"}),
    Case("an override value without the topology constraint", "validateTopologyOwner",
         changed(beta, setw(providerOverride=override({}))), {"provider-override-invalid"}),
    Case("an override's packDomain of the wrong type for Grove", "validateKnownGroveShape",
         changed(beta, setw(providerOverride=override({"topologyConstraint": {"packDomain": 5}}))),
         {"provider-override-invalid"}),
    Case("an override's topology constraint with a field this release does not know", "validateKnownGroveShape",
         changed(beta, setw(providerOverride=override({"topologyConstraint": {"packDomain": "host",
                                                                              "spreadDomain": "zone"}})))),
    Case("a graph override of the PodCliqueSet's template topology", "validatePodCliqueSetValue",
         changed(beta, setspec(providerOverride=override({"spec": {"template": {
             "topologyConstraint": {"packDomain": "rack"}}}})))),
    Case("a graph override reaching past the template", "validatePodCliqueSetValue",
         changed(beta, setspec(providerOverride=override({"spec": {"replicas": 2, "template": {
             "topologyConstraint": {"packDomain": "rack"}}}}))),
         {"provider-override-invalid"}),
    Case("an override's topology beside a typed topology constraint", "groveTopologyOverrideCompositionErrors",
         changed(beta, setspec(topologyConstraint={**TOPOLOGY, "packDomain": "rack"}),
                 setw(providerOverride=override())),
         {"topology-constraint-incomplete"}),
)


# --- create: checkpoint.ValidateCheckpointCompatibility (an enabled checkpoint; the operator's checkpoint
# feature gate is its configuration, assumed on) and failover with its mode left to the CRD's default
CHECKPOINT = {"enabled": True, "identity": {"model": "Qwen/Qwen3-0.6B", "backendFramework": "vllm"}}
add(
    Case("an enabled checkpoint beside an inter-pod GPU memory service", "ValidateCheckpointCompatibility",
         changed(beta, setw(experimental={**INTER_POD, "checkpoint": CHECKPOINT})), {"checkpoint-incompatible"}),
    Case("an enabled checkpoint beside failover", "ValidateCheckpointCompatibility",
         changed(beta, ann(CONTAINER_DISCOVERY),
                 setw(experimental={**INTRA_POD, "failover": {"mode": "IntraPod"}, "checkpoint": CHECKPOINT})),
         {"checkpoint-incompatible"}),
    Case("an enabled checkpoint beside an intra-pod GPU memory service", "ValidateCheckpointCompatibility",
         changed(beta, setw(experimental={**INTRA_POD, "checkpoint": CHECKPOINT}))),
    Case("a disabled checkpoint beside failover", "ValidateCheckpointCompatibility",
         changed(beta, ann(CONTAINER_DISCOVERY),
                 setw(experimental={**INTRA_POD, "failover": {"mode": "IntraPod"},
                                    "checkpoint": {**CHECKPOINT, "enabled": False}}))),
    Case("an enabled v1alpha1 checkpoint beside a disabled failover", "ValidateCheckpointCompatibility",
         changed(alpha, setw(checkpoint=CHECKPOINT, gpuMemoryService={"enabled": True},
                             failover={"enabled": False, "mode": "intraPod"}))),
    # failover {} is IntraPod by the CRD's default: beside an inter-pod service it mismatches, and as
    # intra-pod failover it needs container discovery.
    Case("failover of the default mode beside an inter-pod GPU memory service", "validateFailoverSpec",
         changed(beta, setw(experimental={**INTER_POD, "failover": {}})),
         {"failover-invalid", "intra-pod-failover-discovery"}),
)


# --- create: a v1alpha1 graph, validated as the hub it converts to plus its v1alpha1-only fields
# (validateDynamoGraphDeploymentSpecV1alpha1, validateDynamoComponentDeploymentSharedSpecV1alpha1)
add(
    Case("a v1alpha1 graph is admitted", "validateDynamoGraphDeploymentSpecV1alpha1", alpha),
    Case("a volume mount without mountPoint", "validateVolumeMountV1alpha1",
         changed(alpha, setw(volumeMounts=[{"name": "model-cache"}]),
                 setspec(pvcs=[{"name": "model-cache", "create": False}])),
         {"volume-mount-point-missing"}),
    Case("a volume mount with mountPoint", "validateVolumeMountV1alpha1",
         changed(alpha, setw(volumeMounts=[{"name": "model-cache", "mountPoint": "/models"}]),
                 setspec(pvcs=[{"name": "model-cache", "create": False}]))),
    Case("a compilation-cache volume mount without mountPoint", "validateVolumeMountV1alpha1",
         changed(alpha, setw(volumeMounts=[{"name": "jit-cache", "useAsCompilationCache": True}]),
                 setspec(pvcs=[{"name": "jit-cache", "create": False}]))),
    Case("an enabled ingress without host", "validateIngressSpecV1alpha1",
         changed(alpha, setpath("spec.services.Frontend.ingress", {"enabled": True})), {"ingress-host-missing"}),
    Case("an enabled ingress with host", "validateIngressSpecV1alpha1",
         changed(alpha, setpath("spec.services.Frontend.ingress", {"enabled": True, "host": "qwen.example.com"}))),
    Case("a disabled ingress without host", "validateIngressSpecV1alpha1",
         changed(alpha, setpath("spec.services.Frontend.ingress", {"enabled": False}))),
    Case("a service's vllm-distributed-executor-backend=ray", "validateDynamoComponentDeploymentSharedSpecV1alpha1",
         changed(alpha, setw(annotations={"nvidia.com/vllm-distributed-executor-backend": "ray"}))),
    Case("a service's vllm-distributed-executor-backend=gloo", "validateDynamoComponentDeploymentSharedSpecV1alpha1",
         changed(alpha, setw(annotations={"nvidia.com/vllm-distributed-executor-backend": "gloo"})),
         {"operator-annotation-invalid"}),
    Case("a spec.pvcs entry without name is the v1alpha1 CRD's (name required)", "CRD schema",
         changed(alpha, setspec(pvcs=[{"create": False}])), {"crd-schema"}),
    # The webhook's own check reaches a pvcs entry restored from a v1beta1 object's conversion record.
    Case("a v1beta1 graph whose dgd-spec record holds a pvcs entry without name", "validatePVCV1alpha1",
         changed(beta, ann({"nvidia.com/dgd-spec": '{"pvcs":[{"create":false}]}'})),
         {"operator-conversion-record-refused"}),
    Case("a v1beta1 graph whose dgd-spec record restores an ingress without host", "validateIngressSpecV1alpha1",
         changed(beta, ann({"nvidia.com/dgd-spec": '{"services":{"VllmWorker":{"ingress":{"enabled":true}}}}'})),
         {"operator-conversion-record-refused"}),
    Case("a v1beta1 graph whose dgd-spec record restores an ingress with host", "validateIngressSpecV1alpha1",
         changed(beta, ann({"nvidia.com/dgd-spec":
                            '{"services":{"VllmWorker":{"ingress":{"enabled":true,"host":"qwen.example.com"}}}}'}))),
    # The restored null service reaches validateDynamoGraphDeploymentSpecV1alpha1, which reads its fields
    # through the nil pointer: the webhook fails, and the API server refuses the request.
    Case("a v1beta1 graph whose dgd-spec record holds a null service no component has",
         "restoreDGDAlphaOnlySpecFromSaved",
         changed(beta, ann({"nvidia.com/dgd-spec": '{"services":{"Router":null}}'})),
         {"operator-conversion-record-refused"}),
    Case("a v1beta1 graph whose dgd-spec record holds a null service a component has",
         "restoreDGDAlphaOnlySpecFromSaved",
         changed(beta, ann({"nvidia.com/dgd-spec": '{"services":{"VllmWorker":null}}'}))),
    Case("a v1beta1 graph whose dgd-spec record is no JSON object (skipped)", "restorePreservedSpec",
         changed(beta, ann({"nvidia.com/dgd-spec": "not json"}))),
    Case("a v1beta1 graph whose dgd-spec record holds a named pvcs entry", "validatePVCV1alpha1",
         changed(beta, ann({"nvidia.com/dgd-spec": '{"pvcs":[{"name":"model-cache","create":false}]}'}))),
    Case("sharedMemory enabled without size is the v1alpha1 CRD's (CEL)", "CRD x-kubernetes-validations",
         changed(alpha, setw(sharedMemory={"disabled": False})), {"crd-cel-rule"}),
    Case("sharedMemory disabled without size", "ConvertFromSharedMemorySpec",
         changed(alpha, setw(sharedMemory={"disabled": True}))),
    # The CRD's rule wants a size above zero, and the webhook sees the same size as a negative
    # sharedMemorySize (ConvertFromSharedMemorySpec): both refuse it.
    Case("sharedMemory of a negative size", "validateDynamoComponentDeploymentSharedSpec",
         changed(alpha, setw(sharedMemory={"size": "-2Gi"})), {"crd-cel-rule", "shared-memory-negative"}),
    Case("frontendSidecar beside a container named sidecar-frontend",
         "validateDynamoComponentDeploymentSharedSpecV1alpha1",
         changed(alpha, setw(frontendSidecar={"image": IMAGE}),
                 setpath("spec.services.VllmWorker.extraPodSpec.containers",
                         [{"name": "sidecar-frontend", "image": IMAGE}])),
         {"frontend-sidecar-invalid"}),
    Case("frontendSidecar beside another container", "validateDynamoComponentDeploymentSharedSpecV1alpha1",
         changed(alpha, setw(frontendSidecar={"image": IMAGE}),
                 setpath("spec.services.VllmWorker.extraPodSpec.containers",
                         [{"name": "metrics-exporter", "image": "prom/node-exporter:v1.8.2"}]))),
    Case("intra-pod failover with two shadows", "validateFailoverSpecV1alpha1",
         changed(alpha, ann(CONTAINER_DISCOVERY),
                 setw(gpuMemoryService={"enabled": True, "mode": "intraPod"},
                      failover={"enabled": True, "mode": "intraPod", "numShadows": 2})),
         {"failover-invalid"}),
    Case("intra-pod failover with one shadow", "validateFailoverSpecV1alpha1",
         changed(alpha, ann(CONTAINER_DISCOVERY),
                 setw(gpuMemoryService={"enabled": True, "mode": "intraPod"},
                      failover={"enabled": True, "mode": "intraPod", "numShadows": 1}))),
    Case("disabled failover with two shadows (dormant)", "validateFailoverSpecV1alpha1",
         changed(alpha, setw(gpuMemoryService={"enabled": True, "mode": "interPod"},
                             failover={"enabled": False, "numShadows": 2}))),
    Case("v1alpha1 inter-pod failover without the GPU memory service", "validateFailoverSpec",
         changed(alpha, setw(failover={"enabled": True, "mode": "interPod", "numShadows": 1})),
         {"failover-invalid"}),
    Case("v1alpha1 inter-pod failover beside an intra-pod GPU memory service", "validateFailoverSpec",
         changed(alpha, ann(CONTAINER_DISCOVERY),
                 setw(gpuMemoryService={"enabled": True, "mode": "intraPod"},
                      failover={"enabled": True, "mode": "interPod", "numShadows": 1})),
         {"failover-invalid"}),
    Case("v1alpha1 inter-pod failover beside an inter-pod GPU memory service", "validateFailoverSpec",
         changed(alpha, setw(gpuMemoryService={"enabled": True, "mode": "interPod"},
                             failover={"enabled": True, "mode": "interPod", "numShadows": 1}))),
    Case("a GPU memory service without a mode (intra-pod)", "validateGPUMemoryServiceSpec",
         changed(alpha, setw(gpuMemoryService={"enabled": True}))),
    Case("deprecated dynamoNamespace and autoscaling warn only", "validateDynamoComponentDeploymentSharedSpecV1alpha1",
         changed(alpha, setw(dynamoNamespace="legacy", autoscaling={"enabled": True, "minReplicas": 1,
                                                                       "maxReplicas": 4}))),
)


# --- create: v1alpha1 GPU memory service and failover as the conversion hands them to the webhook: a
# disabled one converts to nothing (ConvertFrom...Spec runs only when enabled), so its fields are not
# validated, and an enabled failover then finds no GPU memory service.
add(
    Case("a disabled v1alpha1 GPU memory service naming no container", "ConvertFromGPUMemoryServiceSpec",
         changed(alpha, setw(gpuMemoryService={"enabled": False, "extraClientContainers": ["loader"]}))),
    Case("v1alpha1 failover beside a disabled GPU memory service", "validateFailoverSpec",
         changed(alpha, setw(gpuMemoryService={"enabled": False, "mode": "interPod"},
                             failover={"enabled": True, "mode": "interPod", "numShadows": 1})),
         {"failover-invalid"}),
    Case("enabled v1alpha1 intra-pod failover without container discovery", "validateObjectMeta",
         changed(alpha, setw(gpuMemoryService={"enabled": True, "mode": "intraPod"},
                             failover={"enabled": True, "mode": "intraPod", "numShadows": 1})),
         {"intra-pod-failover-discovery"}),
    Case("disabled v1alpha1 intra-pod failover without container discovery", "hasIntraPodFailover",
         changed(alpha, setw(gpuMemoryService={"enabled": True, "mode": "intraPod"},
                             failover={"enabled": False, "mode": "intraPod", "numShadows": 1}))),
    Case("a v1alpha1 GPU memory service on a frontend", "validateGPUMemoryServiceSpec",
         changed(alpha, setpath("spec.services.Frontend.gpuMemoryService", {"enabled": True})),
         {"gpu-memory-service-invalid"}),
    Case("a v1alpha1 GPU memory service without a GPU", "validateGPUMemoryServiceSpec",
         changed(alpha, setw(gpuMemoryService={"enabled": True}), drop("spec.services.VllmWorker.resources")),
         {"gpu-memory-service-invalid"}),
)


# --- create: the rest of the v1alpha1 view (validateEPPConfigV1alpha1, runtimeVersionImageAndPathV1Alpha1)
ALPHA_EPP = {"componentType": "epp", "replicas": 1,
             "extraPodSpec": {"mainContainer": {"image": IMAGE.replace("vllm-runtime", "frontend")}}}
add(
    Case("a v1alpha1 epp service with an empty eppConfig", "validateEPPConfigV1alpha1",
         changed(alpha, setpath("spec.services.Epp", {**ALPHA_EPP, "eppConfig": {}})), {"epp-component-invalid"}),
    Case("a v1alpha1 epp service with both configMapRef and config", "validateEPPConfigV1alpha1",
         changed(alpha, setpath("spec.services.Epp", {**ALPHA_EPP, "eppConfig": {
             "configMapRef": {"name": "epp-config", "key": "epp.yaml"},
             "config": {"plugins": [], "schedulingProfiles": []}}})),
         {"epp-component-invalid"}),
    Case("a v1alpha1 epp service with a configMapRef", "validateEPPConfigV1alpha1",
         changed(alpha, setpath("spec.services.Epp", {**ALPHA_EPP, "eppConfig": {
             "configMapRef": {"name": "epp-config", "key": "epp.yaml"}}}))),
    Case("a v1alpha1 service without a main container", "runtimeVersionImageAndPathV1Alpha1",
         changed(alpha, drop("spec.services.VllmWorker.extraPodSpec")), {"main-image-missing"}),
    Case("a v1alpha1 main image tag that is no runtime version", "runtimeVersionImageAndPathV1Alpha1",
         changed(alpha, setpath("spec.services.VllmWorker.extraPodSpec.mainContainer.image",
                                IMAGE.replace("1.6.0", "nightly"))),
         {"runtime-version-required"}),
    Case("a v1alpha1 main image tag that is no runtime version, with an override",
         "runtimeVersionImageAndPathV1Alpha1",
         changed(alpha, setpath("spec.services.VllmWorker.extraPodSpec.mainContainer.image",
                                IMAGE.replace("1.6.0", "nightly")), setw(runtimeVersionOverride="1.6.0"))),
    # No webhook check compares v1alpha1 service names without case (the v1beta1 CRD's CEL does).
    Case("v1alpha1 services named alike but for case", "validateDynamoGraphDeploymentSpecV1alpha1",
         changed(alpha, lambda dgd: dgd["spec"]["services"].__setitem__(
             "vllmworker", copy.deepcopy(dgd["spec"]["services"]["VllmWorker"])))),
)


# --- create: Grove names of v1alpha1 services, whose names the CRD does not restrict. The webhook measures
# them in bytes (Go's len of strings.ToLower(name)), so a letter outside ASCII counts twice or more.
def rename_worker(name: str) -> Callable[[dict], object]:
    def edit(dgd: dict) -> None:
        dgd["spec"]["services"][name] = dgd["spec"]["services"].pop("VllmWorker")
    return edit


add(
    Case("a v1alpha1 service of 37 bytes (19 letters) under a long graph name fits", "dgdComponentResourceNameLength",
         changed(alpha, setpath("metadata.name", LONG_GRAPH), rename_worker("w" + "ö" * 18))),
    Case("a v1alpha1 service of 39 bytes (20 letters) under a long graph name overflows",
         "dgdComponentResourceNameLength",
         changed(alpha, setpath("metadata.name", LONG_GRAPH), rename_worker("w" + "ö" * 19)), {"grove-name-budget"}),
    Case("a v1alpha1 service of 36 letters and 37 bytes fits", "dgdComponentResourceNameLength",
         changed(alpha, setpath("metadata.name", LONG_GRAPH), rename_worker("ö" + "w" * 35))),
    Case("a v1alpha1 service of 37 letters and 38 bytes overflows", "dgdComponentResourceNameLength",
         changed(alpha, setpath("metadata.name", LONG_GRAPH), rename_worker("ö" + "w" * 36)), {"grove-name-budget"}),
    # Go's strings.ToLower: U+023A (2 bytes) lowers to U+2C65 (3 bytes); 13 of them and a w are 40 bytes
    # lowered, 27 before.
    Case("a v1alpha1 service whose lowercase is longer in bytes overflows", "dgdComponentResourceNameLength",
         changed(alpha, setpath("metadata.name", LONG_GRAPH), rename_worker("w" + "\u023a" * 13)),
         {"grove-name-budget"}),
    # U+0130 (2 bytes) lowers to a plain i in Go (1 byte), not to i and a combining dot (3 bytes).
    Case("a v1alpha1 service whose capital dotted I lowers to i fits", "dgdComponentResourceNameLength",
         changed(alpha, setpath("metadata.name", LONG_GRAPH), rename_worker("\u0130" + "w" * 36))),
)


# --- update: `dgdlint diff OLD NEW`, OLD as the cluster stores it. The webhook runs the create checks on
# the new object first (Validate, the runtime version left out) and stops there when they fail; then
# ValidateUpdate (validateDynamoGraphDeploymentUpdate and what it calls). The cases keep the new side
# valid at create unless they say otherwise.
SHARED_UPDATE = "validateDynamoComponentDeploymentSharedSpecUpdate"
ADAPTER = {"scalingAdapter": {}}
add(
    Case("an unchanged graph", "validateDynamoGraphDeploymentUpdate", beta, old=beta),
    Case("a component added", "validateDynamoGraphDeploymentSpecUpdate",
         changed(beta, append("spec.components", {
             "name": "VllmPrefillWorker", "type": "prefill",
             "podTemplate": {"spec": {"containers": [
                 _main(["dynamo.vllm", "--model", "Qwen/Qwen3-0.6B", "--is-prefill-worker"], GPU)]}}})),
         {"diff-immutable-field"}, old=beta),
    Case("a component removed", "validateDynamoGraphDeploymentSpecUpdate",
         changed(beta, drop("spec.components.0")), {"diff-immutable-field"}, old=beta),
    Case("a component renamed", "validateDynamoGraphDeploymentSpecUpdate",
         changed(beta, setw(name="VllmDecodeWorker")), {"diff-immutable-field"}, old=beta),
    Case("backendFramework changed", "validateDynamoGraphDeploymentSpecUpdate",
         changed(beta, setspec(backendFramework="sglang"),
                 setpath("spec.components.0.podTemplate.spec.containers.0.image",
                         IMAGE.replace("vllm-runtime", "sglang-runtime")),
                 setpath(MAIN + ".image", IMAGE.replace("vllm-runtime", "sglang-runtime")),
                 setpath(MAIN + ".command", ["python3", "-m", "dynamo.sglang"]),
                 setpath(MAIN + ".args", ["--model-path", "Qwen/Qwen3-0.6B"])),
         {"diff-immutable-field"}, old=beta),
    Case("a single-node worker made multinode", SHARED_UPDATE,
         changed(beta, setw(multinode={"nodeCount": 2})), {"diff-immutable-field"}, old=beta),
    Case("a multinode worker made single-node", SHARED_UPDATE,
         beta, {"diff-immutable-field"}, old=changed(beta, setw(multinode={"nodeCount": 2}))),
    Case("a multinode worker's nodeCount 2 to 4 (no power limit)", SHARED_UPDATE,
         changed(beta, setw(multinode={"nodeCount": 4})), old=changed(beta, setw(multinode={"nodeCount": 2}))),
    Case("replicas changed under a scaling adapter", SHARED_UPDATE,
         changed(beta, setw(replicas=3, **ADAPTER)), {"update-replicas-scaling-adapter"},
         old=changed(beta, setw(replicas=2, **ADAPTER))),
    Case("replicas kept under a scaling adapter, the image changed", SHARED_UPDATE,
         changed(beta, setw(replicas=2, **ADAPTER), setpath(MAIN + ".image", IMAGE.replace("1.6.0", "1.6.1"))),
         old=changed(beta, setw(replicas=2, **ADAPTER))),
    Case("replicas written out as the default 1 under a scaling adapter",
         SHARED_UPDATE,
         changed(beta, setw(replicas=1, **ADAPTER)), old=changed(beta, setw(**ADAPTER))),
    Case("replicas changed without a scaling adapter", SHARED_UPDATE,
         changed(beta, setw(replicas=4)), old=changed(beta, setw(replicas=2))),
    Case("a scaling adapter removed while replicas change", SHARED_UPDATE,
         changed(beta, setw(replicas=4)), {"update-replicas-scaling-adapter"},
         old=changed(beta, setw(replicas=2, **ADAPTER))),
    Case("a scaling adapter added while replicas change", SHARED_UPDATE,
         changed(beta, setw(replicas=4, **ADAPTER)), {"update-replicas-scaling-adapter"},
         old=changed(beta, setw(replicas=2))),
    Case("a component topologyConstraint changed", "validateTopologyConstraintUpdate",
         changed(beta, setspec(topologyConstraint=TOPOLOGY), setw(topologyConstraint={"packDomain": "block"})),
         {"update-topology-constraint"},
         old=changed(beta, setspec(topologyConstraint=TOPOLOGY), setw(topologyConstraint={"packDomain": "rack"}))),
    Case("a component topologyConstraint kept", "validateTopologyConstraintUpdate",
         changed(beta, setspec(topologyConstraint=TOPOLOGY), setw(topologyConstraint={"packDomain": "rack"})),
         old=changed(beta, setspec(topologyConstraint=TOPOLOGY), setw(topologyConstraint={"packDomain": "rack"}))),
    Case("spec.topologyConstraint added", "validateSpecTopologyConstraintUpdate",
         changed(beta, setspec(topologyConstraint={**TOPOLOGY, "packDomain": "rack"})),
         {"update-topology-constraint"}, old=beta),
    Case("spec.topologyConstraint's packDomain changed", "validateSpecTopologyConstraintUpdate",
         changed(beta, setspec(topologyConstraint={**TOPOLOGY, "packDomain": "block"})),
         {"update-topology-constraint"},
         old=changed(beta, setspec(topologyConstraint={**TOPOLOGY, "packDomain": "rack"}))),
    Case("the inter-pod GPU memory service turned on", "validateExperimentalSpecUpdate",
         changed(beta, setw(experimental=INTER_POD)), {"update-gpu-memory-service-layout"}, old=beta),
    Case("the inter-pod GPU memory service dropped with experimental", SHARED_UPDATE,
         beta, {"update-gpu-memory-service-layout"}, old=changed(beta, setw(experimental=INTER_POD))),
    Case("the intra-pod GPU memory service turned on", "validateExperimentalSpecUpdate",
         changed(beta, setw(experimental=INTRA_POD)), old=beta),
    Case("grove.forceScalingGroup turned on", "validateGroveSpecUpdate",
         changed(beta, setw(experimental={"grove": {"forceScalingGroup": True}})),
         {"update-gpu-memory-service-layout"}, old=beta),
    Case("grove.forceScalingGroup false written out", "validateGroveSpecUpdate",
         changed(beta, setw(experimental={"grove": {"forceScalingGroup": False}})), old=beta),
    Case("the GPU power limit added", "validateDynamoGraphDeploymentSharedSpecUpdate",
         changed(beta, setpath(W + ".podTemplate.metadata", {"annotations": POWER})),
         {"update-gpu-power-limit"}, old=beta),
    Case("the GPU count changed under a power limit", "validateDynamoGraphDeploymentSharedSpecUpdate",
         changed(beta, setpath(W + ".podTemplate.metadata", {"annotations": POWER}),
                 setpath(MAIN + ".resources", {"limits": {"nvidia.com/gpu": "2"}})),
         {"update-gpu-power-limit"}, old=changed(beta, setpath(W + ".podTemplate.metadata", {"annotations": POWER}))),
    Case("the GPU count changed without a power limit", "validateDynamoGraphDeploymentSharedSpecUpdate",
         changed(beta, setpath(MAIN + ".resources", {"limits": {"nvidia.com/gpu": "2"}})), old=beta),
    Case("a KV transfer policy added", "validateDynamoGraphDeploymentExperimentalSpecUpdate",
         changed(beta, setspec(experimental={"kvTransferPolicy": {"clusterTopologyName": "gb200-topology",
                                                                  "domain": "rack"}})),
         {"update-kv-transfer-policy"}, old=beta),
    # OLD is the manifest as last applied: the stored object also holds what the defaulting webhook wrote
    # at create, the workload provider (grove unless nvidia.com/enable-grove is "false") and, under grove,
    # minAvailable 1 on each component (which the CRD then keeps: "minAvailable is immutable").
    Case("the manifest restates the provider the operator wrote", "validateObjectMetaUpdate",
         changed(beta, ann({"nvidia.com/workload-provider": "grove"})), old=beta),
    Case("the manifest names another provider than the operator wrote", "validateObjectMetaUpdate",
         changed(beta, ann(NO_GROVE), ann({"nvidia.com/workload-provider": "grove"})),
         {"update-workload-provider"}, old=changed(beta, ann(NO_GROVE))),
    # The new provider takes the Grove pathway away, so the create checks on the new object refuse the
    # minAvailable the CRD keeps (the webhook reports that and stops; dgdlint names both).
    Case("the stored workload provider changed", "validateObjectMetaUpdate",
         changed(beta, ann({"nvidia.com/workload-provider": "component"}),
                 setpath("spec.components.0.minAvailable", 1), setw(minAvailable=1)),
         {"update-workload-provider", "grove-pathway-required"},
         old=changed(beta, ann({"nvidia.com/workload-provider": "grove"}))),
    Case("a providerOverride target corrected from a stored wrong one", "validateProviderOverrideUpdate",
         changed(beta, setw(providerOverride={"apiVersion": "grove.io/v1alpha1", "target": "PodCliqueTemplateSpec",
                                              "value": {"topologyConstraint": {"packDomain": "host"}}})),
         {"update-provider-override-identity"},
         old=changed(beta, setw(providerOverride={"apiVersion": "grove.io/v1alpha1",
                                                  "target": "PodCliqueScalingGroupConfig",
                                                  "value": {"topologyConstraint": {"packDomain": "host"}}}))),
    Case("a providerOverride kept", "validateProviderOverrideUpdate",
         changed(beta, setw(providerOverride={"apiVersion": "grove.io/v1alpha1", "target": "PodCliqueTemplateSpec",
                                              "value": {"topologyConstraint": {"packDomain": "host"}}})),
         old=changed(beta, setw(providerOverride={"apiVersion": "grove.io/v1alpha1",
                                                  "target": "PodCliqueTemplateSpec",
                                                  "value": {"topologyConstraint": {"packDomain": "zone"}}}))),
    Case("the main image changed to a tag that is no runtime version", SHARED_UPDATE,
         changed(beta, setpath(MAIN + ".image", IMAGE.replace("1.6.0", "nightly"))),
         {"update-runtime-version"}, old=beta),
    Case("the main image changed to a tag led by U+001F", SHARED_UPDATE,
         changed(beta, setpath(MAIN + ".image", IMAGE.replace("1.6.0", "\x1f1.6.1"))),
         {"update-runtime-version"}, old=beta),
    Case("a stored tag that is no runtime version, unchanged", SHARED_UPDATE,
         changed(beta, setpath(MAIN + ".image", IMAGE.replace("1.6.0", "nightly")), setw(replicas=2)),
         old=changed(beta, setpath(MAIN + ".image", IMAGE.replace("1.6.0", "nightly")))),
    Case("the main image removed", SHARED_UPDATE,
         changed(beta, drop(MAIN + ".image")), {"update-runtime-version"}, old=beta),
    Case("a stored main container without an image, still without",
         SHARED_UPDATE,
         changed(beta, drop(MAIN + ".image"), setw(replicas=2)), old=changed(beta, drop(MAIN + ".image"))),
)

# --- update: components are matched by name (componentsByName), not by place; a v1alpha1 scaling
# adapter exists for the webhook only when enabled (the conversion drops a disabled one)
def swapped(dgd: dict) -> None:
    dgd["spec"]["components"].reverse()


ALPHA_WORKER = "spec.services.VllmWorker"
add(
    Case("the components listed in another order", "validateDynamoGraphDeploymentSpecUpdate",
         changed(beta, swapped), old=beta),
    Case("the components reordered, replicas kept under a scaling adapter", SHARED_UPDATE,
         changed(beta, setw(replicas=2, **ADAPTER), swapped), old=changed(beta, setw(replicas=2, **ADAPTER))),
    Case("the components reordered, a topologyConstraint kept", "validateTopologyConstraintUpdate",
         changed(beta, setspec(topologyConstraint=TOPOLOGY), setw(topologyConstraint={"packDomain": "rack"}),
                 swapped),
         old=changed(beta, setspec(topologyConstraint=TOPOLOGY), setw(topologyConstraint={"packDomain": "rack"}))),
    Case("a component renamed in case only", "validateDynamoGraphDeploymentSpecUpdate",
         changed(beta, setw(name="vllmworker")), {"diff-immutable-field"}, old=beta),
    Case("a v1alpha1 service renamed in case only", "validateDynamoGraphDeploymentSpecUpdate",
         changed(alpha, rename_worker("vllmworker")), {"diff-immutable-field"}, old=alpha),
    Case("v1alpha1 replicas changed under an enabled scaling adapter", SHARED_UPDATE,
         changed(alpha, setw(replicas=3, scalingAdapter={"enabled": True})), {"update-replicas-scaling-adapter"},
         old=changed(alpha, setw(replicas=2, scalingAdapter={"enabled": True}))),
    Case("v1alpha1 replicas changed beside a disabled scaling adapter", SHARED_UPDATE,
         changed(alpha, setw(replicas=3, scalingAdapter={"enabled": False})),
         old=changed(alpha, setw(replicas=2, scalingAdapter={"enabled": False}))),
    Case("a v1alpha1 main image changed to a tag that is no runtime version",
         "validateDynamoComponentDeploymentSharedSpecUpdateV1alpha1",
         changed(alpha, setpath(ALPHA_WORKER + ".extraPodSpec.mainContainer.image", IMAGE.replace("1.6.0", "dev"))),
         {"update-runtime-version"}, old=alpha),
)


# --- update: what validateDynamoGraphDeploymentSharedSpecUpdate compares under a power limit: the main
# container's nvidia.com/gpu as a canonical quantity (limit before request) and the node count
WITH_POWER = setpath(W + ".podTemplate.metadata", {"annotations": POWER})
add(
    Case("the GPU limit respelt 1 to 1000m under a power limit", "effectiveNumberOfGPUsV1Beta1",
         changed(beta, WITH_POWER, setpath(MAIN + ".resources", {"limits": {"nvidia.com/gpu": "1000m"}})),
         old=changed(beta, WITH_POWER)),
    Case("a GPU request added beside the same limit under a power limit", "effectiveNumberOfGPUsV1Beta1",
         changed(beta, WITH_POWER, setpath(MAIN + ".resources", {"limits": {"nvidia.com/gpu": "1"},
                                                                 "requests": {"nvidia.com/gpu": "1"}})),
         old=changed(beta, WITH_POWER)),
    Case("a sidecar's GPU changed under a power limit", "effectiveNumberOfGPUsV1Beta1",
         changed(beta, WITH_POWER, append(W + ".podTemplate.spec.containers", {
             "name": "metrics", "image": "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04",
             "resources": {"limits": {"nvidia.com/gpu": "1"}}})),
         old=changed(beta, WITH_POWER)),
    Case("the power limit changed", "validateDynamoGraphDeploymentSharedSpecUpdate",
         changed(beta, setpath(W + ".podTemplate.metadata", {"annotations": {
             "dynamo.nvidia.com/gpu-power-limit": "700"}})),
         {"update-gpu-power-limit"}, old=changed(beta, WITH_POWER)),
    Case("the power limit removed", "validateDynamoGraphDeploymentSharedSpecUpdate",
         beta, {"update-gpu-power-limit"}, old=changed(beta, WITH_POWER)),
    Case("nodeCount changed under a power limit", "validateDynamoGraphDeploymentSharedSpecUpdate",
         changed(beta, WITH_POWER, setw(multinode={"nodeCount": 4})), {"update-gpu-power-limit"},
         old=changed(beta, WITH_POWER, setw(multinode={"nodeCount": 2}))),
    Case("nodeCount 2 left to the CRD's default under a power limit", "validateDynamoGraphDeploymentSharedSpecUpdate",
         changed(beta, WITH_POWER, setw(multinode={})),
         old=changed(beta, WITH_POWER, setw(multinode={"nodeCount": 2}))),
    Case("the runtime version override dropped beside a tag that is no runtime version",
         SHARED_UPDATE,
         changed(beta, setpath(MAIN + ".image", IMAGE.replace("1.6.0", "nightly"))),
         {"update-runtime-version"},
         old=changed(beta, setpath(MAIN + ".image", IMAGE.replace("1.6.0", "nightly")),
                     setw(runtimeVersionOverride="1.6.0"))),
    Case("a KV transfer policy kept, its default enforcement written out",
         "validateDynamoGraphDeploymentExperimentalSpecUpdate",
         changed(beta, setspec(experimental={"kvTransferPolicy": {"clusterTopologyName": "gb200-topology",
                                                                  "domain": "rack", "enforcement": "required"}})),
         old=changed(beta, setspec(experimental={"kvTransferPolicy": {"clusterTopologyName": "gb200-topology",
                                                                      "domain": "rack"}}))),
)


# --- update: spec.restart (validateRestart, validateRestartStrategy): the CRD admits it once stored
RESTART = "spec.restart"
add(
    Case("a restart requested", "validateRestart", changed(beta, setpath(RESTART, {"id": "r1"})), old=beta),
    Case("a sequential restart naming every component once", "validateRestartStrategy",
         changed(beta, setpath(RESTART, {"id": "r1", "strategy": {"order": ["VllmWorker", "Frontend"]}})),
         old=beta),
    Case("a parallel restart with an order", "validateRestartStrategy",
         changed(beta, setpath(RESTART, {"id": "r1", "strategy": {"type": "Parallel",
                                                                  "order": ["VllmWorker", "Frontend"]}})),
         {"restart-order-invalid"}, old=beta),
    Case("a restart order naming a component twice", "validateRestartStrategy",
         changed(beta, setpath(RESTART, {"id": "r1", "strategy": {"order": ["VllmWorker", "VllmWorker",
                                                                           "Frontend"]}})),
         {"restart-order-invalid"}, old=beta),
    Case("a restart order leaving a component out", "validateRestartStrategy",
         changed(beta, setpath(RESTART, {"id": "r1", "strategy": {"order": ["VllmWorker"]}})),
         {"restart-order-invalid"}, old=beta),
    Case("a restart order naming no component of the graph", "validateRestartStrategy",
         changed(beta, setpath(RESTART, {"id": "r1", "strategy": {"order": ["VllmWorker", "Router"]}})),
         {"restart-order-invalid"}, old=beta),
    Case("a parallel restart with an empty order", "validateRestartStrategy",
         changed(beta, setpath(RESTART, {"id": "r1", "strategy": {"type": "Parallel", "order": []}})), old=beta),
    Case("a restart without an id is the CRD's (required, at least one character)", "CRD schema",
         changed(beta, setpath(RESTART, {"id": ""})), {"crd-schema"}, old=beta),
    Case("a restart order naming every component and one more", "validateRestartStrategy",
         changed(beta, setpath(RESTART, {"id": "r1", "strategy": {"order": ["VllmWorker", "Frontend", "Planner"]}})),
         {"restart-order-invalid"}, old=beta),
    Case("a restart order in another case", "validateRestartStrategy",
         changed(beta, setpath(RESTART, {"id": "r1", "strategy": {"order": ["vllmworker", "Frontend"]}})),
         {"restart-order-invalid"}, old=beta),
)


# What decides admission: the parse and schema stages (the API server), the admission rules (the
# webhook) and the update rules of `dgdlint diff`. dgdlint's advice (image pinning, GPU fit, hygiene)
# is no part of the webhook's verdict.
VERDICT = ({name for name, rule in REGISTRY.items() if rule.family == "admission"} | set(DIFF_RULES)
           | set(STAGE_FINDINGS))


class _Quoted(yaml.SafeDumper):
    """Every string double-quoted, so that '1e3' or 'no' stays a string for any YAML reader."""


_Quoted.add_representer(str, lambda dumper, text: dumper.represent_scalar("tag:yaml.org,2002:str", text, style='"'))


def _write(path, obj: dict) -> str:
    path.write_text(yaml.dump(obj, Dumper=_Quoted, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return str(path)


def run(tmp_path, case: Case, capsys) -> set[str]:
    new = _write(tmp_path / "new.yaml", case.new())
    command = ["check", new] if case.old is None else ["diff", _write(tmp_path / "old.yaml", case.old()), new]
    main([*command, "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    return {f["rule"] for f in findings if f["severity"] == "error" and f["rule"] in VERDICT}


@pytest.mark.parametrize("case", CASES, ids=[f"{c.function}: {c.name}" for c in CASES])
def test_dgdlint_gives_the_webhooks_verdict(tmp_path, case: Case, capsys):
    assert run(tmp_path, case, capsys) == case.expect


def test_the_cases_are_distinct():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))
