"""HorizontalPodAutoscalers as the API server validates them on create (written from Kubernetes' autoscaling
validation, ValidateHorizontalPodAutoscaler, and the HPA strategy of v1.37): a scale target reference with a
kind and name fit for a URL path and an apiVersion with a group; minReplicas of at least 1, or 0 (scaling to
zero, from Kubernetes 1.37) beside an Object or External metric; maxReplicas of at least 1 and at least
minReplicas; each metric of a known source type with that source's field alone, a metric name, a target type
and the target fields its source needs, positive quantities and utilizations; scaling rules with a
stabilization window of 0-3600 s, a known select policy, at least one policy when policies are listed, each
of a known type with a positive value and a period of 1-1800 s, and a tolerance not below 0 (from 1.35).

The server applies its defaults first: minReplicas 1, a CPU utilization metric when none is listed, and
for a scaling rule without policies the default ones (an explicitly empty list stays empty). autoscaling/v1
is read as the server converts it: targetCPUUtilizationPercentage becomes a CPU utilization metric. Metric
selectors are not validated by the server, nor are the metrics and behavior a v1 object may carry in the
autoscaling.alpha.kubernetes.io annotations; neither is read here. A field that is missing or of the wrong
type is the schema's to report."""

from __future__ import annotations

from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.quantity import go_quantity
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import as_int, container_resource_name_problem, dns1123_label_problem

MAX_PERIOD_SECONDS = 1800
MAX_STABILIZATION_SECONDS = 3600
# Each metric source type and its field, in the order the server looks for a field that is set.
SOURCES = {"Object": "object", "External": "external", "Pods": "pods", "Resource": "resource",
           "ContainerResource": "containerResource"}
TARGET_TYPES = ("Utilization", "Value", "AverageValue")
SELECT_POLICIES = ("Max", "Min", "Disabled")
POLICY_TYPES = ("Pods", "Percent")
V1_METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics"


def path_segment_problem(text: str) -> str | None:
    """apimachinery's IsPathSegmentName: what the server can put in a URL path as one segment."""
    if text in (".", ".."):
        return f"may not be {text!r}"
    bad = [part for part in ("/", "%") if part in text]
    return f"may not contain {' or '.join(repr(part) for part in bad)}" if bad else None


def api_group(version: str) -> str | None:
    """The group of an apiVersion as schema.ParseGroupVersion reads it; None when it is none ("a/b/c")."""
    if version.count("/") > 1:
        return None
    return version.partition("/")[0] if "/" in version and version != "/" else ""


def reference_problems(ref: dict, path: tuple, what: str, any_group: bool):
    """A CrossVersionObjectReference: kind and name set and fit for a path segment, an apiVersion that is
    <group>/<version> (or, where `any_group` or for a ReplicationController, a bare version)."""
    for key in ("kind", "name"):
        text = as_str(ref.get(key))
        if text == "":
            yield path + (key,), f"{what} has an empty {key}"
        elif text is not None and path_segment_problem(text):
            yield path + (key,), f"{what} {key} {text!r} {path_segment_problem(text)}"
    version = ref.get("apiVersion")
    version = "" if version is None else as_str(version)
    if version is None:
        return
    group = api_group(version)
    if group is None:
        yield path + ("apiVersion",), f"{what} apiVersion {version!r} is not <group>/<version>"
    elif not group and not any_group and as_str(ref.get("kind")) != "ReplicationController":
        shown = f"apiVersion {version!r} has no API group" if version else "has no apiVersion (it needs a group)"
        yield path + ("apiVersion",), f"{what} {shown}: for a Deployment, apps/v1"


def quantity_problem(value: object) -> str | None:
    parsed = go_quantity(as_str(value)) if value is not None else None
    return "must be positive" if parsed is not None and parsed <= 0 else None


def target_problems(target: dict, path: tuple):
    kind = as_str(target.get("type"))
    if kind is not None and kind not in TARGET_TYPES:
        shown = f"type {kind!r} is not" if kind else "has no type; it must be"
        yield path + ("type",), f"target {shown} one of {', '.join(TARGET_TYPES)}"
    for key in ("value", "averageValue"):
        if quantity_problem(target.get(key)):
            yield path + (key,), f"target {key} {as_str(target.get(key))!r} must be positive"
    utilization = as_int(target.get("averageUtilization"))
    if utilization is not None and utilization < 1:
        yield path + ("averageUtilization",), f"target averageUtilization {utilization} must be greater than 0"


def identifier_problems(metric: dict, path: tuple):
    name = as_str(metric.get("name"))
    if name == "":
        yield path + ("name",), "metric has an empty name"
    elif name is not None and path_segment_problem(name):
        yield path + ("name",), f"metric name {name!r} {path_segment_problem(name)}"


