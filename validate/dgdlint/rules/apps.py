"""A Deployment's, ReplicaSet's, StatefulSet's and DaemonSet's own spec as the API server validates it on create
(written from Kubernetes' apps validation, v1.37, after its defaulting): counts that are not negative (a
StatefulSet's revisionHistoryLimit is not: ValidateStatefulSetSpec leaves it unchecked), a
progress deadline past minReadySeconds, update strategies of known types with what they take (an int or a
percentage up to 100%, not both zero), a StatefulSet's pod management, claim retention, ordinals and service
name, and no activeDeadlineSeconds in the pod template of a controller that keeps its pods running. Each
function yields (path, problem)."""

from __future__ import annotations

import re

from dgdlint.model import Workload, as_map, as_str
from dgdlint.rules.syntax import dns1123_label_problem, negative_count_problems

APPS_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet")
_PERCENT = re.compile(r"[0-9]+%")


def _int_or_percent(value: object, where: tuple, name: str):
    """(problems, value as a number: a percentage's digits, an integer, 0 for anything else as Go's IntValue)."""
    if isinstance(value, bool) or value is None:
        return [], 0
    if isinstance(value, int):
        return ([(where, f"{name} {value} is negative")] if value < 0 else []), value
    text = as_str(value) or ""
    if not _PERCENT.fullmatch(text):
        return [(where, f"{name} {text!r} is neither an integer nor a percentage such as '25%'")], 0
    number = int(text[:-1])
    return ([(where, f"{name} {text} is more than 100%")] if number > 100 else []), number


def _deployment_strategy(strategy: dict, where: tuple):
    kind = as_str(strategy.get("type")) or "RollingUpdate"  # the server's default
    rolling = strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            yield where + ("rollingUpdate",), "has strategy Recreate with a rollingUpdate (it takes none)"
    elif kind == "RollingUpdate":
        rolling = as_map(rolling)
        # each unset bound defaults to 25%
        unavailable, n_unavailable = _int_or_percent(rolling.get("maxUnavailable", "25%"),
                                                     where + ("rollingUpdate", "maxUnavailable"), "maxUnavailable")
        surge, n_surge = _int_or_percent(rolling.get("maxSurge", "25%"), where + ("rollingUpdate", "maxSurge"),
                                         "maxSurge")
        yield from ((at, f"has a rolling update whose {problem}") for at, problem in (*unavailable, *surge)
                    if "more than 100%" not in problem or "maxUnavailable" in problem)
        if n_unavailable == 0 and n_surge == 0:
            yield where + ("rollingUpdate", "maxUnavailable"), "has a rolling update with maxUnavailable and " \
                                                               "maxSurge both 0 (nothing could be replaced)"
    else:
        yield where + ("type",), f"has strategy type {kind!r}, not Recreate or RollingUpdate"


def _daemon_strategy(strategy: dict, where: tuple):
    kind = as_str(strategy.get("type")) or "RollingUpdate"
    if kind == "OnDelete":
        return
    if kind != "RollingUpdate":
        yield where + ("type",), f"has updateStrategy type {kind!r}, not RollingUpdate or OnDelete"
        return
    rolling = as_map(strategy.get("rollingUpdate"))
    unavailable, n_unavailable = _int_or_percent(rolling.get("maxUnavailable", 1),
                                                 where + ("rollingUpdate", "maxUnavailable"), "maxUnavailable")
    surge, n_surge = _int_or_percent(rolling.get("maxSurge", 0), where + ("rollingUpdate", "maxSurge"), "maxSurge")
    yield from ((at, f"has a rolling update whose {problem}") for at, problem in (*unavailable, *surge))
    if n_unavailable and n_surge:
        yield where + ("rollingUpdate", "maxSurge"), "has a rolling update with both maxSurge and maxUnavailable " \
                                                     "set (one of them must be 0)"
    elif not n_unavailable and not n_surge:
        yield where + ("rollingUpdate", "maxUnavailable"), "has a rolling update with maxUnavailable and maxSurge " \
                                                           "both 0"


