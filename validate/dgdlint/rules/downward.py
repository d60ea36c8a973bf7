"""The downward API as the API server validates it (written from Kubernetes' core validation and its pod
field-label conversion): a `fieldRef` names a field of the pod the kubelet can give (the set differs
between env and volume files; `metadata.labels['key']` and `metadata.annotations['key']` take one entry),
a `resourceFieldRef` a resource of a container's requests or limits (CPU, memory, ephemeral storage,
hugepages: no extended resource such as `nvidia.com/gpu`), with a divisor its resource takes. Each function
yields (path, problem)."""

from __future__ import annotations

from dgdlint.model import as_map, as_str
from dgdlint.quantity import go_quantity_string
from dgdlint.rules.syntax import qualified_name_problem

# Pod fields an env var can take (validEnvDownwardAPIFieldPathExpressions) and a volume file can take.
ENV_FIELDS = ("metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
              "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")
VOLUME_FIELDS = ("metadata.name", "metadata.namespace", "metadata.labels", "metadata.annotations", "metadata.uid")
# Field labels the pod's v1 conversion knows (anything else is refused before the sets above are read).
_CONVERTIBLE = frozenset(ENV_FIELDS + VOLUME_FIELDS + ("spec.restartPolicy", "spec.schedulerName", "status.phase"))
_SUBSCRIPTED = ("metadata.annotations", "metadata.labels")
RESOURCES = ("limits.cpu", "limits.memory", "limits.ephemeral-storage", "requests.cpu", "requests.memory",
             "requests.ephemeral-storage")
_HUGEPAGES = ("requests.hugepages-", "limits.hugepages-")
_BYTES_DIVISORS = ("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei")


def _subscript(field_path: str) -> tuple[str, str] | None:
    """(path, key) of `path['key']`, as Kubernetes' SplitMaybeSubscriptedPath cuts it; None when unsubscripted."""
    if not field_path.endswith("']"):
        return None
    path, bracket, key = field_path[:-2].partition("['")
    return (path, key) if bracket and path else None


def field_ref_problems(ref: object, allowed: tuple[str, ...], where: tuple):
    ref = as_map(ref)
    version = ref.get("apiVersion")
    version = "v1" if version in (None, "") else as_str(version)  # the server defaults it to v1
    field_path = as_str(ref.get("fieldPath")) or ""
    if not field_path:
        yield where + ("fieldPath",), "fieldRef names no fieldPath"
        return
    if version != "v1":
        yield where, f"fieldRef apiVersion {version!r} is not v1 (the pod's only version)"
        return
    subscripted = _subscript(field_path)
    if subscripted is not None:
        path, key = subscripted
        if path not in _SUBSCRIPTED:
            yield where + ("fieldPath",), f"fieldPath {field_path!r}: only metadata.labels and " \
                                          "metadata.annotations take a ['key']"
            return
        problem = qualified_name_problem(key.lower() if path == "metadata.annotations" else key)
        if problem:
            yield where + ("fieldPath",), f"fieldPath {field_path!r}: the key {key!r} {problem}"
        return
    if field_path == "spec.host":  # the old name of spec.nodeName, still converted
        field_path = "spec.nodeName"
    if field_path not in allowed:
        hint = ""
        if field_path.startswith(_SUBSCRIPTED) and field_path not in _SUBSCRIPTED:
            head, _, key = field_path.partition(".")[2].partition(".")
            hint = f" (one label or annotation is written metadata.{head}['{key}'])"
        taker = "an env var" if allowed is ENV_FIELDS else "a volume file"
        known = "is not a field the pod gives" if field_path not in _CONVERTIBLE else f"is not one {taker} takes"
        yield where + ("fieldPath",), f"fieldPath {field_path!r} {known}{hint}; it takes {', '.join(allowed)}" + \
            (", or metadata.labels['key'] and metadata.annotations['key']" if "metadata.labels" not in allowed
             else ", and one entry as metadata.labels['key'] or metadata.annotations['key']")


def resource_ref_problems(ref: object, where: tuple, volume: bool):
    """A resourceFieldRef; a volume file's must name its container (an env var's defaults to its own)."""
    ref = as_map(ref)
    resource = as_str(ref.get("resource")) or ""
    if volume and not as_str(ref.get("containerName")):
        yield where + ("containerName",), "resourceFieldRef in a volume names no containerName"
    elif not resource:
        yield where + ("resource",), "resourceFieldRef names no resource"
    elif resource not in RESOURCES and not resource.startswith(_HUGEPAGES):
        extended = " (the downward API gives no extended resource such as a GPU)" if "/" in resource else ""
        yield where + ("resource",), \
            f"resourceFieldRef resource {resource!r} is not one of {', '.join(RESOURCES)} or a hugepages one{extended}"
    divisor = ref.get("divisor")
    if divisor is None or isinstance(divisor, bool) or not isinstance(divisor, (str, int, float)):
        return  # unset, or the schema's to report
    written = go_quantity_string(divisor if isinstance(divisor, str) else str(divisor))
    if written is None or written == "0":
        return  # no quantity (the schema's), or zero: unset
    takes = ("1m", "1") if resource in ("limits.cpu", "requests.cpu") else \
        _BYTES_DIVISORS if resource in RESOURCES or resource.startswith(_HUGEPAGES) else None
    if takes is not None and written not in takes:
        read = f" (read as {written})" if written != str(divisor) else ""
        yield where + ("divisor",), f"resourceFieldRef divisor {divisor!r}{read} is not one {resource} takes: " \
                                    f"{', '.join(takes)}"
