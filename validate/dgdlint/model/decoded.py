"""A built-in object as the API server decodes it, where that differs from the values written: a null in a
resource list (a map of quantities: a container's requests and limits, a claim's storage, a quota's hard
limits, ...) is the zero quantity to Kubernetes' Go types, so `limits: {cpu: }` is a limit of 0, which a
request of 1 CPU exceeds. (A single quantity, such as an emptyDir's sizeLimit, is a pointer: null there is
unset.) Custom resources are left alone: the API server drops their nulls before validation. A volume's
capacity is left too: persistent-volume-invalid refuses a null one as such (a volume of no size)."""

from __future__ import annotations

from dgdlint.model.objects import WORKLOAD_POD_SPEC

ZERO = "0"
_TABLES = ("requests", "limits")
_CLAIM_SPECS = {"PersistentVolumeClaim": ("spec",)}
_LIMIT_RANGE_TABLES = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")


_GROUPS = ("", "apps", "batch", "node.k8s.io")  # of the kinds below; a custom kind of the same name is not one


def zero_null_quantities(group: str, kind: str, value: dict) -> None:
    """Write ZERO for every null quantity of `value`'s resource lists, in place (an object of `group` and `kind`)."""
    if group not in _GROUPS:
        return
    pod_path = WORKLOAD_POD_SPEC.get(kind)
    if pod_path is not None:
        _pod(_at(value, pod_path))
        if kind == "StatefulSet":
            for template in _list(_at(value, ("spec",)).get("volumeClaimTemplates")):
                _claim_spec(_map(template).get("spec"))
    elif kind == "PersistentVolumeClaim":
        _claim_spec(value.get("spec"))
    elif kind == "ResourceQuota":
        _zero(_at(value, ("spec",)).get("hard"))
    elif kind == "LimitRange":
        for item in _list(_at(value, ("spec",)).get("limits")):
            for table in _LIMIT_RANGE_TABLES:
                _zero(_map(item).get(table))
    elif kind == "RuntimeClass":
        _zero(_at(value, ("overhead",)).get("podFixed"))


def _pod(spec: dict) -> None:
    for key in ("containers", "initContainers", "ephemeralContainers"):
        for container in _list(spec.get(key)):
            _resources(_map(container).get("resources"))
    _resources(spec.get("resources"))
    _zero(spec.get("overhead"))
    for volume in _list(spec.get("volumes")):
        template = _at(_map(volume), ("ephemeral", "volumeClaimTemplate"))
        _claim_spec(template.get("spec"))


def _claim_spec(spec: object) -> None:
    _resources(_map(spec).get("resources"))


def _resources(resources: object) -> None:
    for table in _TABLES:
        _zero(_map(resources).get(table))


def _zero(table: object) -> None:
    if isinstance(table, dict):
        for name, amount in table.items():
            if amount is None:
                table[name] = ZERO


def _at(value: dict, path: tuple) -> dict:
    for key in path:
        value = _map(value.get(key))
    return value


def _map(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list:
    return value if isinstance(value, list) else []
