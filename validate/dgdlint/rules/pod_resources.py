"""A pod's own resources and overhead as the API server checks them (written from Kubernetes' core
validation and its pod defaulting, v1.37): pod-level resources (cpu, memory and hugepages only; each
container's limit within the pod's; the pod's request at least what its containers request together) and
the overhead its runtime class adds. Each function yields (path, problem).

What the containers request together is counted as the server counts it: the regular containers and the
sidecars (init containers with restartPolicy Always) all run at once; a plain init container runs with
only the sidecars started before it, so the pod needs the larger of the two. A created pod's container
that gives a limit and no request requests its limit (the server's pod defaulting; a workload's template
is stored as written, so its pods are refused, not the template)."""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal

from dgdlint.model import PodSettings, as_map, as_str
from dgdlint.quantity import format_bytes, format_cores, parse_quantity
from dgdlint.rules.syntax import container_resource_name_problem

_POD_LEVEL = ("cpu", "memory")


def _amounts(raw: dict, table: str, defaulted: bool) -> dict[str, Decimal]:
    """A container's quantities in `table`; with `defaulted`, its requests as a created pod has them (a
    limit stands for a missing request)."""
    resources = as_map(raw.get("resources"))
    written = as_map(resources.get(table))
    entries = {**as_map(resources.get("limits")), **written} if defaulted and table == "requests" else written
    amounts = {}
    for resource, text in entries.items():
        value = parse_quantity(as_str(text))
        if value is not None:
            amounts[resource] = value
    return amounts


def _add(total: dict, amounts: dict) -> None:
    for resource, value in amounts.items():
        total[resource] = total.get(resource, 0) + value


def aggregate(regular: list[dict], init: list[dict], table: str, defaulted: bool = True) -> dict[str, Decimal]:
    """What a pod's containers need together in `table` (requests or limits), counted as the server counts
    it for pod-level resources: the regular containers and the sidecars at once, or a plain init container
    with the sidecars started before it, whichever is larger."""
    total: dict[str, Decimal] = {}
    for raw in regular:
        _add(total, _amounts(raw, table, defaulted))
    started: dict[str, Decimal] = {}
    peak: dict[str, Decimal] = {}
    for raw in init:
        amounts = _amounts(raw, table, defaulted)
        if as_str(raw.get("restartPolicy")) == "Always":  # a sidecar: runs to the end, beside everything after it
            _add(total, amounts)
            _add(started, amounts)
            running = started
        else:
            running = dict(started)
            _add(running, amounts)
        for resource, value in running.items():
            if value > peak.get(resource, value - 1):
                peak[resource] = value
    for resource, value in peak.items():
        if value > total.get(resource, value - 1):
            total[resource] = value
    return total


def _amount(resource: str, value: Decimal) -> str:
    """A total as a person writes it: cores for cpu, bytes in their shortest form for memory and hugepages."""
    if resource == "memory" or resource.startswith("hugepages-"):
        return format_bytes(int(value.to_integral_value(rounding=ROUND_CEILING)))
    return format_cores(value)


def _aggregate_problems(where: tuple, tables: dict, values: dict, regular: list[dict], init: list[dict],
                        template: bool, over: set):
    requests = aggregate(regular, init, "requests")
    as_written = aggregate(regular, init, "requests", defaulted=False) if template else requests
    for resource, needed in requests.items():
        own, limit = values.get(("requests", resource)), values.get(("limits", resource))
        together = f"what the pod's containers request together ({_amount(resource, needed)})"
        if own is not None and needed > own:
            refused = "the pod is refused" if as_written.get(resource, 0) > own else \
                "each pod is refused when created (a container's limit stands for its missing request)"
            yield where + ("requests", resource), \
                f"pod-level requests {resource} {tables['requests'][resource]!r} is below {together}; {refused}"
        elif own is None and limit is not None and resource in _POD_LEVEL and needed > limit \
                and resource not in tables["requests"] and resource not in over:  # over: said at the container
            yield where + ("limits", resource), \
                f"pod-level limits {resource} {tables['limits'][resource]!r} is below {together}; each pod is " \
                "given that as its pod-level request, above its limit, and is refused"
    for resource, needed in aggregate(regular, init, "limits").items():
        limit = values.get(("limits", resource))
        if resource.startswith("hugepages-") and limit is not None and needed > limit:
            yield where + ("limits", resource), \
                f"pod-level limits {resource} {tables['limits'][resource]!r} is below the pod's containers' " \
                f"hugepages limits together ({_amount(resource, needed)}); the pod is refused"


