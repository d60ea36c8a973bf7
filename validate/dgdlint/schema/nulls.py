"""Nulls as the API server drops them before it validates an object.

A custom resource: a null value is dropped where the CRD's schema declares the field (a property, or a
value of a map whose values it describes); inside an `x-kubernetes-preserve-unknown-fields` subtree the
schema describes nothing and the server keeps nulls as written, and it never drops a list item. A CEL rule
therefore sees `has(self.x)` true for a null `x` there. (No CRD bundled here declares `nullable` or a
default for a field written as null, the two exceptions the server also makes.)

A built-in kind is decoded into Go structs: a null field is no field, and a null list item or map value is
the zero value of its type (an empty object, "", 0, false; "0" for a quantity), so `containers: [null]` is a
container without a name and `labels: {a: null}` the label a="". zero_nulls reads the types from the
kind's JSON schema; an unknown field written as null is kept (strict decoding refuses it). Checked against
a real API server (tests/cluster/test_null_pruning.py)."""

from __future__ import annotations

from dgdlint.schema.refs import children, ref_name, resolve

# Kinds whose zero value is no empty object or text: their JSON form as Go writes it.
_ZERO_OF_REF = {"io.k8s.apimachinery.pkg.api.resource.Quantity": "0",
                "io.k8s.apimachinery.pkg.util.intstr.IntOrString": 0}
_ZERO_OF_TYPE = (("object", dict), ("array", list), ("string", str), ("integer", int), ("number", int),
                 ("boolean", bool))


class NullItem(dict):
    """A list item written as null that Go decodes as an empty object: empty to every check, but known to the
    list-key check, as server-side apply refuses a null item of a keyed list (listtypes.keyless)."""


def zero_nulls(value: object, schema: object, definitions: dict) -> object:
    """A built-in kind's value as Go decodes it (see above), its types read from `schema` and the `$defs`
    its `$ref`s name."""
    properties, values, items = children(resolve(schema, definitions))
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in properties:
                if item is not None:
                    out[key] = zero_nulls(item, properties[key], definitions)
            elif values is not None:
                out[key] = _zero(values, definitions) if item is None else zero_nulls(item, values, definitions)
            else:
                out[key] = item  # unknown: the schema reports it, null or not
        return out
    if isinstance(value, list) and items is not None:
        return [_null_item(items, definitions) if item is None else zero_nulls(item, items, definitions)
                for item in value]
    return value


def _null_item(schema: dict, definitions: dict) -> object:
    zero = _zero(schema, definitions)
    return NullItem() if type(zero) is dict else zero


def _zero(schema: dict, definitions: dict) -> object:
    """The zero value of the type `schema` describes, as JSON; None where the schema does not say."""
    reference = ref_name(schema)
    if reference in _ZERO_OF_REF:
        return _ZERO_OF_REF[reference]
    types = resolve(schema, definitions).get("type")
    types = [types] if isinstance(types, str) else types if isinstance(types, list) else []
    for name, make in _ZERO_OF_TYPE:
        if name in types:
            return make()
    return None


def prune_nulls(value: object) -> object:
    """Every null map value dropped, at any depth; list items kept (where no schema gives the types)."""
    if isinstance(value, dict):
        return {k: prune_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [prune_nulls(item) for item in value]
    return value


def prune_declared_nulls(value: object, schema: object) -> object:
    """Null map values dropped where `schema` (a CRD version's structural schema) declares the field."""
    if not isinstance(schema, dict):
        return value
    properties, values, items = children(schema)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            declared = properties.get(key, values)
            if declared is None:
                out[key] = item  # not described: preserved as written, or an unknown field the schema reports
            elif item is not None:
                out[key] = prune_declared_nulls(item, declared)
        return out
    if isinstance(value, list):
        return [prune_declared_nulls(item, items) for item in value] if items is not None else value
    return value
