"""A built-in object as the API server decodes it, where that differs from the values written: a null in a
resource list (a map of quantities: a container's requests and limits, a claim's storage, a quota's hard
limits, ...) is the zero quantity to Kubernetes' Go types, so `limits: {cpu: }` is a limit of 0, which a
request of 1 CPU exceeds. (A single quantity, such as an emptyDir's sizeLimit, is a pointer: null there is
unset.) Custom resources are left alone: the API server drops their nulls before validation. A volume's
capacity is left too: persistent-volume-invalid refuses a null one as such (a volume of no size)."""

from __future__ import annotations

from dgdlint.model.objects import WORKLOAD_POD_SPEC, as_list, as_map, walk

ZERO = "0"
_TABLES = ("requests", "limits")
_LIMIT_RANGE_TABLES = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")


_GROUPS = ("", "apps", "batch", "node.k8s.io")  # of the kinds below; a custom kind of the same name is not one


def zero_null_quantities(group: str, kind: str, value: dict) -> None:
    """Write ZERO for every null quantity of `value`'s resource lists, in place (an object of `group` and `kind`)."""
    if group not in _GROUPS:
        return
    pod_path = WORKLOAD_POD_SPEC.get(kind)
    if pod_path is not None:
        _pod(as_map(walk(value, pod_path)))
        if kind == "StatefulSet":
            for template in as_list(as_map(value.get("spec")).get("volumeClaimTemplates")):
                _claim_spec(as_map(template).get("spec"))
    elif kind == "PersistentVolumeClaim":
        _claim_spec(value.get("spec"))
    elif kind == "ResourceQuota":
        _zero(as_map(value.get("spec")).get("hard"))
    elif kind == "LimitRange":
        for item in as_list(as_map(value.get("spec")).get("limits")):
            for table in _LIMIT_RANGE_TABLES:
                _zero(as_map(item).get(table))
    elif kind == "RuntimeClass":
        _zero(as_map(value.get("overhead")).get("podFixed"))


def _pod(spec: dict) -> None:
    for key in ("containers", "initContainers", "ephemeralContainers"):
        for container in as_list(spec.get(key)):
            _resources(as_map(container).get("resources"))
    _resources(spec.get("resources"))
    _zero(spec.get("overhead"))
    for volume in as_list(spec.get("volumes")):
        template = as_map(walk(volume, ("ephemeral", "volumeClaimTemplate")))
        _claim_spec(template.get("spec"))


def _claim_spec(spec: object) -> None:
    _resources(as_map(spec).get("resources"))


def _resources(resources: object) -> None:
    for table in _TABLES:
        _zero(as_map(resources).get(table))


def _zero(table: object) -> None:
    if isinstance(table, dict):
        for name, amount in table.items():
            if amount is None:
                table[name] = ZERO
