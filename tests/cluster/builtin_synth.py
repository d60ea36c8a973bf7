"""Built-in objects synthesized from Kubernetes' schemas, so that the cluster sweeps (test_builtin_required.py,
test_builtin_sweep.py) reach every definition of the kinds dgdlint checks, where the fixtures' objects
(builtin_bases.BASES) hold only the definitions their rules needed.

For each definition reachable from a kind's schema (below spec and the other top-level fields; metadata is
left to the metadata rules' own cluster tests, status to the controllers that write it), one base: a kind's
smallest object (synth_seeds.yaml `kinds`, the first that reaches the definition, or its `homes` entry) with
the definition at its shallowest place there, the way to it filled with what each definition on it requires,
and the definition holding every scalar field it has (a field that cannot stand beside another, such as one
member of a one-of group, in a base of its own: `alone`). A value comes from the schema (an enum's first,
"a", 1, false) unless the seeds name a valid one for the definition (`instances`), the field (`values`) or a
map's key (`map_keys`); a member of a one-of group takes the place of the member already there (`one_of`),
with the discriminator it needs (`with`). A definition no object the server takes can hold is `unplaced`."""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import yaml
from builtin_bases import _reference, builtin_schema_at, kind_schema, resolved

from dgdlint.schema.builtin import SERVER_OPTIONAL

SEEDS = yaml.safe_load((Path(__file__).with_name("synth_seeds.yaml")).read_text(encoding="utf-8"))
SKIPPED = {"metadata", "status", "apiVersion", "kind"}  # fields never descended into, at any depth
KEY = "a"  # the key of a map's entry the schema's additionalProperties describes, unless `map_keys` names one


def _types(schema: dict) -> list[str]:
    found = schema.get("type")
    return [found] if isinstance(found, str) else [t for t in found or [] if t != "null"]


def scalar(schema: dict | None) -> bool:
    """Whether a node of this schema holds a scalar (Quantity and IntOrString are, by their oneOf)."""
    schema = resolved(schema)
    if not isinstance(schema, dict):
        return False
    if "oneOf" in schema:
        return True
    types = _types(schema)
    return bool(types) and not {"object", "array"} & set(types) and "properties" not in schema


def scalar_type(schema: dict | None) -> str:
    """The type of a scalar's schema: its first non-null type; a Quantity or IntOrString is a string."""
    schema = resolved(schema) or {}
    types = _types(schema)
    return types[0] if types and "oneOf" not in schema else "string"


def holds_scalars(schema: dict | None) -> bool:
    """A scalar, or a list or map of scalars (a container's args, a pod's nodeSelector)."""
    schema = resolved(schema)
    if scalar(schema):
        return True
    if not isinstance(schema, dict) or "properties" in schema:
        return False
    inner = schema.get("items") if "array" in _types(schema) else schema.get("additionalProperties")
    return isinstance(inner, dict) and scalar(inner)


def _child_name(name: str, key: str, child: dict) -> str:
    return _reference(child) or f"{name}.{key}"


def value(schema: dict, name: str, full: bool = False, start: dict | None = None):
    """A valid value of `schema`, the schema of the node named `name` (schema_nodes' naming): its required
    fields filled, and with `full` its scalar fields too (but those of `alone`); `start` a node to fill."""
    if start is not None:
        node = start
    elif name in SEEDS["instances"]:
        node = copy.deepcopy(SEEDS["instances"][name])
    else:
        node = None
    schema = resolved(schema) or {}
    if node is None:
        types = _types(schema)
        if "oneOf" in schema:  # a Quantity, or an IntOrString
            return 1 if name.endswith("IntOrString") else "1"
        if "properties" in schema or "object" in types:
            if "properties" not in schema:
                extra = schema.get("additionalProperties")
                if not isinstance(extra, dict):
                    return {}
                key = SEEDS["map_keys"].get(name, KEY)
                return {key: value(extra, _reference(extra) or name)}
            node = {}
        elif "array" in types:
            items = schema.get("items") or {}
            return [value(items, _reference(items) or name)]
        elif "enum" in schema:
            return schema["enum"][0]
        else:
            return {"string": "a", "integer": 1, "number": 1, "boolean": False}.get(types[0] if types else "", "a")
    if not isinstance(node, dict):
        return node
    properties = schema.get("properties") or {}
    wanted = [f for f in [*(schema.get("required") or []), *SERVER_OPTIONAL.get(name, ())] if f not in SKIPPED]
    if full:
        wanted += [f for f, child in properties.items() if f not in SKIPPED and holds_scalars(child)
                   and f not in SEEDS["alone"].get(name, ())]
    for field in wanted:
        if field not in node and field in properties:
            node[field] = field_value(properties[field], name, field)
    return node


def field_value(schema: dict, name: str, field: str):
    if f"{name}.{field}" in SEEDS["values"]:
        return copy.deepcopy(SEEDS["values"][f"{name}.{field}"])
    return value(schema, _child_name(name, field, schema))


