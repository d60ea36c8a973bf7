"""Every scalar the built-in bases hold (builtin_bases.BASES: the built-in objects of the rules' passing
fixtures), set in turn to a few values at the edges of its type, gets the same verdict from the API server
and from dgdlint: a string empty, a space, an uppercase letter, 254 characters, with a dot, an underscore,
a leading dash, a colon or a slash, a number as text; an integer 0, 1, -1, 65536, both sides of int32's top
and past its bottom; a boolean flipped. Where the fuzzer (test_admission_fuzz_builtin.py) draws a sample,
this walks them all, once per field of a kind (list items taken as one) and value. Metadata is left to the
metadata rules' own cluster tests.

The synthesized bases (builtin_synth.py) carry the same walk to every scalar field of every definition
reachable from the kinds' schemas, once per (definition, field) and value (below a field the server drops
under its default feature gates too: it takes any value of the field's type there, and so does dgdlint)."""

from __future__ import annotations

import pytest
from builtin_bases import BASES, schema_nodes, sweep
from builtin_synth import SYNTHESIZED, UNPLACED, cluster_ready, reachable, scalar_type
from cluster_support import CLUSTER

pytestmark = CLUSTER

EDGES = {"string": ["", " ", "A", "a" * 254, "a.b", "a_b", "-a", "1.5", "/abs", "rel/p", "a:b", "0"],
         "integer": [0, 1, -1, 65536, 2**31 - 1, 2**31, -2**31 - 1], "number": [0, -1, 1.5],
         "boolean": [False, True]}
# make test's sample of the synthesized bases' edges: one value per type that the server's validation of a
# name, a path or a number most often refuses
SAMPLE = {"string": ["-a"], "integer": [-1], "number": [-1], "boolean": [True]}


def scalars(document: dict) -> list[tuple[tuple, str, object, tuple[str, str]]]:
    """(path, schema type, value, (definition, field)) of every scalar below the object's spec (and its other
    top-level fields but apiVersion, kind and metadata); (definition, field): the nearest definition holding
    it and its field there (a list's items and a map's values are their field's)."""
    nodes = schema_nodes(document)
    holders = {path: (name, schema) for path, _value, schema, name in nodes}
    found = []
    for path, value, schema, _name in nodes:
        if not path or path[0] in ("apiVersion", "kind", "metadata") or isinstance(value, (dict, list)):
            continue
        field = next(((holders[path[:i]][0], path[i]) for i in range(len(path) - 1, -1, -1)
                      if path[i] in (holders[path[:i]][1].get("properties") or {})), ("", ""))
        found.append((path, scalar_type(schema), value, field))
    return found


def test_the_sweep_reaches_many_fields():
    shapes = {(document["kind"], *("[]" if isinstance(part, int) else part for part in path))
              for _name, document in BASES for path, _kind, _value, _field in scalars(document)}
    assert len(shapes) > 500, len(shapes)


def test_the_synthesized_bases_hold_every_scalar_field():
    _required, fields = reachable()
    held = {field for _name, document in SYNTHESIZED for *_rest, field in scalars(document)}
    assert {(name, field) for name, field in fields - held if name not in UNPLACED} == set()


@pytest.mark.slow
def test_every_scalar_of_the_bases_at_its_edges_gets_one_verdict(control_plane, namespace):
    def edges(document):
        for where, kind, current, _field in scalars(document):
            shape = (document["kind"], *("[]" if isinstance(part, int) else part for part in where))
            for value in EDGES.get(kind, []):
                if value != current:
                    yield (shape, value), f"{'.'.join(map(str, shape))} = {value!r}", where, value

    judged, disagreements = sweep(control_plane, namespace, edges)
    assert len(judged) > 5000, len(judged)
    assert not disagreements, "\n\n".join(disagreements)


def by_definition(values: dict):
    """The synthesized bases' changes: each scalar field of a definition to each of `values` of its type."""
    def changes(document):
        for where, kind, current, (definition, field) in scalars(document):
            for value in values.get(kind, []):
                if value != current:
                    yield (definition, field, value), f"{definition}.{field} = {value!r}", where, value
    return changes


@pytest.mark.slow
def test_every_scalar_of_every_definition_at_its_edges_gets_one_verdict(control_plane, namespace):
    cluster_ready(control_plane, namespace)
    judged, disagreements = sweep(control_plane, namespace, by_definition(EDGES), SYNTHESIZED)
    _required, fields = reachable()
    assert {(name, field) for name, field in fields - {key[:2] for key in judged} if name not in UNPLACED} == set()
    assert not disagreements, "\n\n".join(disagreements)


def test_every_scalar_of_every_definition_at_one_edge_gets_one_verdict(control_plane, namespace):
    cluster_ready(control_plane, namespace)
    judged, disagreements = sweep(control_plane, namespace, by_definition(SAMPLE), SYNTHESIZED)
    assert len(judged) > 400, len(judged)
    assert not disagreements, "\n\n".join(disagreements)
