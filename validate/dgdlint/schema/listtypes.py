"""List types (`x-kubernetes-list-type`): a `map` list has one item per value of its keys
(`x-kubernetes-list-map-keys`), a `set` list no item twice. The API server rejects a custom resource that
breaks either; for built-in kinds it rejects some duplicates and only warns about others. Server-side apply
reads a key an item leaves out as its default: the schema's, or for a built-in kind the one the server's
OpenAPI declares (`x-dgdlint-key-defaults`, schema.builtin), so `{}` and `{name: ""}` are one key; an item
of a `map` list that holds none of its keys, none having a default, is refused by server-side apply ("an
element that omits all key fields"), and so is a null item; a create takes both (a ServiceAccount's secrets
entry without a name, a pod's `imagePullSecrets: [null]`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from dgdlint.schema.nulls import NullItem

KEY_DEFAULTS = "x-dgdlint-key-defaults"  # on an item schema: {key: the default server-side apply gives it}


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
        defaults = key_defaults(keys, item_schema)
        for index, item in enumerate(items):
            key = map_key(item, keys, defaults)
            if key is None or is_null(item):  # a null item is refused as such (keyless)
                continue
            if _repeated(found, seen, key, index):
                found[key] = Duplicate(index, seen[key], _describe(keys, item, defaults))
    elif list_type == "set":
        for index, item in enumerate(items):
            key = json.dumps(item, sort_keys=True)
            if _repeated(found, seen, key, index):
                found[key] = Duplicate(index, seen[key], "this value" if isinstance(item, (dict, list)) else
                                       _short(item))
    return list(found.values())


def key_defaults(keys: list[str], item_schema: dict | None) -> dict:
    """The defaults of the keys that have one: in the item schema, else declared for a built-in kind."""
    properties = (item_schema or {}).get("properties") or {}
    declared = (item_schema or {}).get(KEY_DEFAULTS) or {}
    out = {k: declared[k] for k in keys if k in declared}
    out.update({k: properties[k]["default"] for k in keys
                if isinstance(properties.get(k), dict) and "default" in properties[k]})
    return out


def keyless(node: dict, items: list, item_schema: dict | None = None) -> list[int]:
    """The indexes of the items of a `map` list that server-side apply cannot key: a null item, or one that
    holds none of its keys when no key has a default (the schema's, Go's TCP of a port's protocol, or the one
    a built-in kind's OpenAPI declares)."""
    keys = [k for k in node.get("x-kubernetes-list-map-keys") or [] if isinstance(k, str)]
    if node.get("x-kubernetes-list-type") != "map" or not keys:
        return []
    unkeyed = "protocol" not in keys and not key_defaults(keys, item_schema)
    return [index for index, item in enumerate(items)
            if is_null(item) or (unkeyed and isinstance(item, dict) and all(item.get(key) is None for key in keys))]


def is_null(item: object) -> bool:
    """An item written as null (a built-in kind's is read as an empty object: nulls.NullItem)."""
    return item is None or type(item) is NullItem


def _repeated(found: dict, seen: dict, key, index: int) -> bool:
    """Whether `index` is the second occurrence of `key` (a later one is noted on its Duplicate)."""
    if key in found:
        found[key].later.append(index)
        return False
    if key in seen:
        return True
    seen[key] = index
    return False


def _describe(keys: list[str], item: dict, defaults: dict) -> str:
    return ", ".join(f"{key} {_short(item[key] if item.get(key) is not None else defaults.get(key))}"
                     for key in keys)


def _short(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."