def make_room(holder: dict, name: str, field: str) -> None:
    """Ready `holder`, a `name`, for `field`: the other members of its one-of groups taken out, its
    discriminator set (`with`)."""
    for group in SEEDS["one_of"].get(name, []):
        if field in group:
            for other in group:
                if other != field:
                    holder.pop(other, None)
    holder.update(copy.deepcopy(SEEDS["with"].get(f"{name}.{field}", {})))


@functools.cache
def places() -> dict[str, tuple[dict, tuple]]:
    """Each reachable definition's place: (a kind's seed, path), the first seed in the seeds' order that reaches
    it, at its shallowest there (a list's item at 0, a map's entry at its key)."""
    found: dict[str, tuple[dict, tuple]] = {}
    for seed in SEEDS["kinds"]:
        pending, reached = [((), kind_schema(seed), seed["kind"])], set()
        while pending:
            following = []
            for path, schema, name in pending:
                if name in reached or name in SEEDS["unplaced"]:
                    continue
                reached.add(name)
                home = SEEDS["homes"].get(name)
                if home is None:
                    found.setdefault(name, (seed, path))
                schema = resolved(schema) or {}
                for key, child in (schema.get("properties") or {}).items():
                    if key not in SKIPPED and not holds_scalars(child):
                        following.append((path + (key,), child, _child_name(name, key, child)))
                inner = schema.get("items") if isinstance(schema.get("items"), dict) else None
                if inner is not None and not scalar(inner):
                    following.append((path + (0,), inner, _reference(inner) or name))
                extra = schema.get("additionalProperties")
                if "properties" not in schema and isinstance(extra, dict) and not scalar(extra):
                    following.append((path + (SEEDS["map_keys"].get(name, KEY),), extra, _reference(extra) or name))
            pending = following
    for name, (api_version, kind, *path) in SEEDS["homes"].items():
        seed = next(seed for seed in SEEDS["kinds"] if (seed["apiVersion"], seed["kind"]) == (api_version, kind))
        found[name] = (seed, tuple(path))
    return found


def built(seed: dict, path: tuple) -> tuple[dict, object]:
    """The kind's seed with a node at `path`, the way there filled, each one-of group keeping the member on the
    way: (the object, the node at `path`)."""
    document = value(kind_schema(seed), seed["kind"], start=copy.deepcopy(seed) | {"metadata": {"name": "synth"}})
    holder, schema, name = document, kind_schema(seed), seed["kind"]
    for part in path:
        schema = resolved(schema) or {}
        if isinstance(part, int):
            child = schema.get("items") or {}
            child_name = _reference(child) or name
            if not holder:
                holder.append(value(child, child_name))
        elif "properties" in schema:
            child = schema["properties"][part]
            child_name = _child_name(name, part, child)
            make_room(holder, name, part)
            if part not in holder:
                holder[part] = field_value(child, name, part)
        else:
            child = schema.get("additionalProperties") or {}
            child_name = _reference(child) or name
            if part not in holder:
                holder[part] = value(child, child_name)
        holder, schema, name = holder[part], child, child_name
    return document, holder


def synthesized() -> list[tuple[str, dict]]:
    """(label, object) of every synthesized base: per reachable definition, one holding all its scalar fields
    but those `alone`, and one per field `alone`."""
    bases = []
    for name, (seed, path) in places().items():
        schema = builtin_schema_at(kind_schema(seed), path)
        if "properties" not in schema:  # a list or map of definitions: its items have a place of their own
            continue
        document, node = built(seed, path)
        value(schema, name, full=True, start=node)
        bases.append((f"synthesized {name}", document))
        for field in SEEDS["alone"].get(name, ()):
            document, node = built(seed, path)
            make_room(node, name, field)
            node[field] = field_value(schema["properties"][field], name, field)
            bases.append((f"synthesized {name} with {field}", document))
    return bases


def reachable() -> tuple[set, set]:
    """(required, scalar): the (definition, field) pairs of every reachable definition that Kubernetes' schema
    marks required (SERVER_OPTIONAL's too), and that hold a scalar or a list or map of scalars."""
    required, scalars = set(), set()
    for name, (seed, path) in places().items():
        schema = builtin_schema_at(kind_schema(seed), path) or {}
        properties = schema.get("properties") or {}
        required |= {(name, field) for field in [*(schema.get("required") or []), *SERVER_OPTIONAL.get(name, ())]
                     if field not in SKIPPED}
        scalars |= {(name, field) for field, child in properties.items()
                    if field not in SKIPPED and holds_scalars(child)}
    return required, scalars


# Definitions no object the server takes can hold, with the server's reason: their fields are not swept.
UNPLACED: dict[str, str] = SEEDS["unplaced"]
SYNTHESIZED = synthesized()


def cluster_ready(plane, namespace: str) -> None:
    """The one piece of cluster state a synthesized base's change depends on, set as dgdlint assumes it: the
    namespace's label that lets a device request ask for adminAccess (resource-claim-invalid leaves it to the
    cluster, which alone knows the namespace's labels)."""
    plane.request("PATCH", f"/api/v1/namespaces/{namespace}",
                  {"metadata": {"labels": {"resource.kubernetes.io/admin-access": "true"}}},
                  content_type="application/merge-patch+json")
