"""Every scalar the built-in bases hold (builtin_bases.BASES: the built-in objects of the rules' passing
fixtures), set in turn to a few values at the edges of its type, gets the same verdict from the API server
and from dgdlint: a string empty, a space, an uppercase letter, 254 characters, with a dot, an underscore,
a leading dash, a colon or a slash, a number as text; an integer 0, 1, -1, 65536, both sides of int32's top
and past its bottom. Where the fuzzer (test_admission_fuzz_builtin.py) draws a sample, this walks them all,
once per field of a kind (list items taken as one) and value. Metadata is left to the metadata rules' own
cluster tests."""

from __future__ import annotations

import copy

import pytest
from admission_support import schema_at
from builtin_bases import BASES, disagreement, kind_schema, resolved, taken
from cluster_support import CLUSTER

pytestmark = [*CLUSTER, pytest.mark.slow]

EDGES = {"string": ["", " ", "A", "a" * 254, "a.b", "a_b", "-a", "1.5", "/abs", "rel/p", "a:b", "0"],
         "integer": [0, 1, -1, 65536, 2**31 - 1, 2**31, -2**31 - 1], "number": [0, -1, 1.5]}


def scalars(document: dict) -> list[tuple[tuple, str]]:
    """(path, schema type) of every scalar below the object's spec (and its other top-level fields but
    apiVersion, kind and metadata)."""
    found = []
    pending = [((), document, kind_schema(document))]
    while pending:
        path, value, schema = pending.pop()
        schema = resolved(schema)
        if not isinstance(schema, dict):
            continue
        if isinstance(value, dict):
            pending += [(path + (key,), item, schema_at(schema, (key,))) for key, item in value.items()
                        if path or key not in ("apiVersion", "kind", "metadata")]
        elif isinstance(value, list):
            pending += [(path + (index,), item, schema_at(schema, (0,))) for index, item in enumerate(value)]
        elif path:
            kind = schema.get("type")
            found.append((path, kind if isinstance(kind, str) else "string"))
    return found


def replaced(document: dict, path: tuple, value) -> dict:
    mutant = copy.deepcopy(document)
    holder = mutant
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = value
    return mutant


def test_the_sweep_reaches_many_fields():
    shapes = {(document["kind"], *("[]" if isinstance(part, int) else part for part in path))
              for _name, document in BASES for path, _kind in scalars(document)}
    assert len(shapes) > 500, len(shapes)


def test_every_scalar_of_the_bases_at_its_edges_gets_one_verdict(control_plane, namespace):
    done: set = set()
    disagreements = []
    for index, (name, document) in enumerate(BASES):
        fields = scalars(document)
        if not fields or taken(control_plane, namespace, index) is None:
            continue
        body, path = taken(control_plane, namespace, index)
        for where, kind in fields:
            shape = (document["kind"], *("[]" if isinstance(part, int) else part for part in where))
            current = body
            for part in where:
                current = current[part]
            for value in EDGES.get(kind, []):
                if (shape, value) in done or value == current:
                    continue
                done.add((shape, value))
                problem = disagreement(name, control_plane, replaced(body, where, value), path)
                if problem:
                    disagreements.append(f"{'.'.join(map(str, shape))} = {value!r}: {problem}")
    assert len(done) > 8000, len(done)
    assert not disagreements, "\n\n".join(disagreements)
