"""List types (`x-kubernetes-list-type`): a `map` list has one item per value of its keys
(`x-kubernetes-list-map-keys`), a `set` list no item twice. The API server rejects a custom resource that
breaks either; for built-in kinds it rejects some duplicates and only warns about others. An item of a `map`
list that holds none of its keys, none having a default, is refused by server-side apply ("an element that
omits all key fields"); a create takes it (a ServiceAccount's secrets entry without a name)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass
class Duplicate:
    """A key (or set value) repeated, reported once at its second occurrence as the API server does."""

    index: int  # the second occurrence
    first: int  # the first one
    key: str  # the repeated key, as the message shows it
    later: list[int] = field(default_factory=list)  # the third occurrence and after, which the server does not name


def map_key(item: object, keys: list[str], defaults: dict | None = None) -> tuple | None:
    """The item's key tuple; a key the item leaves out takes its schema default (`defaults`), else counts as
    absent (None), as in the API server's comparison; `protocol` of ports defaults to TCP even where the
    schema does not say so (built-in kinds are defaulted by Go code)."""
    if not isinstance(item, dict):
        return None
    values = []
    for key in keys:
        value = item.get(key)
        if value is None and defaults and key in defaults:
            value = defaults[key]
        if value is None and key == "protocol":
            value = "TCP"
        values.append(json.dumps(value, sort_keys=True))
    return tuple(values)


def duplicates(node: dict, items: list, item_schema: dict | None = None) -> list[Duplicate]:
    """The duplicates in `items` that the list type of `node` forbids (`item_schema`: the items' schema,
    $refs resolved, for the keys' defaults)."""
    list_type = node.get("x-kubernetes-list-type")
    found: dict = {}  # key -> its Duplicate
    seen: dict = {}
    if list_type == "map":
        keys = [k for k in node.get("x-kubernetes-list-map-keys") or [] if isinstance(k, str)]
        if not keys:
            return []
        properties = (item_schema or {}).get("properties") or {}
        defaults = {k: properties[k]["default"] for k in keys
                    if isinstance(properties.get(k), dict) and "default" in properties[k]}
        for index, item in enumerate(items):
            key = map_key(item, keys, defaults)
            if key is None:
                continue
            if _repeated(found, seen, key, index):
                found[key] = Duplicate(index, seen[key], _describe(keys, item))
    elif list_type == "set":
        for index, item in enumerate(items):
            key = json.dumps(item, sort_keys=True)
            if _repeated(found, seen, key, index):
                found[key] = Duplicate(index, seen[key], "this value" if isinstance(item, (dict, list)) else
                                       _short(item))
    return list(found.values())


def keyless(node: dict, items: list, item_schema: dict | None = None) -> list[int]:
    """The indexes of the items of a `map` list that hold none of its keys, when no key has a default: in the
    schema; Go's TCP of a port's protocol; the "" of a LocalObjectReference's name (an item with no other
    field: a pod's imagePullSecrets), which the server's OpenAPI declares and the JSON schemas leave out; and
    none where a key is one the server takes left out (builtin.SERVER_OPTIONAL, marked `x-dgdlint-relaxed`)."""
    keys = [k for k in node.get("x-kubernetes-list-map-keys") or [] if isinstance(k, str)]
    properties = (item_schema or {}).get("properties") or {}
    if node.get("x-kubernetes-list-type") != "map" or not keys or "protocol" in keys or set(properties) == {"name"} \
            or any(isinstance(properties.get(k), dict) and "default" in properties[k] for k in keys) \
            or set(keys) & set((item_schema or {}).get("x-dgdlint-relaxed") or ()):
        return []
    return [index for index, item in enumerate(items)
            if isinstance(item, dict) and all(item.get(key) is None for key in keys)]


def _repeated(found: dict, seen: dict, key, index: int) -> bool:
    """Whether `index` is the second occurrence of `key` (a later one is noted on its Duplicate)."""
    if key in found:
        found[key].later.append(index)
        return False
    if key in seen:
        return True
    seen[key] = index
    return False


def _describe(keys: list[str], item: dict) -> str:
    return ", ".join(f"{key} {_short(item.get(key))}" for key in keys)


def _short(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."
