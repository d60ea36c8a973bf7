"""RuntimeClasses as the API server validates them on create, and the pods that name one as the RuntimeClass
admission plugin admits them (written from Kubernetes 1.37's node validation and
plugin/pkg/admission/runtimeclass).

- A RuntimeClass: a handler that is a DNS label; overhead.podFixed read as a container's limits are
  (names a container takes, no negative amount, extended resources whole, hugepages in whole pages and
  beside cpu or memory); scheduling's nodeSelector as labels and its tolerations as a pod's, none given
  twice (the same key, operator, value and effect, as written: an empty operator is not Equal here).
- A pod (a Pod, a workload's template, a DGD component's pod) as the plugin takes it when the pod is
  created: one that writes an overhead is refused unless it names a RuntimeClass whose podFixed overhead is
  the same (amounts compared by value; an empty overhead stands for none only beside a class that has
  one); one whose nodeSelector gives a key of its class's scheduling.nodeSelector another value is
  refused. A class that is not in the set is left alone: the cluster may hold it."""

from __future__ import annotations

from dgdlint.model import Component, Model, PodSettings, Workload, as_list, as_map, as_str
from dgdlint.quantity import parse_quantity
from dgdlint.rules.pod_resources import overhead_table_problems
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.scheduling import node_selector_problems, toleration_problems
from dgdlint.rules.syntax import dns1123_label_problem

GROUP = "node.k8s.io"


def _toleration_key(toleration: dict) -> tuple:
    """What makes two tolerations of a class the same to the server (tolerationSeconds is not part of it)."""
    return tuple(as_str(toleration.get(name)) or "" for name in ("key", "operator", "value", "effect"))


def _scheduling_problems(scheduling: dict):
    yield from node_selector_problems(as_map(scheduling.get("nodeSelector")), ("scheduling", "nodeSelector"))
    seen = set()
    for index, toleration in enumerate(as_list(scheduling.get("tolerations"))):
        toleration, where = as_map(toleration), ("scheduling", "tolerations", index)
        yield from toleration_problems(toleration, where)
        key = _toleration_key(toleration)
        if key in seen:
            yield where, "toleration is given twice (the same key, operator, value and effect as an earlier one)"
        seen.add(key)


def runtime_class_problems(obj):
    handler = obj.value.get("handler")
    if isinstance(handler, str):
        if not handler:
            yield ("handler",), "handler is empty (one is required: the node's name for its container runtime)"
        elif dns1123_label_problem(handler):
            yield ("handler",), f"handler {handler!r} {dns1123_label_problem(handler)}"
    overhead = as_map(obj.value.get("overhead"))
    yield from overhead_table_problems(as_map(overhead.get("podFixed")), ("overhead", "podFixed"),
                                       "overhead.podFixed")
    yield from _scheduling_problems(as_map(obj.value.get("scheduling")))


def _same_amounts(ours: dict, theirs: dict) -> bool | None:
    """Whether two resource tables hold the same resources and amounts by value (the server's semantic
    equality); None when an amount does not parse (the schema stage says so)."""
    if set(map(str, ours)) != set(map(str, theirs)):
        return False
    amounts = {str(k): parse_quantity(as_str(v)) for k, v in ours.items()}
    other = {str(k): parse_quantity(as_str(v)) for k, v in theirs.items()}
    if None in amounts.values() or None in other.values():
        return None
    return amounts == other


def pod_problems(pod: PodSettings, classes: dict):
    """(path, problem, related) for what the RuntimeClass admission plugin refuses in a pod made of `pod`
    (`classes`: the RuntimeClasses of the set by name)."""
    name = as_str(pod.spec.get("runtimeClassName"))
    overhead = pod.spec.get("overhead")
    if name is not None and name not in classes:
        return  # the cluster may hold it
    runtime_class = classes.get(name)
    if overhead is not None and isinstance(overhead, dict):
        at = pod.field_path("overhead")
        if runtime_class is None:
            yield at, "writes an overhead and names no runtime class: the RuntimeClass admission plugin refuses " \
                      "it (the overhead comes from the runtimeClassName's class)", []
        elif runtime_class.value.get("overhead") is None:
            yield at, f"writes an overhead, and its {runtime_class.label} defines none: the RuntimeClass " \
                      "admission plugin refuses it", [runtime_class.location(("handler",), "the runtime class")]
        else:
            fixed = as_map(as_map(runtime_class.value["overhead"]).get("podFixed"))
            if overhead and _same_amounts(overhead, fixed) is False:
                yield at, f"writes an overhead other than its {runtime_class.label}'s podFixed: the RuntimeClass " \
                          "admission plugin refuses it (leave it out: the plugin copies the class's)", \
                    [runtime_class.location(("overhead",), "the class's overhead")]
    if runtime_class is None or pod.spec.get("nodeSelector") is None:
        return
    required = as_map(as_map(runtime_class.value.get("scheduling")).get("nodeSelector"))
    for key, value in pod.node_selector.items():
        if isinstance(value, str) and isinstance(required.get(key), str) and required[key] != value:
            yield pod.field_path("nodeSelector") + (key,), \
                f"nodeSelector {key}={value!r} conflicts with its {runtime_class.label}'s {key}={required[key]!r}: " \
                "the RuntimeClass admission plugin refuses it", \
                [runtime_class.location(("scheduling", "nodeSelector", key), "the class's node selector")]


def _fate(owner: Workload | Component) -> str:
    if isinstance(owner, Component):
        return "the graph is accepted and the pods the operator makes of it are refused"
    if owner.obj.kind == "Pod":
        return "the pod is refused when created"
    return "each of its pods is refused when created"


@rule(
    name="runtime-class-invalid", code="DGD644", severity="error", family="admission",
    title="Runtime classes, and the pods that name one, are ones the API server takes",
    rationale="""GPU pods often name a RuntimeClass (nvidia) shipped beside the deployment. The API server
    refuses a RuntimeClass whose handler is empty or no DNS label, whose overhead.podFixed names a
    resource a container cannot ask for or holds a negative amount, a fraction of an extended resource or
    hugepages that are not whole pages or come without cpu or memory, whose scheduling.nodeSelector is out
    of label syntax, or whose tolerations are out of syntax or repeat one. Its RuntimeClass admission
    plugin refuses a pod that writes an overhead other than its class's podFixed (or one without a class
    that defines an overhead), and a pod whose nodeSelector gives another value to a key the class's
    scheduling.nodeSelector sets. A workload or DynamoGraphDeployment is accepted and its pods are
    refused. The JSON schema takes all of these.""",
    remediation="Name the handler as the node's container runtime does (nvidia), leave a pod's overhead to "
                "the class, and keep the pods' nodeSelector in step with the class's.",
    reads=("RuntimeClass",
           "pod specs of Job, CronJob, Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet and DynamoGraphDeployment "
           "components (runtimeClassName, overhead, nodeSelector)"),
)
def runtime_class_invalid(model: Model):
    classes: dict = {}
    for obj in model.objects:
        if obj.kind == "RuntimeClass" and obj.group == GROUP:
            name = as_str(obj.metadata.get("name"))
            if name:
                classes.setdefault(name, obj)
            for path, problem in runtime_class_problems(obj):
                yield Hit(obj, path, f"{obj.label}: {problem}")
    for owner in model.pod_owners():
        for path, problem, related in pod_problems(owner.pod, classes):
            yield Hit(owner.obj, path, f"{owner.label}: {problem}; {_fate(owner)}", related=related)