def _stateful_problems(spec: dict):
    policy = as_str(spec.get("podManagementPolicy"))
    if policy and policy not in ("OrderedReady", "Parallel"):
        yield ("spec", "podManagementPolicy"), f"has podManagementPolicy {policy!r}, not OrderedReady or Parallel"
    strategy = as_map(spec.get("updateStrategy"))
    kind = as_str(strategy.get("type")) or "RollingUpdate"
    rolling = strategy.get("rollingUpdate")
    where = ("spec", "updateStrategy")
    if kind == "OnDelete" and rolling is not None:
        yield where + ("rollingUpdate",), "has updateStrategy OnDelete with a rollingUpdate (RollingUpdate only)"
    elif kind == "RollingUpdate" and isinstance(rolling, dict):
        yield from negative_count_problems(rolling, ("partition",), where + ("rollingUpdate",))
        if rolling.get("maxUnavailable") is not None:
            problems, number = _int_or_percent(rolling["maxUnavailable"], where + ("rollingUpdate", "maxUnavailable"),
                                               "maxUnavailable")
            yield from ((at, f"has a rolling update whose {problem}") for at, problem in problems)
            if number == 0:
                yield where + ("rollingUpdate", "maxUnavailable"), "has a rolling update with maxUnavailable 0"
    elif kind not in ("OnDelete", "RollingUpdate"):
        yield where + ("type",), f"has updateStrategy type {kind!r}, not RollingUpdate or OnDelete"
    retention = as_map(spec.get("persistentVolumeClaimRetentionPolicy"))
    for name in ("whenDeleted", "whenScaled"):
        value = as_str(retention.get(name))
        if value and value not in ("Retain", "Delete"):
            yield ("spec", "persistentVolumeClaimRetentionPolicy", name), \
                f"has claim retention {name} {value!r}, not Retain or Delete"
    start = as_map(spec.get("ordinals")).get("start")
    if type(start) is int and start < 0:
        yield ("spec", "ordinals", "start"), f"has ordinals.start {start}; it must not be negative"
    service = as_str(spec.get("serviceName"))
    if service and dns1123_label_problem(service):
        yield ("spec", "serviceName"), f"has serviceName {service!r}, which {dns1123_label_problem(service)}"


def apps_spec_problems(workload: Workload):
    kind = workload.obj.kind
    if kind not in APPS_KINDS:
        return
    spec = as_map(workload.obj.value.get("spec"))
    yield from negative_count_problems(spec, ("replicas", "minReadySeconds"), ("spec",))
    if kind in ("Deployment", "DaemonSet"):  # the StatefulSet's validation leaves revisionHistoryLimit unchecked
        yield from negative_count_problems(spec, ("revisionHistoryLimit",), ("spec",))
    if kind == "Deployment":
        yield from negative_count_problems(spec, ("progressDeadlineSeconds",), ("spec",))
        deadline, ready = spec.get("progressDeadlineSeconds"), spec.get("minReadySeconds", 0)
        if type(deadline) is int and type(ready) is int and deadline <= ready:
            yield ("spec", "progressDeadlineSeconds"), f"has progressDeadlineSeconds {deadline}, not past " \
                                                       f"minReadySeconds {ready}"
        yield from _deployment_strategy(as_map(spec.get("strategy")), ("spec", "strategy"))
    elif kind == "DaemonSet":
        yield from _daemon_strategy(as_map(spec.get("updateStrategy")), ("spec", "updateStrategy"))
    elif kind == "StatefulSet":
        yield from _stateful_problems(spec)
    if workload.pod.spec.get("activeDeadlineSeconds") is not None:
        yield workload.pod.field_path("activeDeadlineSeconds"), f"sets activeDeadlineSeconds, which a {kind}'s " \
                                                                "pods do not take (they keep running)"
