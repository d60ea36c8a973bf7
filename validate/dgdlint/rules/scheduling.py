"""Pod scheduling settings as the API server validates them in a pod spec (written from Kubernetes' core
validation): node selector labels, tolerations, node and pod (anti-)affinity, topology spread constraints.
A DynamoGraphDeployment keeps them as written in the pods the operator makes, so its components' settings
are read too: the graph is accepted, and its pods are refused."""

from __future__ import annotations

from dgdlint.model import Component, Model, PodSettings, as_list, as_map, as_str
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.selectors import node_term_problems, selector_problems
from dgdlint.rules.syntax import (
    dns1123_label_problem,
    label_value_problem,
    qualified_name_problem,
)

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
TOLERATION_OPERATORS = ("Equal", "Exists")
SPREAD_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
INCLUSION_POLICIES = ("Honor", "Ignore")


def _text(value: object) -> str:
    return as_str(value) or ""


def _key(key: str, where: tuple, what: str):
    problem = qualified_name_problem(key)
    if problem:
        yield where, f"{what} {key!r} {problem}"


def toleration_problems(toleration: dict, where: tuple):
    key, operator = _text(toleration.get("key")), _text(toleration.get("operator"))
    value, effect = _text(toleration.get("value")), _text(toleration.get("effect"))
    if key:
        yield from _key(key, where + ("key",), "toleration key")
    elif operator != "Exists":
        yield where + ("operator",), "has no key, so its operator must be Exists (which tolerates every taint)"
    if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
        yield where + ("effect",), "has tolerationSeconds, which takes effect NoExecute"
    if operator in ("Equal", ""):
        if label_value_problem(value):
            yield where + ("value",), f"toleration value {value!r} {label_value_problem(value)}"
    elif operator == "Exists":
        if value:
            yield where + ("value",), f"has operator Exists and value {value!r} (Exists takes no value)"
    else:
        yield where + ("operator",), f"toleration operator {operator!r} is not Equal or Exists"
    if effect and effect not in EFFECTS:
        yield where + ("effect",), f"taint effect {effect!r} is not one of {', '.join(EFFECTS)}"


def node_selector_problems(selector: dict, where: tuple):
    """A nodeSelector's keys and values as labels' (`where`: the map's path)."""
    for key, value in selector.items():
        yield from _key(str(key), where + (key,), "nodeSelector key")
        if isinstance(value, str) and label_value_problem(value):
            yield where + (key,), f"nodeSelector value {value!r} {label_value_problem(value)}"


def _weight_problem(entry: dict, where: tuple):
    weight = entry.get("weight")
    if type(weight) is int and not 1 <= weight <= 100:
        yield where + ("weight",), f"weight {weight} is not between 1 and 100"


