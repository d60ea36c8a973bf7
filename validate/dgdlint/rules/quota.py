"""LimitRanges and ResourceQuotas as the API server validates them (written from the core validation's
ValidateLimitRange and ValidateResourceQuota, v1.37, and the v1 defaults it runs first).

A LimitRange: limit types Pod, Container, PersistentVolumeClaim or a qualified name, each once; resource
names a limit of its type may name; min <= defaultRequest <= default <= max for each resource, a
maxLimitRequestRatio of 1 or more and no more than max/min; no defaults for a Pod; a storage min or max for
a claim; equal default and defaultRequest for what is never overcommitted (hugepages, extended resources).
A Container limit is checked as the server has it once defaulted: a missing default is its max, a missing
defaultRequest its default, else its min.

A ResourceQuota: resource names a quota takes, hard amounts not below zero and whole where the server counts
objects (or extended resources); scopes it knows, that apply to every resource the quota sets, and not two
that contradict; a scope selector's scope names and operators (Exists for the scopes that take no values)."""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, Decimal

from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.quantity import parse_quantity
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import qualified_name_problem

LIMIT_TYPES = ("Pod", "Container", "PersistentVolumeClaim")
_CONTAINER_RESOURCES = {"cpu", "memory", "ephemeral-storage"}  # and hugepages-<size>
_QUOTA_RESOURCES = {"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
                    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
                    "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims",
                    "configmaps", "services.nodeports", "services.loadbalancers"}  # and (requests.)hugepages-
_STANDARD_RESOURCES = _QUOTA_RESOURCES | {"storage"}
# Counted in whole objects (and any extended resource, see _integer).
_OBJECT_COUNTS = {"pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
                  "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"}
SCOPES = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass",
          "CrossNamespacePodAffinity", "VolumeAttributesClass")
