"""`$ref`s of Kubernetes' built-in schemas: each names an entry of `$defs` by its last path part
(`/api/_definitions.json#/$defs/io.k8s.api.core.v1.Container`)."""

from __future__ import annotations


def ref_name(schema: object) -> str:
    """The `$defs` entry a schema node refers to, or "" when it is no reference."""
    return str(schema.get("$ref", "")).rpartition("/")[2] if isinstance(schema, dict) else ""


def resolve(schema: object, definitions: dict) -> dict:
    """The node a chain of `$ref`s ends at ({} for what is no schema node); a loop ends after 32 steps."""
    for _ in range(32):
        if not isinstance(schema, dict) or "$ref" not in schema:
            break
        schema = definitions.get(ref_name(schema), {})
    return schema if isinstance(schema, dict) else {}


def children(node: dict) -> tuple[dict, dict | None, dict | None]:
    """A schema node's properties (name -> schema), the schema of a map's values and that of a list's items
    (None where it has none)."""
    properties, values, items = (node.get(key) for key in ("properties", "additionalProperties", "items"))
    return (properties if isinstance(properties, dict) else {}, values if isinstance(values, dict) else None,
            items if isinstance(items, dict) else None)
