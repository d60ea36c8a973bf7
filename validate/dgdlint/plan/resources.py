"""What one pod asks for, as the scheduler counts it: requests and limits summed over the running
containers (sidecar init containers included), against the largest plain init container."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal

from dgdlint.model import Container, as_str, is_gpu_resource
from dgdlint.quantity import parse_quantity


@dataclass
class PodResources:
    cpu: Decimal = Decimal(0)
    cpu_limit: Decimal | None = Decimal(0)  # None: some container has no limit (unbounded)
    memory: int = 0
    memory_limit: int | None = 0
    gpus: dict[str, int] = field(default_factory=dict)  # resource name -> devices per pod
    unparsed: list[str] = field(default_factory=list)  # quantities that did not parse (left out)


def _amount(container: Container, table: str, resource: str, unparsed: list[str]) -> Decimal | None:
    """The container's request (or limit) of `resource`; a missing request defaults to the limit."""
    entries = [container.limits] if table == "limits" else [container.requests, container.limits]
    for entries_table in entries:
        if resource in entries_table:
            quantity = entries_table[resource][0]
            value = parse_quantity(quantity)
            if value is None:
                unparsed.append(f"{container.name or 'main'}: {resource} {quantity!r}")
            return value
    return None


def _is_sidecar(container: Container) -> bool:
    return as_str(container.obj.get(container.path + ("restartPolicy",))) == "Always"


def pod_resources(containers: list[Container], init_containers: list[Container]) -> PodResources:
    """Effective pod requests and limits, as the scheduler computes them."""
    sidecars = [c for c in init_containers if _is_sidecar(c)]
    running = containers + sidecars
    names = set()
    for container in containers + init_containers:
        names.update(container.requests)
        names.update(container.limits)
    out = PodResources()
    unparsed: list[str] = []

    def effective(resource: str, table: str) -> Decimal | None:
        amounts = [_amount(c, table, resource, unparsed) for c in running]
        if table == "limits" and any(a is None for a in amounts):
            return None
        total = sum((a or Decimal(0) for a in amounts), Decimal(0))
        started = Decimal(0)
        for init in init_containers:
            amount = _amount(init, table, resource, unparsed)
            if any(init is sidecar for sidecar in sidecars):
                started += amount or Decimal(0)
            elif amount is not None:
                total = max(total, amount + started)
        return total

    out.cpu = effective("cpu", "requests") or Decimal(0)
    out.cpu_limit = effective("cpu", "limits")
    memory = effective("memory", "requests")
    out.memory = int(memory.to_integral_value(rounding=ROUND_CEILING)) if memory else 0
    memory_limit = effective("memory", "limits")
    out.memory_limit = (int(memory_limit.to_integral_value(rounding=ROUND_CEILING))
                        if memory_limit is not None else None)
    for resource in sorted(names):
        if is_gpu_resource(resource):
            count = effective(resource, "requests")
            if count:
                out.gpus[resource] = int(count)
    out.unparsed = sorted(set(unparsed))
    return out
