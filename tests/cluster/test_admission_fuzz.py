"""Differential admission fuzzing: graphs dgdlint has never seen, judged by the real API server and by
dgdlint, must get the same verdict.

test_admission_differential.py compares the two on the fixtures someone wrote. Here the inputs are
made by mutating every passing DGD fixture of the newest release, guided by the bundled schema of its
apiVersion: a value replaced by one its schema describes (enums, integer formats and bounds, quantities,
lists with their keys, optional fields the base lacks), a value of the wrong type, a field dropped, an
unknown field added, a list entry repeated. Each mutant goes to the API server as a server-side dry run
(fieldValidation=Strict) and to dgdlint's schema stage (with the rules that report what the server itself
refuses); the fields each rejects must be the same (admission_support.agree), except where the server
stops at decoding the body (unknown or repeated fields), which it reports alone: dgdlint must then name
those fields or an ancestor, and may name more (agree_after_decoding). The server is the oracle: a
disagreement is a bug in dgdlint, shown as the mutant's YAML with both verdicts.

Hypothesis runs derandomized, so a run is repeatable; the slow tier runs ten times as many mutants.
`DGDLINT_FUZZ_SEED=N` explores other mutants (any disagreement it finds belongs in a fixture)."""

from __future__ import annotations

import copy
import itertools
import json
import os
import tempfile
from pathlib import Path

import pytest
from admission_support import agree, agree_after_decoding, dgdlint_verdict, schema_at, server_answer
from cluster_support import CLUSTER
from fixture_cases import RULE_FIXTURES, SCHEMA_FIXTURES, dgd_documents, header
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from dgdlint.schema import SchemaStage
from dgdlint.schema.bundled import bundled_root, choose_release, read_index

pytestmark = CLUSTER

NEWEST = choose_release(read_index(bundled_root()), None).name
STAGE = SchemaStage()


def _bases() -> list[dict]:
    """Every DGD of a passing fixture of the newest release, once each (no update fixtures: a mutant is a
    create)."""
    seen, bases = set(), []
    for path in SCHEMA_FIXTURES + RULE_FIXTURES:
        if path.parent.name != "pass" or header(path, "release") not in (None, NEWEST) or header(path, "old"):
            continue
        for document in dgd_documents(path):
            key = json.dumps(document, sort_keys=True, default=str)
            if key not in seen:
                seen.add(key)
                bases.append(document)
    return bases


BASES = _bases()
# Texts and numbers the schemas' own constraints turn on: empty, long, quantities, names, paths, signs, formats.
TEXTS = ["", "a", "main", "Main_1", "worker-1", "x" * 70, "1Gi", "500m", "-1Gi", "1.5", "0", "10", "true",
         "TCP", "Always", "ReadWriteMany", "/opt/nim/.cache", "relative/path", "nvcr.io/nim/nvidia/x:1.0",
         "vllm", "decode", "prefill", "frontend", "worker", "epp", "planner", "nixl", "disabled", "GPU", "a b"]
NUMBERS = [0, 1, 2, -1, 3, 8, 65535, 65536, 2**31 - 1, 2**31, 2**63 - 1]
WRONG_TYPES = [None, True, 7, 1.5, "x", [], {}, ["x"], {"k": "v"}]


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


def put(document: dict, path: tuple, value) -> None:
    parent = document
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value


def generated(draw, schema: dict | None, depth: int = 0):
    """A value as `schema` describes it, mostly valid, sometimes at or past a bound."""
    if not schema or depth > 4:
        return copy.deepcopy(draw(st.sampled_from(WRONG_TYPES)))  # a later mutation may change it
    if "enum" in schema:
        return draw(st.sampled_from([*schema["enum"], "notInEnum"]))
    kind = schema.get("type")
    if schema.get("x-kubernetes-int-or-string"):
        kind = draw(st.sampled_from(["integer", "string"]))
    if kind == "object" or (kind is None and "properties" in schema):
        properties = schema.get("properties") or {}
        out = {}
        wanted = set(schema.get("required") or [])
        if properties:
            wanted |= set(draw(st.lists(st.sampled_from(sorted(properties)), max_size=3)))
        for name in sorted(wanted):
            out[name] = generated(draw, properties.get(name), depth + 1)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and draw(st.booleans()):
            out[draw(st.sampled_from(["a", "nvidia.com/x", "app"]))] = generated(draw, extra, depth + 1)
        return out
    if kind == "array":
        items = [generated(draw, schema.get("items"), depth + 1) for _ in range(draw(st.integers(0, 2)))]
        if items and schema.get("x-kubernetes-list-type") in ("map", "set") and draw(st.booleans()):
            items.append(copy.deepcopy(items[0]))
        return items
    if kind == "integer":
        bounds = [schema[key] + step for key in ("minimum", "maximum") if key in schema for step in (-1, 0, 1)]
        return draw(st.sampled_from(NUMBERS + bounds))
    if kind == "number":
        return draw(st.sampled_from([0, 0.5, 1, -1.5]))
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "string":
        return draw(st.sampled_from(TEXTS))
    return copy.deepcopy(draw(st.sampled_from(WRONG_TYPES)))