def pod_resource_problems(pod: PodSettings, containers: list[tuple[dict, tuple]],
                          init_containers: list[dict] = (), template: bool = False):
    """Pod-level resources (from 1.34): only cpu, memory and hugepages; no negative quantity; a request within
    its limit; each regular container's limit within the pod's limit of that resource; the pod's requests (and
    the limits that stand for unwritten ones) and hugepages limits at least what its containers (`containers`
    and `init_containers`) need together. `template`: a workload's pod template, stored as written."""
    resources = as_map(pod.spec.get("resources"))
    if not resources:
        return
    where = pod.field_path("resources")
    if resources.get("claims") is not None:  # even an empty list: Go's decoder makes it a set, empty slice
        yield where + ("claims",), "pod-level resources take no claims (name a resource claim in a container's " \
                                   "resources.claims)"
    tables = {name: as_map(resources.get(name)) for name in ("requests", "limits")}
    values: dict[tuple[str, str], object] = {}
    for table, entries in tables.items():
        for resource, text in entries.items():
            at = where + (table, resource)
            if resource not in _POD_LEVEL and not resource.startswith("hugepages-"):
                yield at, f"pod-level {table} {resource} is not taken: a pod's own resources are cpu, memory " \
                          "and hugepages (give GPUs and other devices in a container's resources)"
                continue
            value = parse_quantity(as_str(text))
            if value is None:
                continue  # not a quantity: the schema stage says so
            if value < 0:
                yield at, f"pod-level {table} {resource} {text!r} is negative"
                continue
            values[(table, resource)] = value
    if any(resource.startswith("hugepages-") for _table, resource in values) and \
            not any(resource in _POD_LEVEL for _table, resource in values):
        yield where, "pod-level hugepages need a pod-level cpu or memory request or limit beside them"
    for resource, text in tables["requests"].items():
        request, limit = values.get(("requests", resource)), values.get(("limits", resource))
        if request is not None and limit is None and resource.startswith("hugepages-") \
                and resource not in tables["limits"]:
            yield where + ("requests", resource), f"pod-level requests {resource} {text!r} has no limit (hugepages " \
                                                  "need one, equal to the request)"
        if request is None or limit is None:
            continue
        if resource.startswith("hugepages-") and request != limit:
            yield where + ("requests", resource), f"pod-level requests {resource} {text!r} is not its limit"
        elif request > limit:
            yield where + ("requests", resource), f"pod-level requests {resource} {text!r} is above its limit"
    over = set()  # resources a container's limit already exceeds at the pod's
    for raw, at in containers:
        for resource, text in as_map(as_map(raw.get("resources")).get("limits")).items():
            pod_limit = values.get(("limits", resource))
            value = parse_quantity(as_str(text))
            if pod_limit is not None and value is not None and value > pod_limit:
                over.add(resource)
                yield at + ("resources", "limits", resource), \
                    f"limits {resource} {text!r} is above the pod's own limit {tables['limits'][resource]!r}"
    yield from _aggregate_problems(where, tables, values, [raw for raw, _at in containers], list(init_containers),
                                   template, over)


def overhead_table_problems(overhead: dict, where: tuple, what: str = "overhead"):
    """An overhead table (a pod's, a RuntimeClass's podFixed) read as a container's limits are: resource names
    a container takes, none negative, an extended resource (a GPU) in whole units, hugepages in whole pages
    and beside cpu or memory. `where`: the table's path."""
    values = {}
    for resource, text in overhead.items():
        at = where + (resource,)
        problem = container_resource_name_problem(str(resource))
        if problem:
            yield at, f"{what} resource name {resource!r} {problem}"
        value = parse_quantity(as_str(text))
        if value is None:
            continue  # not a quantity: the schema stage says so
        values[resource] = value
        if value < 0:
            yield at, f"{what} {resource} {text!r} is negative"
        elif "/" in resource and "kubernetes.io/" not in resource and value != value.to_integral_value():
            yield at, f"{what} {resource} {text!r} is not a whole number (an extended resource)"
        elif resource.startswith("hugepages-"):
            size = parse_quantity(resource[len("hugepages-"):])
            if not size or size != size.to_integral_value() or value.to_integral_value(rounding="ROUND_CEILING") % size:
                yield at, f"{what} {resource} {text!r} is not a whole number of {resource[len('hugepages-'):]} pages"
    if any(resource.startswith("hugepages-") for resource in values) and not {"cpu", "memory"} & set(values):
        yield where, f"{what} has hugepages without cpu or memory beside them"


def overhead_problems(pod: PodSettings):
    """A pod's overhead (what its runtime class adds), read as a container's limits are."""
    yield from overhead_table_problems(as_map(pod.spec.get("overhead")), pod.field_path("overhead"))
