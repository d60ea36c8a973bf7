"""The chart's value shapes (files/value-shapes.yaml), generated from values.schema.json by `make docs`: the
kind of every value the schema types (a map, a list, a list of maps, text, an integer, a boolean), for the
chart's validate-values.yaml to check when Helm's schema check is skipped (`--skip-schema-validation`), so a
value of the wrong kind fails naming it instead of breaking a template. Values the schema leaves open (a
quantity as text or number, `extraObjects`, Helm's `global`) are not listed."""

from __future__ import annotations

import json
from pathlib import Path

HEADER = ("# Generated from values.schema.json by `make docs` (dgdlint.tools.value_shapes); do not edit.\n"
          "# The kind of each typed value, read by templates/validate-values.yaml (validateShapes) so that a\n"
          "# value of the wrong kind fails naming it even when Helm's schema check is skipped.\n")
_SCALARS = {"string": "text", "integer": "integer", "boolean": "boolean"}
_OPEN = ("global", "extraObjects")


def _resolve(node: dict, definitions: dict) -> dict:
    while isinstance(node, dict) and "$ref" in node:
        node = definitions[node["$ref"].rsplit("/", 1)[-1]]
    return node


def _shape(node: dict, definitions: dict) -> str | None:
    kinds = node.get("type")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
    kinds = [kind for kind in kinds if kind != "null"]  # null unsets a value: always taken
    if len(kinds) != 1:
        return None
    if kinds[0] == "object":
        return "map"
    if kinds[0] == "array":
        items = _resolve(node.get("items") or {}, definitions)
        return "list of maps" if items.get("type") == "object" or "properties" in items else "list"
    return _SCALARS.get(kinds[0])


def shapes(schema: dict) -> dict[str, str]:
    definitions = schema.get("definitions", {})
    found: dict[str, str] = {}

    def walk(node: dict, path: list[str]) -> None:
        node = _resolve(node, definitions)
        if path:
            shape = _shape(node, definitions)
            if shape is not None:
                found[".".join(path)] = shape
        for key, child in (node.get("properties") or {}).items():
            if not path and key in _OPEN:
                continue
            walk(child, path + [key])

    walk(schema, [])
    return found


def shapes_yaml(chart: Path) -> str:
    schema = json.loads((chart / "values.schema.json").read_text(encoding="utf-8"))
    lines = [f"{path}: {shape}" for path, shape in shapes(schema).items()]
    return HEADER + "\n".join(lines) + "\n"
