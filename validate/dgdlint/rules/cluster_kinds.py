"""Cluster-wide kinds a deployment brings along, as the API server validates them on create (written from
Kubernetes 1.37's scheduling validation and the Priority admission plugin, and the core validation of a
Namespace), and a note for the built-in kinds no rule reads beyond their schema and metadata.

- A PriorityClass: a value of at most 1,000,000,000 (higher values are the system's), a name starting
  `system-` only for the two system classes as the cluster defines them, a preemption policy the server
  knows, and one global default among the classes given.
- A Namespace: finalizers in its spec that are qualified names, a domain-less one only a standard one
  (`kubernetes`, `orphan`, `foregroundDeletion`)."""

from __future__ import annotations

from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.rules.metadata import STANDARD_FINALIZERS
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import as_int, qualified_name_problem

HIGHEST_USER_PRIORITY = 1_000_000_000
# The classes every cluster defines at bootstrap (name: value); their globalDefault is false.
SYSTEM_PRIORITY_CLASSES = {"system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000}
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def priority_class_problems(obj):
    name = as_str(obj.metadata.get("name")) or ""
    value = as_int(obj.value.get("value"))
    default = obj.value.get("globalDefault") is True
    if name.startswith("system-"):
        known = SYSTEM_PRIORITY_CLASSES.get(name)
        if known is None:
            yield ("metadata", "name"), f"name {name!r} starts with 'system-', which only the system's own " \
                f"classes ({', '.join(SYSTEM_PRIORITY_CLASSES)}) may"
        elif value is not None and value != known:
            yield ("metadata", "name"), f"{name} is a system class, whose value must be {known}"
        elif default:
            yield ("metadata", "name"), f"{name} is a system class, which is not the global default"
    elif value is not None and value > HIGHEST_USER_PRIORITY:
        yield ("value",), f"value {value} is above {HIGHEST_USER_PRIORITY:,}, the highest a class that is " \
            "not the system's may have"
    policy = obj.value.get("preemptionPolicy")
    if isinstance(policy, str) and policy not in PREEMPTION_POLICIES:
        what = "is empty" if policy == "" else f"{policy!r} is not one of {', '.join(PREEMPTION_POLICIES)}"
        yield ("preemptionPolicy",), f"preemptionPolicy {what}"


@rule(
    name="priority-class-invalid", code="DGD635", severity="error", family="admission",
    title="Priority classes are ones the API server takes",
    rationale="""The API server refuses a PriorityClass whose value is above 1,000,000,000 (higher values are
    kept for the system's classes), whose name starts with `system-` unless it is one of the two system
    classes with their own value, or whose preemptionPolicy is neither PreemptLowerPriority nor Never; its
    Priority admission plugin refuses a second class marked globalDefault. Pods that name the class then
    cannot be created either. The JSON schema takes all of these.""",
    remediation="Keep a class's value at 1,000,000,000 or below, name it without the `system-` prefix, and "
                "mark one class at most as globalDefault.",
    reads=("PriorityClass",),
)
def priority_class_invalid(model: Model):
    first_default = None
    for obj in model.objects:
        if obj.kind != "PriorityClass" or obj.group != "scheduling.k8s.io":
            continue
        for path, problem in priority_class_problems(obj):
            yield Hit(obj, path, f"{obj.label}: {problem}")
        if obj.value.get("globalDefault") is True:
            if first_default is None:
                first_default = obj
            else:
                yield Hit(obj, ("globalDefault",), f"{obj.label}: is marked globalDefault, as "
                          f"{first_default.label} is; the server takes one default class only",
                          related=[first_default.location(("globalDefault",), "the first default class")])


@rule(
    name="namespace-spec-invalid", code="DGD636", severity="error", family="admission",
    title="Namespaces are ones the API server takes",
    rationale="""The API server refuses a Namespace whose spec.finalizers holds a name that is no qualified
    name, or one without a domain other than the standard ones (kubernetes, orphan, foregroundDeletion). The
    JSON schema takes any text.""",
    remediation="Leave spec.finalizers to the server, or qualify a finalizer with a domain "
                "(example.com/cleanup).",
    reads=("Namespace",),
)
def namespace_spec_invalid(model: Model):
    for obj in model.objects:
        if obj.kind != "Namespace" or obj.group != "":
            continue
        for index, text in enumerate(as_list(as_map(obj.value.get("spec")).get("finalizers"))):
            if not isinstance(text, str):
                continue  # the schema stage says so
            path = ("spec", "finalizers", index)
            problem = qualified_name_problem(text)
            if problem:
                yield Hit(obj, path, f"{obj.label}: finalizer {text!r} {problem}")
            elif "/" not in text and text not in STANDARD_FINALIZERS:
                yield Hit(obj, path, f"{obj.label}: finalizer {text!r} is neither a standard one "
                          f"({', '.join(STANDARD_FINALIZERS)}) nor qualified with a domain (example.com/{text})")