_POD_RESOURCES = {"pods", "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}
# The resources each scope applies to (a scope not listed applies to all).
_SCOPE_RESOURCES = {**dict.fromkeys(("Terminating", "NotTerminating", "NotBestEffort", "PriorityClass",
                                     "CrossNamespacePodAffinity"), _POD_RESOURCES),
                    "BestEffort": {"pods"}, "VolumeAttributesClass": {"persistentvolumeclaims", "requests.storage"}}
_EXISTS_ONLY = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "CrossNamespacePodAffinity")
_CONFLICTS = (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating"))
_MAX_MILLI = (2**63 - 1) // 1000  # apimachinery's MaxMilliValue


def _native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _extended(name: str) -> bool:
    """apimachinery's IsExtendedResourceName: outside kubernetes.io, not requests.-prefixed, and a qualified
    name once prefixed with requests. (as a quota names it)."""
    return not _native(name) and not name.startswith("requests.") and not qualified_name_problem(f"requests.{name}")


def _integer(name: str) -> bool:
    return name in _OBJECT_COUNTS or _extended(name)


def _standard(name: str) -> bool:
    return name in _STANDARD_RESOURCES or name.startswith(("hugepages-", "requests.hugepages-"))


def resource_name_problem(name: str, kind: str = "") -> str | None:
    """The core validation's check of a resource name: a qualified name, a standard one when it has no
    domain; for `kind` "container" (a Pod or Container limit) one a container asks for, for "quota" one a
    quota counts."""
    problem = qualified_name_problem(name)
    if problem:
        return problem
    if "/" not in name and not _standard(name):
        return "is no standard resource (cpu, memory, pods...) nor qualified with a domain"
    if kind == "container":
        if "/" not in name and name not in _CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            return "is no resource a container asks for (cpu, memory, ephemeral-storage, hugepages-<size>)"
        if not _native(name) and not _extended(name):
            return "is no extended resource name (a domain, and no requests. prefix)"
    if kind == "quota" and "/" not in name and not _quota_resource(name):
        return "is no resource a quota counts (storage is requests.storage)"
    return None


def _ceil(value: Decimal, scale: int = 0) -> int:
    """apimachinery's ScaledValue: the value in units of 10^-scale, rounded up."""
    return int((value * 10**scale).to_integral_value(rounding=ROUND_CEILING))


def _ratio_above(ratio: Decimal, low: Decimal, high: Decimal) -> float | None:
    """max/min as the server compares a maxLimitRequestRatio with it (in float64, from milli-units when all
    three fit), when the ratio is above it; else None (also past int64, where Go's integers wrap)."""
    largest = max(_ceil(ratio), _ceil(low), _ceil(high))
    if largest >= 2**63:
        return None
    if largest < _MAX_MILLI:
        value, low_units, high_units = _ceil(ratio, 3) / 1000, _ceil(low, 3), _ceil(high, 3)
    else:
        value, low_units, high_units = float(_ceil(ratio)), _ceil(low), _ceil(high)
    if low_units == 0:
        bound = math.nan if high_units == 0 else math.copysign(math.inf, high_units)
    else:
        bound = float(high_units) / float(low_units)
    return bound if value > bound else None


_TABLES = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")


def _entries(table: object) -> dict[str, tuple[Decimal, str]]:
    """The resources of a ResourceList that are quantities, each (value, text as written); what is no
    quantity, the schema reports."""
    out = {}
    for name, text in as_map(table).items():
        value = parse_quantity(as_str(text))
        if value is not None:
            out[str(name)] = (value, as_str(text))
    return out


def _defaulted(item: dict, kind: str | None) -> tuple[dict, dict]:
    """The item's tables as the server has them ({table: {resource: (value, text)}}; a Pod's defaults left
    out, as the server skips them), and where each defaulted value came from ({(table, resource): table}): a
    Container's default from its max, its defaultRequest from its default, else from its min."""
    tables = {table: ({} if kind == "Pod" and table.startswith("default") else _entries(item.get(table)))
              for table in _TABLES}
    origin: dict = {}
    if kind == "Container":
        for target, sources in (("default", ("max",)), ("defaultRequest", ("default", "min"))):
            for source in sources:
                for resource, entry in tables[source].items():
                    if resource not in tables[target]:
                        tables[target][resource] = entry
                        origin[(target, resource)] = origin.get((source, resource), source)
    return tables, origin


# (the table the server names, the lower table, the higher one) for each order it checks
_ORDER = (("min", "min", "max"), ("defaultRequest", "min", "defaultRequest"),
          ("defaultRequest", "defaultRequest", "max"), ("defaultRequest", "defaultRequest", "default"),
          ("default", "min", "default"), ("default", "default", "max"))


def _comparisons(tables: dict, resource: str):
    """(table the server names, the tables compared, problem) for one resource of one limit."""
    entry = {table: tables[table].get(resource) for table in _TABLES}
    value = {table: found[0] if found else None for table, found in entry.items()}
    for at, low, high in _ORDER:
        if value[low] is not None and value[high] is not None and value[low] > value[high]:
            yield at, (low, high), f"{low} {entry[low][1]} is above {high} {entry[high][1]}"
    ratio = value["maxLimitRequestRatio"]
    if ratio is not None and ratio < 1:
        yield "maxLimitRequestRatio", (), f"maxLimitRequestRatio {entry['maxLimitRequestRatio'][1]} is below 1"
    if ratio is not None and value["min"] is not None and value["max"] is not None:
        bound = _ratio_above(ratio, value["min"], value["max"])
        if bound is not None:
            yield "maxLimitRequestRatio", ("min", "max"), \
                f"maxLimitRequestRatio {entry['maxLimitRequestRatio'][1]} is above max/min ({bound:g})"
    exact = not _native(resource) or resource.startswith("hugepages-")
    if exact and value["default"] is not None and value["defaultRequest"] is not None \
            and value["default"] != value["defaultRequest"]:
        yield "defaultRequest", ("default", "defaultRequest"), f"defaultRequest {entry['defaultRequest'][1]} " \
            f"is not default {entry['default'][1]}; {resource} is never overcommitted, so they must be equal"


def _type_problem(kind: str) -> str | None:
    problem = qualified_name_problem(kind)
    if problem:
        return problem
    if "/" not in kind and kind not in LIMIT_TYPES:
        return f"is not one of {', '.join(LIMIT_TYPES)} (nor qualified with a domain)"
    return None


def limit_problems(item: dict, at: tuple, seen: set):
    """(path, problem) for one limit of a LimitRange (`seen`: the types of the limits before it)."""
    kind = as_str(item.get("type"))
    if kind is not None:
        if _type_problem(kind):
            yield at + ("type",), f"limit type {kind!r} {_type_problem(kind)}"
        if kind in seen:
            yield at + ("type",), f"limit type {kind!r} is given twice"
        seen.add(kind)
    names = "container" if kind in ("Pod", "Container") else ""
    for table in _TABLES:
        if kind == "Pod" and table.startswith("default"):
            if as_map(item.get(table)):
                yield at + (table,), f"a Pod limit takes no {table} (only a Container's has defaults)"
            continue
        for resource in map(str, as_map(item.get(table))):
            problem = resource_name_problem(resource, names)
            if problem:
                yield at + (table, resource), f"{table} resource {resource!r} {problem}"
    if kind == "PersistentVolumeClaim" and "storage" not in as_map(item.get("min")) \
            and "storage" not in as_map(item.get("max")):
        yield at, "a PersistentVolumeClaim limit needs a storage min or max"
    tables, origin = _defaulted(item, kind)
    for resource in sorted({name for table in tables.values() for name in table}):
        found = list(_comparisons(tables, resource))
        # one mistake is reported once: where the written values disagree, not again through the copies
        # the defaults made of them (those alone find a defaultRequest that is not an exact default)
        written = [entry for entry in found if not any((table, resource) in origin for table in entry[1])]
        for table, compared, problem in written or found:
            sources = [f"{name} defaulted from {origin[(name, resource)]}" for name in compared
                       if (name, resource) in origin]
            note = f" ({', '.join(sources)})" if sources else ""
            yield at + (table, resource), f"{resource}: {problem}{note}"


def _quota_resource(name: str) -> bool:
    """apimachinery's IsStandardQuotaResourceName."""
    return name in _QUOTA_RESOURCES or name.startswith(("hugepages-", "requests.hugepages-"))


def _scope_problems(scopes: list, hard: list):
    """(index, field, problem) for unknown scopes (field: the scope's name), scopes that do not apply to a
    resource the quota sets (field None), and (index None) two that contradict each other."""
    for index, scope in scopes:
        if scope not in SCOPES:
            yield index, "scopeName", f"scope {scope!r} is not one of {', '.join(SCOPES)}"
        for resource in hard:
            if _quota_resource(resource) and resource not in _SCOPE_RESOURCES.get(scope, {resource}):
                yield index, None, f"scope {scope} does not apply to {resource}, which the quota sets"
    names = {scope for _index, scope in scopes}
    for pair in _CONFLICTS:
        if set(pair) <= names:
            yield None, None, f"scopes {pair[0]} and {pair[1]} contradict each other"


def _selector_problems(selector: dict, hard: list):
    """A scope selector's expressions: scope names and their fit to the quota's resources, as for scopes;
    an operator that is Exists for the scopes that take no values, values only for In and NotIn."""
    at = ("spec", "scopeSelector", "matchExpressions")
    expressions = [as_map(entry) for entry in as_list(selector.get("matchExpressions"))]
    named = [(index, as_str(entry.get("scopeName"))) for index, entry in enumerate(expressions)
             if as_str(entry.get("scopeName")) is not None]  # missing: the schema's to report
    for index, field, problem in _scope_problems(named, hard):
        yield at + ((index,) if index is not None else ()) + ((field,) if field else ()), problem
    for index, entry in enumerate(expressions):
        scope, operator, values = as_str(entry.get("scopeName")), as_str(entry.get("operator")), entry.get("values")
        if operator is None:
            continue  # missing: the schema's to report
        if scope in _EXISTS_ONLY and operator != "Exists":
            yield at + (index, "operator"), f"scope {scope} takes operator Exists only, not {operator!r}"
        if operator in ("In", "NotIn") and not as_list(values):
            yield at + (index, "values"), f"operator {operator} needs values"
        elif operator in ("Exists", "DoesNotExist") and as_list(values):
            yield at + (index, "values"), f"operator {operator} takes no values"
        elif operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            yield at + (index, "operator"), f"operator {operator!r} is not In, NotIn, Exists or DoesNotExist"


def quota_problems(spec: dict):
    """(path, problem) for a ResourceQuota's spec."""
    written = [str(name) for name in as_map(spec.get("hard"))]
    for resource in written:
        problem = resource_name_problem(resource, "quota")
        if problem:
            yield ("spec", "hard", resource), f"hard resource {resource!r} {problem}"
    for resource, (value, text) in _entries(spec.get("hard")).items():
        if value < 0:
            yield ("spec", "hard", resource), f"hard {resource} {text} is below 0"
        if _integer(resource) and _ceil(value, 3) % 1000:
            yield ("spec", "hard", resource), f"hard {resource} {text} is not a whole number (the server " \
                                              "counts it in whole units)"
    scopes = [(index, as_str(scope)) for index, scope in enumerate(as_list(spec.get("scopes")))
              if as_str(scope) is not None]
    for index, _field, problem in _scope_problems(scopes, sorted(written)):
        yield ("spec", "scopes") + ((index,) if index is not None else ()), problem
    if isinstance(spec.get("scopeSelector"), dict):
        yield from _selector_problems(spec["scopeSelector"], sorted(written))


@rule(
    name="quota-spec-invalid", code="DGD634", severity="error", family="admission",
    title="LimitRanges and ResourceQuotas are ones the API server takes",
    rationale="""The API server refuses a LimitRange whose limit type is unknown or given twice, that names
    a resource its type cannot limit, whose min is above its defaultRequest, default or max (a Container's
    defaults filled in as the server fills them: default from max, defaultRequest from default or min),
    whose maxLimitRequestRatio is below 1 or above max/min, that gives a Pod defaults or a claim no storage
    bound, or whose default and defaultRequest differ for hugepages or an extended resource such as
    nvidia.com/gpu. It refuses a ResourceQuota with a resource name it does not count, a negative hard
    amount or a fraction of an object count or extended resource, an unknown scope, a scope that does not
    apply to one of its resources or contradicts another, or a scope selector with a wrong operator or
    values. The JSON schema takes all of these.""",
    remediation="Keep min <= defaultRequest <= default <= max for each resource, give GPUs in whole "
                "numbers with equal default and defaultRequest, and name quota resources as Kubernetes does "
                "(requests.cpu, requests.nvidia.com/gpu, count/jobs.batch).",
    reads=("LimitRange", "ResourceQuota"),
)
def quota_spec_invalid(model: Model):
    for obj in model.objects:
        if obj.group or obj.kind not in ("LimitRange", "ResourceQuota"):
            continue
        spec = as_map(obj.value.get("spec"))
        if obj.kind == "ResourceQuota":
            problems = quota_problems(spec)
        else:
            seen: set = set()
            problems = (hit for index, item in enumerate(as_list(spec.get("limits")))
                        for hit in limit_problems(as_map(item), ("spec", "limits", index), seen))
        for path, problem in problems:
            yield Hit(obj, path, f"{obj.label}: {problem}")