def source_problems(kind: str, source: dict, path: tuple):
    """One metric source's own fields, and the target fields it needs."""
    target, at = as_map(source.get("target")), path + ("target",)
    has = {key: target.get(key) is not None for key in ("value", "averageValue", "averageUtilization")}
    if kind == "object" and isinstance(source.get("describedObject"), dict):
        yield from reference_problems(source["describedObject"], path + ("describedObject",), "describedObject",
                                      any_group=True)
    if kind in ("object", "external", "pods"):
        yield from identifier_problems(as_map(source.get("metric")), path + ("metric",))
    else:
        name = as_str(source.get("name"))
        if name == "":
            yield path + ("name",), f"{kind} metric has an empty resource name"
        elif kind == "containerResource" and name is not None and container_resource_name_problem(name):
            yield path + ("name",), f"resource name {name!r} {container_resource_name_problem(name)}"
        container = as_str(source.get("container"))
        if kind == "containerResource" and container is not None:
            problem = dns1123_label_problem(container) if container else "must be set"
            if problem:
                yield path + ("container",), f"container name {container!r} {problem}"
    if source.get("target") is None:
        return  # missing: the schema's to report
    yield from target_problems(target, at)
    if kind in ("object", "external") and not has["value"] and not has["averageValue"]:
        yield at + ("averageValue",), f"{kind} metric target needs a value or an averageValue"
    elif kind == "external" and has["value"] and has["averageValue"]:
        yield at + ("value",), "external metric target has both a value and an averageValue (one only)"
    elif kind == "pods" and not has["averageValue"]:
        yield at + ("averageValue",), "pods metric target needs an averageValue (a per-pod value)"
    elif kind in ("resource", "containerResource"):
        if not has["averageUtilization"] and not has["averageValue"]:
            yield at + ("averageUtilization",), f"{kind} metric target needs an averageUtilization or an " \
                                                "averageValue"
        elif has["averageUtilization"] and has["averageValue"]:
            yield at + ("averageValue",), f"{kind} metric target has both an averageUtilization and an " \
                                          "averageValue (one only)"


def metric_problems(metric: dict, path: tuple):
    kind = as_str(metric.get("type"))
    if kind is not None and kind not in SOURCES:
        shown = f"type {kind!r} is not" if kind else "has no type; it must be"
        yield path + ("type",), f"metric {shown} one of {', '.join(SOURCES)}"
    present = [key for key in SOURCES.values() if metric.get(key) is not None]
    if present:  # the server reads the first source set, in its order
        yield from source_problems(present[0], as_map(metric[present[0]]), path + (present[0],))
    expected = SOURCES.get(kind or "")
    if expected and metric.get(expected) is None:
        yield path + (expected,), f"metric of type {kind} has no {expected} field"
    if len(present) > 1:
        for key in present:
            if key != expected:
                yield path + (key,), f"metric has a {key} source beside another (only its type's source)"


def rules_problems(rules: dict, path: tuple, tolerance: bool):
    window = as_int(rules.get("stabilizationWindowSeconds"))
    if window is not None and not 0 <= window <= MAX_STABILIZATION_SECONDS:
        yield path + ("stabilizationWindowSeconds",), \
            f"stabilizationWindowSeconds {window} is not between 0 and {MAX_STABILIZATION_SECONDS}"
    select = as_str(rules.get("selectPolicy"))
    if select is not None and select not in SELECT_POLICIES:
        yield path + ("selectPolicy",), f"selectPolicy {select!r} is not one of {', '.join(SELECT_POLICIES)}"
    policies = rules.get("policies")
    if isinstance(policies, list) and not policies:  # left out, the defaults fill it; written empty, it stays
        yield path + ("policies",), "lists no policies (leave policies out for the defaults, or list one)"
    for index, policy in enumerate(as_list(policies)):
        policy, at = as_map(policy), path + ("policies", index)
        kind = as_str(policy.get("type"))
        if kind is not None and kind not in POLICY_TYPES:
            yield at + ("type",), f"policy type {kind!r} is not one of {', '.join(POLICY_TYPES)}"
        value, period = as_int(policy.get("value")), as_int(policy.get("periodSeconds"))
        if value is not None and value <= 0:
            yield at + ("value",), f"policy value {value} must be greater than 0"
        if period is not None and not 1 <= period <= MAX_PERIOD_SECONDS:
            yield at + ("periodSeconds",), f"policy periodSeconds {period} is not between 1 and {MAX_PERIOD_SECONDS}"
    amount = go_quantity(as_str(rules.get("tolerance"))) if tolerance and rules.get("tolerance") is not None \
        else None
    if amount is not None and amount < 0:
        yield path + ("tolerance",), f"tolerance {as_str(rules.get('tolerance'))!r} must not be negative"


