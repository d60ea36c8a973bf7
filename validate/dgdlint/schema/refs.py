"""`$ref`s of Kubernetes' built-in schemas: each names an entry of `$defs` by its last path part
(`/api/_definitions.json#/$defs/io.k8s.api.core.v1.Container`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator


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


def child_nodes(node: dict, definitions: dict) -> list[dict]:
    """The nodes below a schema node (its properties', its map values' and its items' schemas), resolved."""
    properties, values, items = children(node)
    return [resolve(child, definitions) for child in (*properties.values(), values, items) if child is not None]


def subtree_holds(node: dict, here: Callable[[dict], bool], memo: dict[int, bool], definitions: dict,
                  depth: int = 0) -> bool:
    """Whether `here` holds for `node` or for a node below it (`$ref`s followed). Schema nodes are shared and
    repeat, so answers are remembered in `memo` (one per question); a recursive `$ref` ends the search."""
    known = memo.get(id(node))
    if known is not None:
        return known
    memo[id(node)] = False  # while it is being computed: a cycle adds nothing
    found = here(node) or (depth < 64 and any(subtree_holds(child, here, memo, definitions, depth + 1)
                                              for child in child_nodes(node, definitions)))
    memo[id(node)] = found
    return found


def every_node(node: object) -> Iterator[dict]:
    """Every mapping in a JSON document, `node` itself included, at any depth (inside lists too)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            yield current
            stack.extend(value for value in current.values() if isinstance(value, (dict, list)))
        elif isinstance(current, list):
            stack.extend(value for value in current if isinstance(value, (dict, list)))