def _node_affinity_problems(affinity: dict, where: tuple):
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, dict):
        terms = as_list(required.get("nodeSelectorTerms"))
        at = where + ("requiredDuringSchedulingIgnoredDuringExecution",)
        if not terms:
            yield at, "has a required node affinity without nodeSelectorTerms (one at least)"
        for index, term in enumerate(terms):
            yield from node_term_problems(as_map(term), at + ("nodeSelectorTerms", index), True)
    for index, entry in enumerate(as_list(affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        entry, at = as_map(entry), where + ("preferredDuringSchedulingIgnoredDuringExecution", index)
        yield from _weight_problem(entry, at)
        yield from node_term_problems(as_map(entry.get("preference")), at + ("preference",), False)


def _pod_term_problems(term: dict, where: tuple, labels: dict):
    for name in ("labelSelector", "namespaceSelector"):
        for at, problem in selector_problems(term.get(name), where + (name,)):
            yield at, f"has an invalid {name}: {problem}"
    for namespace in map(_text, as_list(term.get("namespaces"))):
        if dns1123_label_problem(namespace):
            yield where + ("namespaces",), f"namespace {namespace!r} {dns1123_label_problem(namespace)}"
    matching, mismatching = as_list(term.get("matchLabelKeys")), as_list(term.get("mismatchLabelKeys"))
    for name, keys in (("matchLabelKeys", matching), ("mismatchLabelKeys", mismatching)):
        if keys and term.get("labelSelector") is None:
            yield where + (name,), f"has {name} without a labelSelector"
            continue
        for index, key in enumerate(map(_text, keys)):
            yield from _key(key, where + (name, index), "label key")
            if name == "matchLabelKeys" and key in map(_text, mismatching):
                yield where + (name, index), f"label key {key!r} is in matchLabelKeys and mismatchLabelKeys"
        if name == "matchLabelKeys":
            yield from _merged_twice(keys, term.get("labelSelector"), labels, where + (name,), mismatching)
    topology = _text(term.get("topologyKey"))
    if not topology:
        yield where, "has no topologyKey"
    else:
        yield from _key(topology, where + ("topologyKey",), "topologyKey")


def _merged_twice(keys: list, selector: object, labels: dict, where: tuple, mismatching: list = (),
                  merged: bool = True):
    """matchLabelKeys the selector ends up naming twice, as the API server finds them on create: it appends
    to the selector an expression for each matchLabelKey and mismatchLabelKey the pod has a label for, then
    refuses a matchLabelKey named a second time. Unmerged (topology spread before Kubernetes 1.34), any
    matchLabelKey the selector names is refused."""
    if selector is None:
        return  # without a selector: "must not be specified", said above
    selector, keys = as_map(selector), [_text(key) for key in keys]
    position = {key: index for index, key in enumerate(keys)}  # the last index, as the server's map keeps
    seen = {str(key) for key in as_map(selector.get("matchLabels"))}
    written = [_text(as_map(expression).get("key")) for expression in as_list(selector.get("matchExpressions"))]
    if not merged:
        for index, key in enumerate(keys):
            if key in seen or key in written:
                yield where + (index,), f"matchLabelKeys {key!r} is named by the labelSelector too"
        return
    added = [key for key in [*keys, *map(_text, mismatching)] if key in labels]
    for key, how in [*((key, "the labelSelector names it twice") for key in written),
                     *((key, f"the server adds the pod's {key} label to a selector that names it") for key in added)]:
        if key in position and key in seen:
            # the server merges the keys into the selector as it creates each pod, so a workload's template is
            # stored and only its pods are refused (checked against the API server)
            yield where + (position[key],), f"matchLabelKeys {key!r} gets each pod refused as it is created: {how}"
        seen.add(key)


def _pod_affinity_problems(affinity: dict, where: tuple, labels: dict):
    for index, term in enumerate(as_list(affinity.get("requiredDuringSchedulingIgnoredDuringExecution"))):
        yield from _pod_term_problems(as_map(term), where + ("requiredDuringSchedulingIgnoredDuringExecution", index),
                                      labels)
    for index, entry in enumerate(as_list(affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        entry, at = as_map(entry), where + ("preferredDuringSchedulingIgnoredDuringExecution", index)
        yield from _weight_problem(entry, at)
        yield from _pod_term_problems(as_map(entry.get("podAffinityTerm")), at + ("podAffinityTerm",), labels)


def _spread_problems(constraints: list, where: tuple, labels: dict, merged: bool):
    for index, constraint in enumerate(constraints):
        constraint, at = as_map(constraint), where + (index,)
        skew, domains = constraint.get("maxSkew"), constraint.get("minDomains")
        topology, action = _text(constraint.get("topologyKey")), _text(constraint.get("whenUnsatisfiable"))
        if type(skew) is int and skew <= 0:
            yield at + ("maxSkew",), f"maxSkew {skew} is not above 0"
        if not topology:
            yield at + ("topologyKey",), "has an empty topologyKey"
        if action not in SPREAD_ACTIONS:  # a repeated topologyKey and whenUnsatisfiable: the list keys' check
            yield at + ("whenUnsatisfiable",), f"whenUnsatisfiable {action!r} is not one of {', '.join(SPREAD_ACTIONS)}"
        if type(domains) is int and domains <= 0:
            yield at + ("minDomains",), f"minDomains {domains} is not above 0"
        if domains is not None and action != "DoNotSchedule":
            yield at + ("minDomains",), "has minDomains, which takes whenUnsatisfiable DoNotSchedule"
        for name in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = as_str(constraint.get(name))
            if policy is not None and policy not in INCLUSION_POLICIES:
                yield at + (name,), f"{name} {policy!r} is not Honor or Ignore"
        keys = as_list(constraint.get("matchLabelKeys"))
        if keys and constraint.get("labelSelector") is None:
            yield at + ("matchLabelKeys",), "has matchLabelKeys without a labelSelector"
        for key_index, key in enumerate(map(_text, keys)):
            yield from _key(key, at + ("matchLabelKeys", key_index), "label key")
        yield from _merged_twice(keys, constraint.get("labelSelector"), labels, at + ("matchLabelKeys",),
                                 merged=merged)
        for selector_at, problem in selector_problems(constraint.get("labelSelector"), at + ("labelSelector",)):
            yield selector_at, f"has an invalid labelSelector: {problem}"


def node_selection_problems(pod: PodSettings):
    """(path, problem) for what the API server refuses in the pod's node selector and node affinity."""
    yield from node_selector_problems(pod.node_selector, pod.field_path("nodeSelector"))
    if isinstance(pod.affinity.get("nodeAffinity"), dict):
        yield from _node_affinity_problems(pod.affinity["nodeAffinity"], pod.field_path("affinity") + ("nodeAffinity",))


def scheduling_problems(pod: PodSettings, labels: dict, merge_spread: bool = True):
    """(path, problem) for what the API server refuses in a pod spec's scheduling settings (`labels`: the
    pod's own; `merge_spread`: whether the server merges a spread constraint's matchLabelKeys into its
    selector, from Kubernetes 1.34)."""
    yield from node_selector_problems(pod.node_selector, pod.field_path("nodeSelector"))
    for index, toleration in enumerate(pod.tolerations):
        yield from toleration_problems(as_map(toleration), pod.field_path("tolerations") + (index,))
    affinity = pod.affinity
    if isinstance(affinity.get("nodeAffinity"), dict):
        yield from _node_affinity_problems(affinity["nodeAffinity"], pod.field_path("affinity") + ("nodeAffinity",))
    for name in ("podAffinity", "podAntiAffinity"):
        if isinstance(affinity.get(name), dict):
            yield from _pod_affinity_problems(affinity[name], pod.field_path("affinity") + (name,), labels)
    yield from _spread_problems(pod.topology_spread_constraints, pod.field_path("topologySpreadConstraints"), labels,
                                merge_spread)


# Labels the operator stamps on every pod of a DGD component (consts.go), beside those written.
OPERATOR_POD_LABELS = ("nvidia.com/dynamo-graph-deployment-name", "nvidia.com/dynamo-component",
                       "nvidia.com/dynamo-namespace", "nvidia.com/dynamo-component-type")


def pod_labels(pod: PodSettings) -> dict:
    """The labels written for the pod a spec makes: its template's (a Pod's own), a v1alpha1 service's
    extraPodMetadata."""
    return as_map(as_map(pod.obj.get(pod.metadata_path)).get("labels"))


@rule(
    name="scheduling-spec-invalid", code="DGD628", severity="error", family="admission",
    title="Pod scheduling settings are ones the API server takes",
    rationale="""The API server refuses a pod whose scheduling settings are out of syntax: a nodeSelector
    label key or value; a toleration with operator Exists and a value (a common way to write the GPU
    toleration wrongly), without a key and not Exists, with tolerationSeconds but no NoExecute effect, or
    with an unknown operator or effect; a required node affinity without terms, a node selector operator
    without the values it needs (In, NotIn), with values it takes none of (Exists, DoesNotExist) or with
    other than one value (Gt, Lt); a weight outside 1-100; a pod (anti-)affinity term without topologyKey
    or with an invalid selector; matchLabelKeys the selector ends up naming twice (the server adds
    the pod's label for each to the selector on create; before Kubernetes 1.34 a spread constraint's
    selector may not name them at all); a topology spread constraint with
    maxSkew below 1, an unknown whenUnsatisfiable or minDomains without DoNotSchedule. A Job or Deployment
    is refused when applied (or, for matchLabelKeys, its pods are). A DynamoGraphDeployment is accepted,
    and the pods the operator makes of it are refused: the workers never start.""",
    remediation="Tolerate the GPU taint with `operator: Exists` and no value (or `operator: Equal` and the "
                "taint's value); give every affinity term a topologyKey such as kubernetes.io/hostname.",
    reads=("pod specs of Job, CronJob, Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet",
           "DynamoGraphDeployment component pod settings (nodeSelector, tolerations, affinity, "
           "topologySpreadConstraints)"),
)
def scheduling_spec_invalid(model: Model):
    merge_spread = model.release.kubernetes_at_least("1.34")
    for owner in model.pod_owners():
        labels = pod_labels(owner.pod)
        if isinstance(owner, Component):
            labels = {**labels, **dict.fromkeys(OPERATOR_POD_LABELS, "")}
        for path, problem in scheduling_problems(owner.pod, labels, merge_spread):
            yield Hit(owner.obj, path, f"{owner.label}: {problem}")