def replica_problems(spec: dict, scale_to_zero: bool, zero_metric: bool):
    """minReplicas (defaulted to 1) and maxReplicas; a minReplicas of 0 needs `zero_metric`."""
    low = as_int(spec.get("minReplicas"))
    high = as_int(spec.get("maxReplicas"))
    floor = 0 if scale_to_zero else 1
    if low is not None and low < floor:
        yield ("spec", "minReplicas"), f"minReplicas {low} is below {floor}" + \
            ("" if scale_to_zero else " (scaling to zero needs Kubernetes 1.37, where HPAScaleToZero is on)")
    elif low == 0 and not zero_metric:
        yield ("spec", "minReplicas"), "minReplicas 0 (scaling to zero) needs an Object or External metric"
    if high is not None and high < 1:
        yield ("spec", "maxReplicas"), f"maxReplicas {high} must be at least 1"
    elif high is not None and low is not None and high < low:
        yield ("spec", "maxReplicas"), f"maxReplicas {high} is below minReplicas {low}"


def autoscaler_problems(obj, scale_to_zero: bool, tolerance: bool):
    spec = as_map(obj.value.get("spec"))
    if isinstance(spec.get("scaleTargetRef"), dict):
        yield from reference_problems(spec["scaleTargetRef"], ("spec", "scaleTargetRef"),
                                      "scaleTargetRef", any_group=False)
    if obj.version == "v1":
        utilization = as_int(spec.get("targetCPUUtilizationPercentage"))
        if utilization is not None and utilization < 1:
            yield ("spec", "targetCPUUtilizationPercentage"), \
                f"targetCPUUtilizationPercentage {utilization} must be greater than 0"
        # v1 has no Object or External metric but in its alpha annotation, which is not read: no judgement
        yield from replica_problems(spec, scale_to_zero, V1_METRICS_ANNOTATION in obj.annotations)
        return
    metrics = [as_map(metric) for metric in as_list(spec.get("metrics"))]
    for index, metric in enumerate(metrics):
        yield from metric_problems(metric, ("spec", "metrics", index))
    zero_metric = any(as_str(metric.get("type")) in ("Object", "External") for metric in metrics)
    yield from replica_problems(spec, scale_to_zero, zero_metric)
    behavior = as_map(spec.get("behavior"))
    for direction in ("scaleUp", "scaleDown"):
        if isinstance(behavior.get(direction), dict):
            yield from rules_problems(behavior[direction], ("spec", "behavior", direction), tolerance)


@rule(
    name="autoscaler-spec-invalid", code="DGD632", severity="error", family="admission",
    title="Horizontal pod autoscalers are ones the API server takes",
    rationale="""The API server refuses a HorizontalPodAutoscaler whose scaleTargetRef has an empty kind or
    name, one with '/' or '%' (or that is '.' or '..'), or an apiVersion without a group (apps/v1, not v1;
    a ReplicationController excepted); whose minReplicas is below 1, or 0 without an Object or External
    metric (scaling to zero is taken from Kubernetes 1.37); whose maxReplicas is below 1 or below
    minReplicas; whose metric has an unknown type, lacks its type's source field or sets another source
    beside it, has an empty or path-unsafe metric name, an unknown target type, a quantity that is not
    positive, an averageUtilization below 1, or not the target fields its source needs (a Pods metric an
    averageValue; a Resource metric an averageUtilization or an averageValue, not both; an External metric
    a value or an averageValue, not both); a ContainerResource metric with a container that is no DNS
    label or a resource that is no container resource; or whose scaling rules have a stabilization window
    outside 0-3600 s, an unknown selectPolicy, an empty policy list, a policy of an unknown type, a value
    below 1 or a period outside 1-1800 s, or a negative tolerance (from Kubernetes 1.35). autoscaling/v1's
    targetCPUUtilizationPercentage must be above 0. The JSON schema takes all of these.""",
    remediation="Point scaleTargetRef at the workload with its group (apps/v1 Deployment, or the Dynamo "
                "scaling adapter nvidia.com/v1beta1 DynamoGraphDeploymentScalingAdapter); keep "
                "1 <= minReplicas <= maxReplicas; give each metric its own source and the target it needs.",
    reads=("HorizontalPodAutoscaler (autoscaling/v2 and v1)",),
)
def autoscaler_spec_invalid(model: Model):
    scale_to_zero = model.release.kubernetes_at_least("1.37")  # HPAScaleToZero on by default from 1.37
    tolerance = model.release.kubernetes_at_least("1.35")  # before, the server drops the tolerance
    for obj in model.objects:
        if obj.kind == "HorizontalPodAutoscaler" and obj.group == "autoscaling" and obj.version in ("v1", "v2"):
            for path, problem in autoscaler_problems(obj, scale_to_zero, tolerance):
                yield Hit(obj, path, f"{obj.label}: {problem}")