@st.composite
def mutants(draw) -> dict:
    return mutated(draw, draw(st.sampled_from(BASES)))


@st.composite
def updates(draw) -> tuple[dict, dict]:
    """(stored, mutant of it): an update of a v1beta1 graph (the version the server stores, so no test
    switches the storage version between examples)."""
    base = draw(st.sampled_from([b for b in BASES if b["apiVersion"].endswith("/v1beta1")]))
    return copy.deepcopy(base), mutated(draw, base)


def mutated(draw, base: dict) -> dict:
    document = copy.deepcopy(base)
    version = document["apiVersion"].split("/")[1]
    schema = STAGE.crds[("nvidia.com", "DynamoGraphDeployment", version)].schema
    for _ in range(draw(st.integers(1, 3))):
        spots = [(path, value) for path, value in nodes(document)
                 if path[:1] == ("spec",) or path[:2] in (("metadata", "labels"), ("metadata", "annotations"))]
        path, value = draw(st.sampled_from(spots))
        here = schema_at(schema, path)
        operation = draw(st.sampled_from(["regenerate", "regenerate", "wrong-type", "drop", "unknown", "add",
                                          "repeat"]))
        if operation == "regenerate" and path:
            put(document, path, generated(draw, here))
        elif operation == "wrong-type" and path:
            wrong = draw(st.sampled_from([v for v in WRONG_TYPES if type(v) is not type(value)]))
            put(document, path, copy.deepcopy(wrong))
        elif operation == "drop" and len(path) > 1:
            parent = nodes(document)[0][1]
            for part in path[:-1]:
                parent = parent[part]
            del parent[path[-1]]
        elif operation == "unknown" and isinstance(value, dict):
            value["fuzzUnknownField"] = "x"
        elif operation == "add" and isinstance(value, dict) and here:
            missing = sorted(set(here.get("properties") or {}) - set(value))
            if missing:
                name = draw(st.sampled_from(missing))
                value[name] = generated(draw, here["properties"][name])
        elif operation == "repeat" and isinstance(value, list) and value:
            value.append(copy.deepcopy(value[draw(st.integers(0, len(value) - 1))]))
    return document


def _judge(plane, namespace: str, document: dict, stored: dict | None = None) -> None:
    document.setdefault("metadata", {})["namespace"] = namespace
    old_path = None
    if stored is not None:  # an update: the stored graph is created for real, under a name of its own
        name = f"update-{next(_UPDATES)}"
        stored["metadata"].update(name=name, namespace=namespace)
        document["metadata"]["name"] = name
        old_path = Path(tempfile.mkdtemp(prefix="dgdlint-fuzz-")) / "stored.json"
        old_path.write_text(json.dumps(stored), encoding="utf-8")
    # JSON, which is YAML: both sides read the same values (PyYAML would write the string "96e9" plain,
    # which Kubernetes' YAML reader, and so dgdlint, reads as a number).
    text = json.dumps(document, indent=1)
    server, partial, decoding = server_answer(plane, namespace, document, stored)
    ours = dgdlint_verdict("mutant.yaml", text, document, STAGE, old_path)
    same = agree_after_decoding(server, ours) if decoding else agree(server, partial, ours)
    assert same, (
        f"the API server and dgdlint disagree on this {'update' if stored else 'mutant'}:\n{text}\n"
        f"{'stored: ' + json.dumps(stored) if stored else ''}\n"
        f"server rejects: {sorted(server)}{' (some rules unchecked)' if partial else ''}\n"
        f"dgdlint rejects: {sorted(ours)}")


_UPDATES = itertools.count()
_SEED = int(os.environ.get("DGDLINT_FUZZ_SEED", "0"))
_FIXED = dict(deadline=None, derandomize=not _SEED, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                     HealthCheck.data_too_large])


def test_the_fuzzer_has_bases_of_both_api_versions():
    versions = {base["apiVersion"] for base in BASES}
    assert {"nvidia.com/v1alpha1", "nvidia.com/v1beta1"} <= versions, versions
    assert len(BASES) > 20


@seed(_SEED)
@settings(max_examples=100, **_FIXED)
@given(mutants())
def test_mutants_get_the_same_verdict_from_the_api_server_and_dgdlint(control_plane, namespace, document):
    _judge(control_plane, namespace, document)


@pytest.mark.slow
@seed(_SEED + 1)
@settings(max_examples=600, **_FIXED)
@given(mutants())
def test_mutants_get_the_same_verdict_thorough(control_plane, namespace, document):
    _judge(control_plane, namespace, document)


@seed(_SEED + 2)
@settings(max_examples=30, **_FIXED)
@given(updates())
def test_updates_get_the_same_verdict_from_the_api_server_and_dgdlint(control_plane, namespace, update):
    stored, document = update
    _judge(control_plane, namespace, document, stored)


@pytest.mark.slow
@seed(_SEED + 3)
@settings(max_examples=150, **_FIXED)
@given(updates())
def test_updates_get_the_same_verdict_thorough(control_plane, namespace, update):
    stored, document = update
    _judge(control_plane, namespace, document, stored)
