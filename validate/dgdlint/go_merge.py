"""mergo.Merge(dst, src, mergo.WithOverride) as the Dynamo operator uses it on decoded structs (its v1alpha1
conversion merges extraPodSpec.mainContainer over the container it builds from the service's own fields):
mappings (Go structs, and pointers to them) merged key by key, and at a leaf the source wins unless it is
Go's zero value. An IntOrString port (httpGet's, tcpSocket's) is a struct to mergo: a number over a name
sets only its IntVal, its Type stays String, and the name is what the result says."""

from __future__ import annotations

INT_OR_STRING_PORTS = ("httpGet", "tcpSocket")  # the parents whose `port` is an IntOrString


def go_zero(value) -> bool:
    """Whether Go reads a decoded value as its type's zero value (mergo's isEmptyValue): null, false, 0, "",
    an empty list or mapping."""
    if value is None or value is False:
        return True
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value == 0
    return isinstance(value, (str, list, dict)) and not value


def _number(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def merged(base, over, parent: str = ""):
    """`over` merged over `base` (neither changed): mappings key by key, at a leaf `over` unless it is empty;
    `parent` the key `base` and `over` are found at."""
    if not isinstance(base, dict) or not isinstance(over, dict):
        return base if go_zero(over) else over
    out = dict(base)
    for key, value in over.items():
        if isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key] = merged(out[key], value, key)
        elif parent in INT_OR_STRING_PORTS and key == "port" and isinstance(out.get(key), str) and _number(value):
            continue  # IntVal set under Type String: the name stays
        elif not go_zero(value):
            out[key] = value
    return out
