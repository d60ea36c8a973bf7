"""Annotations and labels as the Dynamo operator's webhook and the API server read them: the operator's
own annotation keys take only the values it knows, intra-pod failover needs container discovery, and every
annotation and label value is a string. The operator's conversion records: webhook_conversion.py."""

from __future__ import annotations

import re

from dgdlint.defaulting import WORKLOAD_PROVIDER
from dgdlint.model import Model, as_map, as_str
from dgdlint.rules.registry import Hit, rule
from dgdlint.webhook_component import (
    DISCOVERY_MODE,
    GROVE_UPDATE_STRATEGY,
    INTRA_POD,
    ORIGIN_VERSION,
    VLLM_EXECUTOR_BACKEND,
)
from dgdlint.webhook_model import graph_views

# The operator parses the origin version leniently (Masterminds semver's NewVersion): `1.2`, `v1` and
# `1.4.0-rc.1` pass; words, empty strings and four parts do not.
_LOOSE_SEMVER = re.compile(r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
                           r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?")
_UINT64_MAX = 2**64 - 1


def is_loose_semver(text: str) -> bool:
    match = _LOOSE_SEMVER.fullmatch(text)
    if match is None:
        return False
    if any(int(part.lstrip(".")) > _UINT64_MAX for part in match.groups()[:3] if part):
        return False
    pre = match.group(4) or ""
    return not any(part.isdigit() and len(part) > 1 and part[0] == "0" for part in pre.split(".") if pre)


# key -> (allowed values, compared case-insensitively)
_CHOICES = {
    VLLM_EXECUTOR_BACKEND: (("mp", "ray"), True),
    GROVE_UPDATE_STRATEGY: (("RollingRecreate", "OnDelete"), False),
    DISCOVERY_MODE: (("pod", "container"), False),
    WORKLOAD_PROVIDER: (("component", "grove"), False),
}


def choice_problem(key: str, text: str | None) -> str | None:
    allowed, fold = _CHOICES[key]
    value = (text or "").lower() if fold else text
    if value in ((a.lower() for a in allowed) if fold else allowed):
        return None
    return f"is {text!r}; the operator accepts {' or '.join(repr(a) for a in allowed)}"


@rule(
    name="operator-annotation-invalid", code="DGD610", severity="error", family="admission",
    title="The operator's annotations carry values it accepts",
    rationale="""The operator's validating webhook rejects a DynamoGraphDeployment whose
    `nvidia.com/dynamo-operator-origin-version` is not a version, whose
    `nvidia.com/vllm-distributed-executor-backend` (on the graph, or on a v1alpha1 service) is not
    `mp` or `ray`, whose `nvidia.com/grove-update-strategy` is not `RollingRecreate` or `OnDelete`,
    whose `nvidia.com/dynamo-kube-discovery-mode` is not `pod` or `container`, or, on an update
    (`dgdlint diff`), whose `nvidia.com/workload-provider` is not `component` or `grove`. On create the
    operator's defaulting webhook overwrites the workload provider before validation (grove, or
    component with `nvidia.com/enable-grove: "false"`), so `dgdlint check` does not read it.""",
    remediation="Use one of the values the message lists, or remove the annotation to get the operator's "
                "default.",
    fixable="""Writes the value the operator accepts that the annotation spells in another case or with spaces
    around it (`Container` becomes `container`, `rollingrecreate` `RollingRecreate`, " ray" `ray`). Any other
    value, and an origin version that is none, is left for a person.""",
)
def operator_annotation_invalid(model: Model):
    for view in graph_views(model):
        label = view.obj.label
        origin = view.annotation(ORIGIN_VERSION)
        if origin is not None and not is_loose_semver(origin.text or ""):
            yield Hit(view.obj, origin.path, f"{label}: annotation {ORIGIN_VERSION} is {origin.text!r}, not a "
                                             "semantic version")
    for view, key, text, path, label in annotation_choices(model):
        problem = choice_problem(key, text)
        if problem:
            yield Hit(view.obj, path, f"{label}: annotation {key} {problem}")


def annotation_choices(model: Model):
    """(graph view, key, text, path, whose) of each of the operator's annotations with a fixed set of values
    that the webhook reads: on the graph, and the executor backend on a v1alpha1 service."""
    for view in graph_views(model):
        for key in _CHOICES:
            if key == WORKLOAD_PROVIDER and view.previous is None:
                continue  # on create the defaulting webhook overwrites it before validation
            found = view.annotation(key)
            if found is not None:
                yield view, key, found.text, found.path, view.obj.label
        for component in view.components:
            annotations = as_map(component.service_annotations.value)
            if VLLM_EXECUTOR_BACKEND in annotations:
                yield view, VLLM_EXECUTOR_BACKEND, as_str(annotations[VLLM_EXECUTOR_BACKEND]), \
                    component.service_annotations.path + (VLLM_EXECUTOR_BACKEND,), component.component.label


def allowed_spelling(key: str, text: str | None) -> str | None:
    """The one value the operator accepts for `key` that `text` spells otherwise (in another case, with spaces
    around it), if there is one."""
    found = [value for value in _CHOICES[key][0] if value.lower() == (text or "").strip().lower()]
    return found[0] if len(found) == 1 and found[0] != text else None


@rule(
    name="intra-pod-failover-discovery", code="DGD611", severity="error", family="admission",
    title="Intra-pod failover runs with container discovery",
    rationale="""With intra-pod GPU memory service failover (a primary and a shadow engine in one pod) the
    engines are told apart per container, so the operator's webhook rejects the graph unless
    `nvidia.com/dynamo-kube-discovery-mode` is `container`.""",
    remediation='Annotate the DynamoGraphDeployment with `nvidia.com/dynamo-kube-discovery-mode: "container"`.',
    fixable="""Where the failover mode is written as intra-pod, adds the annotation with `container` (and an
    annotations map for it), or writes `container` for a spelling the operator does not take (`Container`,
    "container "). Another mode (`pod`), or a failover mode left to its intra-pod default, is left for a
    person: container discovery, or inter-pod failover.""",
)
def intra_pod_failover_discovery(model: Model):
    for view in graph_views(model):
        intra = [c for c in view.components if c.failover_mode == INTRA_POD]
        if not intra:
            continue
        mode = view.annotation(DISCOVERY_MODE)
        if mode is not None and mode.text == "container":
            continue
        where = mode.path if mode is not None else ("metadata",)
        shown = f"is {mode.text!r}" if mode is not None else "is not set"
        yield Hit(view.obj, where,
                  f"{intra[0].component.label} uses intra-pod failover, but annotation "
                  f"{DISCOVERY_MODE} {shown}; it must be \"container\"",
                  related=[view.obj.location(intra[0].failover.path, "the intra-pod failover")])


def _metadata_maps(model: Model):
    """(object, path of an annotation or label map) of custom resources' own metadata: their CRD schemas
    leave metadata to the API server, while built-in kinds' schemas and a DGD's nested maps (pod
    template, services) are the schema stage's."""
    for obj in model.objects:
        if obj.is_custom:
            for key in ("annotations", "labels"):
                yield obj, ("metadata", key)


@rule(
    name="metadata-value-not-string", code="DGD612", severity="error", family="admission",
    title="Annotation and label values are strings",
    rationale="""Annotations and labels map strings to strings. An unquoted `true`, `false`, `yes`, `1` or
    `2.0` in YAML is a boolean or a number, and the API server refuses the object ("cannot unmarshal
    bool into ... of type string"); the operator's annotations such as
    `nvidia.com/enable-grove: false` are the usual case.""",
    remediation='Quote the value: `nvidia.com/enable-grove: "false"`.',
    reads=("metadata of custom resources (DynamoGraphDeployment, ...)",),
    fixable="""Quotes the value as written in the file (`1.0` becomes "1.0", `0x1F` "0x1F", `yes` "yes"),
    never the value made text. An operator switch whose text, quoted, it would read the other way
    (`nvidia.com/enable-grove: Off`: "Off" is not "false") and a value with a tag are left for a person.""",
)
def metadata_value_not_string(model: Model):
    for obj, path in _metadata_maps(model):
        for key, value in as_map(obj.get(path)).items():
            if value is not None and not isinstance(value, str):
                kind = "annotation" if path[-1] == "annotations" else "label"
                shown = {True: "true", False: "false"}.get(value, value) if isinstance(value, bool) else value
                yield Hit(obj, path + (key,),
                          f"{obj.label}: {kind} {key} is {type(value).__name__} {shown!r}, not a string; the API "
                          f"server refuses it")
