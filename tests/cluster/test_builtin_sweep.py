"""Every scalar the built-in bases hold (builtin_bases.BASES: the built-in objects of the rules' passing
fixtures), set in turn to a few values at the edges of its type, gets the same verdict from the API server
and from dgdlint: a string empty, a space, an uppercase letter, 254 characters, with a dot, an underscore,
a leading dash, a colon or a slash, a number as text; an integer 0, 1, -1, 65536, both sides of int32's top
and past its bottom. Where the fuzzer (test_admission_fuzz_builtin.py) draws a sample, this walks them all,
once per field of a kind (list items taken as one) and value. Metadata is left to the metadata rules' own
cluster tests."""

from __future__ import annotations

import pytest
from builtin_bases import BASES, schema_nodes, sweep
from cluster_support import CLUSTER

pytestmark = [*CLUSTER, pytest.mark.slow]

EDGES = {"string": ["", " ", "A", "a" * 254, "a.b", "a_b", "-a", "1.5", "/abs", "rel/p", "a:b", "0"],
         "integer": [0, 1, -1, 65536, 2**31 - 1, 2**31, -2**31 - 1], "number": [0, -1, 1.5]}


def scalars(document: dict) -> list[tuple[tuple, str, object]]:
    """(path, schema type, value) of every scalar below the object's spec (and its other top-level fields but
    apiVersion, kind and metadata)."""
    return [(path, schema["type"] if isinstance(schema.get("type"), str) else "string", value)
            for path, value, schema, _name in schema_nodes(document)
            if path and path[0] not in ("apiVersion", "kind", "metadata") and not isinstance(value, (dict, list))]


def test_the_sweep_reaches_many_fields():
    shapes = {(document["kind"], *("[]" if isinstance(part, int) else part for part in path))
              for _name, document in BASES for path, _kind, _value in scalars(document)}
    assert len(shapes) > 500, len(shapes)


def test_every_scalar_of_the_bases_at_its_edges_gets_one_verdict(control_plane, namespace):
    def edges(document):
        for where, kind, current in scalars(document):
            shape = (document["kind"], *("[]" if isinstance(part, int) else part for part in where))
            for value in EDGES.get(kind, []):
                if value != current:
                    yield (shape, value), f"{'.'.join(map(str, shape))} = {value!r}", where, value

    judged, disagreements = sweep(control_plane, namespace, edges)
    assert judged > 8000, judged
    assert not disagreements, "\n\n".join(disagreements)
