"""Schema defaults applied as the API server applies them before validation: a property with a `default`
that an object leaves out gets it (in objects that are there, and in each list item and map value), so
that CEL rules see the object the server stores (`self.mode` of a GPU memory service left to its default)."""

from __future__ import annotations

import copy


def apply_defaults(node: object, value: object, resolve=lambda node: node, depth: int = 0,
                   has_defaults=lambda node: True) -> object:
    """A copy of `value` with the schema's defaults filled in; `value` itself is left unchanged. Subtrees
    for which `has_defaults(node)` is false are shared, not copied."""
    node = resolve(node)
    if not isinstance(node, dict) or depth > 64 or not has_defaults(node):
        return value
    if isinstance(value, dict):
        properties = node.get("properties")
        extra = node.get("additionalProperties")
        out = {}
        for key, child in value.items():
            if isinstance(properties, dict) and key in properties:
                out[key] = apply_defaults(properties[key], child, resolve, depth + 1, has_defaults)
            elif isinstance(extra, dict):
                out[key] = apply_defaults(extra, child, resolve, depth + 1, has_defaults)
            else:
                out[key] = child
        if isinstance(properties, dict):
            for key, schema in properties.items():
                schema = resolve(schema)
                if key not in out and isinstance(schema, dict) and "default" in schema:
                    out[key] = apply_defaults(schema, copy.deepcopy(schema["default"]), resolve, depth + 1,
                                              has_defaults)
        return out
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        return [apply_defaults(node["items"], item, resolve, depth + 1, has_defaults) for item in value]
    return value
