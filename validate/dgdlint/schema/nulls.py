"""Nulls as the API server drops them before it validates an object.

A custom resource: a null value is dropped where the CRD's schema declares the field (a property, or a
value of a map whose values it describes); inside an `x-kubernetes-preserve-unknown-fields` subtree the
schema describes nothing and the server keeps nulls as written, and it never drops a list item. A CEL rule
therefore sees `has(self.x)` true for a null `x` there. (No CRD bundled here declares `nullable` or a
default for a field written as null, the two exceptions the server also makes.)

A built-in kind is decoded into Go structs, where a null becomes the field's zero value: dropping every
null map value is the closest reading of that without the Go types."""

from __future__ import annotations


def prune_nulls(value: object) -> object:
    """Every null map value dropped, at any depth (built-in kinds); list items kept."""
    if isinstance(value, dict):
        return {k: prune_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [prune_nulls(item) for item in value]
    return value


def prune_declared_nulls(value: object, schema: object) -> object:
    """Null map values dropped where `schema` (a CRD version's structural schema) declares the field."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        values = schema.get("additionalProperties")
        values = values if isinstance(values, dict) else None
        out = {}
        for key, item in value.items():
            declared = properties.get(key, values)
            if declared is None:
                out[key] = item  # not described: preserved as written, or an unknown field the schema reports
            elif item is not None:
                out[key] = prune_declared_nulls(item, declared)
        return out
    if isinstance(value, list):
        items = schema.get("items")
        return [prune_declared_nulls(item, items) for item in value] if isinstance(items, dict) else value
    return value
