"""Schema-guided mutants, for the admission fuzzers (test_admission_fuzz.py for DGDs, test_admission_fuzz_builtin.py
for Kubernetes' own kinds): values made as a JSON schema describes them, mostly valid, sometimes at or past a
bound, and one to a few mutations of a base object."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from hypothesis import strategies as st

WRONG_TYPES = [None, True, 7, 1.5, "x", [], {}, ["x"], {"k": "v"}]
OPERATIONS = ("regenerate", "regenerate", "wrong-type", "drop", "unknown", "add", "add", "repeat")


def nodes(value, path: tuple = ()) -> list[tuple[tuple, object]]:
    """(path, value) of every node under `value`, `value` itself first."""
    found = [(path, value)]
    if isinstance(value, dict):
        for key, item in value.items():
            found += nodes(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += nodes(item, path + (index,))
    return found


def any_of(draw, values: list):
    """One of `values`, copied: a later mutation may change a list or a map drawn."""
    return copy.deepcopy(draw(st.sampled_from(values)))


@dataclass
class Mutator:
    """Mutations of objects of one family of schemas. `schema_at(document, path)`: the schema of a node (resolved,
    or None); `resolve`: a schema node with its reference followed; `mutable(path)`: whether a path may change;
    `texts`, `numbers`, `keys`: what strings, integers and new map keys are drawn from."""

    schema_at: object
    texts: list
    numbers: list
    keys: list
    mutable: object
    resolve: object = field(default=lambda schema: schema)
    operations: tuple = OPERATIONS

    def generated(self, draw, schema: dict | None, depth: int = 0):
        schema = self.resolve(schema)
        if not schema or depth > 4:
            return any_of(draw, WRONG_TYPES)
        if "enum" in schema:
            return draw(st.sampled_from([*schema["enum"], "notInEnum"]))
        kind = schema.get("type")
        kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
        if schema.get("x-kubernetes-int-or-string") or schema.get("format") == "int-or-string" or "oneOf" in schema:
            kind = draw(st.sampled_from(["integer", "string"]))
        if kind == "object" or (kind is None and "properties" in schema):
            properties = schema.get("properties") or {}
            wanted = set(schema.get("required") or [])
            if properties:
                wanted |= set(draw(st.lists(st.sampled_from(sorted(properties)), max_size=3)))
            out = {name: self.generated(draw, properties.get(name), depth + 1) for name in sorted(wanted)}
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict) and draw(st.booleans()):
                out[draw(st.sampled_from(self.keys))] = self.generated(draw, extra, depth + 1)
            return out
        if kind == "array":
            items = [self.generated(draw, schema.get("items"), depth + 1) for _ in range(draw(st.integers(0, 2)))]
            if items and draw(st.booleans()):
                items.append(copy.deepcopy(items[0]))
            return items
        if kind == "integer":
            bounds = [schema[key] + step for key in ("minimum", "maximum") if key in schema for step in (-1, 0, 1)]
            return draw(st.sampled_from(self.numbers + bounds))
        if kind == "number":
            return draw(st.sampled_from([0, 0.5, 1, -1.5]))
        if kind == "boolean":
            return draw(st.booleans())
        if kind == "string":
            return draw(st.sampled_from(self.texts))
        return any_of(draw, WRONG_TYPES)

    def mutated(self, draw, base: dict, most: int = 3) -> dict:
        """A copy of `base` with one to `most` of these mutations, each at a node `mutable` admits: a value
        regenerated from its schema, one of the wrong type, a field dropped, an unknown field added, a field the
        schema has and the object lacks added, a list entry repeated."""
        document = copy.deepcopy(base)
        for _ in range(draw(st.integers(1, most))):
            spots = [(path, value) for path, value in nodes(document) if path and self.mutable(path)]
            if not spots:
                break
            path, value = draw(st.sampled_from(spots))
            here = self.schema_at(document, path)
            parent = document
            for part in path[:-1]:
                parent = parent[part]
            operation = draw(st.sampled_from(self.operations))
            if operation == "regenerate":
                parent[path[-1]] = self.generated(draw, here)
            elif operation == "wrong-type":
                parent[path[-1]] = any_of(draw, [v for v in WRONG_TYPES if type(v) is not type(value)])
            elif operation == "drop" and len(path) > 1:
                del parent[path[-1]]
            elif operation == "unknown" and isinstance(value, dict):
                value["fuzzUnknownField"] = "x"
            elif operation == "add" and isinstance(value, dict) and here:
                missing = sorted(set(here.get("properties") or {}) - set(value))
                if missing:
                    name = draw(st.sampled_from(missing))
                    value[name] = self.generated(draw, here["properties"][name])
            elif operation == "repeat" and isinstance(value, list) and value:
                value.append(copy.deepcopy(value[draw(st.integers(0, len(value) - 1))]))
        return document
