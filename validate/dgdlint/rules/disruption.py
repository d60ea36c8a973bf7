"""PodDisruptionBudgets as the API server validates them (written from Kubernetes' policy validation):
minAvailable or maxUnavailable, not both, each a count from 0 or a percentage up to 100%; a valid label
selector; an unhealthy-pod eviction policy it knows."""

from __future__ import annotations

import re

from dgdlint.model import Model, as_map, as_str
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.selectors import selector_problems

_PERCENT = re.compile(r"[0-9]+%", re.ASCII)
EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")


def int_or_percent_problem(value: object) -> str | None:
    """A count or a percentage as the API server's disruption and rollout fields take it: an integer not
    below 0, or digits and '%' up to 100% (a quoted number is text, so no count)."""
    if isinstance(value, bool) or value is None:
        return None  # not an int-or-string: the schema's to report
    if isinstance(value, int):
        if value > 2**31 - 1:  # an int-or-string holds a 32-bit integer: a larger one is not even decoded
            return f"{value} is more than a 32-bit count holds (2147483647)"
        return f"{value} is negative" if value < 0 else None
    if isinstance(value, str):
        if not _PERCENT.fullmatch(value):
            return f"{value!r} is neither a count nor a percentage such as '50%'"
        if int(value[:-1]) > 100:
            return f"{value!r} is more than 100%"
    return None


def budget_problems(spec: dict):
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        yield ("spec", "maxUnavailable"), "sets both minAvailable and maxUnavailable (one at most)"
    for name in ("minAvailable", "maxUnavailable"):
        problem = int_or_percent_problem(spec.get(name))
        if problem:
            yield ("spec", name), f"{name} {problem}"
    for where, problem in selector_problems(spec.get("selector"), ("spec", "selector")):
        yield where, f"has an invalid selector: {problem}"
    policy = as_str(spec.get("unhealthyPodEvictionPolicy"))
    if policy is not None and policy not in EVICTION_POLICIES:
        yield ("spec", "unhealthyPodEvictionPolicy"), \
            f"unhealthyPodEvictionPolicy {policy!r} is not one of {', '.join(EVICTION_POLICIES)}"


@rule(
    name="disruption-budget-invalid", code="DGD618", severity="error", family="admission",
    title="Disruption budgets are ones the API server takes",
    rationale="""The API server refuses a PodDisruptionBudget that sets both minAvailable and maxUnavailable,
    whose count is negative or whose percentage is not digits and '%' or is above 100% (a quoted "1" is
    text, not a count), whose label selector has a key or value of the wrong syntax or an operator without
    the values it needs, or whose unhealthyPodEvictionPolicy is not IfHealthyBudget or AlwaysAllow. The
    JSON schema takes all of these: an int-or-string field takes any text.""",
    remediation="Set one of minAvailable or maxUnavailable, as a count (1) or a percentage ('50%').",
    reads=("PodDisruptionBudget",),
)
def disruption_budget_invalid(model: Model):
    for obj in model.objects:
        if obj.kind == "PodDisruptionBudget" and obj.group == "policy":
            for path, problem in budget_problems(as_map(obj.value.get("spec"))):
                yield Hit(obj, path, f"{obj.label}: {problem}")
