"""List types (`x-kubernetes-list-type`): a `map` list has one item per value of its keys
(`x-kubernetes-list-map-keys`), a `set` list no item twice. The API server rejects a custom resource that
breaks either; for built-in kinds it rejects some duplicates and only warns about others."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass
class Duplicate:
    index: int  # the second occurrence
    first: int  # the first one
    key: str  # the repeated key, as the message shows it


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
    found: list[Duplicate] = []
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
            if key in seen:
                found.append(Duplicate(index, seen[key], _describe(keys, item)))
            else:
                seen[key] = index
    elif list_type == "set":
        for index, item in enumerate(items):
            key = json.dumps(item, sort_keys=True)
            if key in seen:
                found.append(Duplicate(index, seen[key], "this value" if isinstance(item, (dict, list)) else
                                       _short(item)))
            else:
                seen[key] = index
    return found


def _describe(keys: list[str], item: dict) -> str:
    return ", ".join(f"{key} {_short(item.get(key))}" for key in keys)


def _short(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."
