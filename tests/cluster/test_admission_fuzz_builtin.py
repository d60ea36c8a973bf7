"""Differential admission fuzzing of Kubernetes' own kinds: a mutant the API server refuses, dgdlint refuses,
and one it takes, dgdlint takes.

The bases are the built-in objects of every rule's passing fixtures (Jobs, claims, volumes, Services,
autoscalers, Pods, quotas, ...), each used only where both the server and dgdlint take it as written. A
mutant changes one or two values under its spec as Kubernetes' own JSON schema of the kind describes them
(the schemas kubernetes-validate ships, which dgdlint's schema stage reads): a value regenerated (enums,
integers at and past their bounds, quantities, names, optional fields the base lacks), a value of the
wrong type, a field dropped, a list entry repeated. The server judges it as a server-side apply, as Helm 4
and `kubectl apply --server-side` send it (list keys are then unique), and as a create, as Helm 3 and a
client-side apply send it (int32 fields then hold their range): dgdlint refuses what either refuses, by
its schema stage and its admission rules. A Service is also created for real (and deleted): a dry run
allocates no node port or cluster IP, so it checks neither's range. Only the verdicts are compared: the server
names a field where a rule names the container or the object.

Derandomized, as test_admission_fuzz.py; `DGDLINT_FUZZ_SEED=N` explores others."""

from __future__ import annotations

import copy
import itertools
import json
import os

from admission_support import schema_at
from cluster_support import CLUSTER
from controlplane import ApiError, resource_path
from fixture_cases import RULE_FIXTURES, documents, relative
from hypothesis import HealthCheck, assume, given, seed, settings
from hypothesis import strategies as st

from dgdlint.engine import check_texts
from dgdlint.rules.catalogue import all_rules
from dgdlint.schema import SchemaStage
from dgdlint.schema.builtin import BuiltinSchemas

pytestmark = CLUSTER

STAGE = SchemaStage()
SCHEMAS = BuiltinSchemas()
ADMISSION = {rule.name for rule in all_rules() if rule.family == "admission"}
def builtin(document: dict) -> bool:
    """Whether the object is of one of Kubernetes' own API groups (the core group, apps, batch, ..., *.k8s.io)."""
    api_version = str(document.get("apiVersion", ""))
    group = api_version.split("/")[0] if "/" in api_version else ""
    return bool(document.get("kind")) and (group in ("", "apps", "batch", "policy", "autoscaling")
                                           or group.endswith(".k8s.io"))


BASES = [(relative(path), document) for path in RULE_FIXTURES if path.parent.name == "pass"
         for document in documents(path) if builtin(document)]
TEXTS = ["", "a", "main", "Main_1", "x" * 70, "1Gi", "500m", "-1", "0", "10", "true", "TCP", "UDP", "Always",
         "Never", "OnFailure", "IfNotPresent", "ReadWriteOnce", "ReadWriteMany", "/opt/x", "rel/path",
         "nvcr.io/x:1", "a b", "NoSchedule", "Exists", "Equal", "In", "None", "Cluster", "Local", "Delete"]
NUMBERS = [0, 1, 2, -1, 65535, 65536, 2**31 - 1, 2**31]
WRONG_TYPES = [None, True, 7, 1.5, "x", [], {}, ["x"], {"k": "v"}]
_SERVICES = itertools.count()  # names of the Services created for real (and deleted)
_VERDICTS: dict[int, bool] = {}  # base index -> whether both sides take it as written


def kind_schema(document: dict) -> dict | None:
    found = SCHEMAS.validators(str(document.get("apiVersion")), str(document.get("kind")))
    return None if found is None else found[2]


def resolved(schema: dict | None) -> dict | None:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = SCHEMAS.definitions().get(schema["$ref"].rsplit("/", 1)[-1])
    return schema


def builtin_schema_at(schema: dict | None, path: tuple) -> dict | None:
    for part in path:
        schema = schema_at(resolved(schema), (part,))
    return resolved(schema)


def generated(draw, schema: dict | None, depth: int = 0):
    schema = resolved(schema)
    if not schema or depth > 4:
        return copy.deepcopy(draw(st.sampled_from(WRONG_TYPES)))
    if "enum" in schema:
        return draw(st.sampled_from([*schema["enum"], "notInEnum"]))
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    if schema.get("format") == "int-or-string" or "oneOf" in schema:
        kind = draw(st.sampled_from(["integer", "string"]))
    if kind == "object" or (kind is None and "properties" in schema):
        properties = schema.get("properties") or {}
        wanted = set(schema.get("required") or [])
        if properties:
            wanted |= set(draw(st.lists(st.sampled_from(sorted(properties)), max_size=3)))
        out = {name: generated(draw, properties.get(name), depth + 1) for name in sorted(wanted)}
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and draw(st.booleans()):
            out[draw(st.sampled_from(["a", "example.com/x", "cpu", "memory"]))] = generated(draw, extra, depth + 1)
        return out
    if kind == "array":
        items = [generated(draw, schema.get("items"), depth + 1) for _ in range(draw(st.integers(0, 2)))]
        if items and draw(st.booleans()):
            items.append(copy.deepcopy(items[0]))
        return items
    if kind == "integer":
        return draw(st.sampled_from(NUMBERS))
    if kind == "number":
        return draw(st.sampled_from([0, 0.5, -1.5]))
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "string":
        return draw(st.sampled_from(TEXTS))
    return copy.deepcopy(draw(st.sampled_from(WRONG_TYPES)))


def nodes(value, path: tuple = ()) -> list[tuple[tuple, object]]:
    found = [(path, value)]
    if isinstance(value, dict):
        for key, item in value.items():
            found += nodes(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += nodes(item, path + (index,))
    return found


def mutated(draw, base: dict) -> dict:
    document = copy.deepcopy(base)
    schema = kind_schema(document)
    for _ in range(draw(st.integers(1, 2))):
        spots = [(path, value) for path, value in nodes(document)
                 if path and path[0] not in ("apiVersion", "kind", "metadata")]
        if not spots:
            break
        path, value = draw(st.sampled_from(spots))
        here = builtin_schema_at(schema, path)
        parent = document
        for part in path[:-1]:
            parent = parent[part]
        operation = draw(st.sampled_from(["regenerate", "regenerate", "wrong-type", "drop", "add", "add", "repeat"]))
        if operation == "regenerate":
            parent[path[-1]] = generated(draw, here)
        elif operation == "wrong-type":
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from([v for v in WRONG_TYPES
                                                                   if type(v) is not type(value)])))
        elif operation == "drop":
            del parent[path[-1]]
        elif operation == "add" and isinstance(value, dict) and here:
            missing = sorted(set(here.get("properties") or {}) - set(value))
            if missing:
                name = draw(st.sampled_from(missing))
                value[name] = generated(draw, here["properties"][name])
        elif operation == "repeat" and isinstance(value, list) and value:
            value.append(copy.deepcopy(value[draw(st.integers(0, len(value) - 1))]))
    return document


def placed(plane, namespace: str, document: dict) -> tuple[dict, str] | None:
    """The object in the test's namespace (or none, for a cluster-scoped kind) and its REST path; None when
    the server serves no such kind."""
    body = copy.deepcopy(document)
    metadata = body.setdefault("metadata", {})
    try:
        path = resource_path(plane, body["apiVersion"], body["kind"], namespace, metadata.get("name") or "x")
    except (KeyError, ApiError):
        return None
    if "/namespaces/" in path:
        metadata["namespace"] = namespace
    else:
        metadata.pop("namespace", None)
    return body, path


def server_refuses(plane, body: dict, path: str) -> str:
    """The server's refusal of the object as a server-side apply (Helm 4, `kubectl apply --server-side`) or as
    a create (Helm 3, a client-side `kubectl apply`), both dry runs with strict field validation; "" when it
    takes it both ways. The two differ: server-side apply holds list keys unique, and a create reads the JSON
    into Go's types, refusing an int32 field's 2147483648, which server-side apply silently wraps around."""
    collection = path.rsplit("/", 1)[0]
    try:
        plane.request("PATCH", f"{path}?dryRun=All&fieldManager=dgdlint-fuzz&fieldValidation=Strict&force=true",
                      json.dumps(body).encode(), content_type="application/apply-patch+yaml")
        plane.request("POST", f"{collection}?dryRun=All&fieldValidation=Strict", body)
        if body["kind"] == "Service":  # a dry run allocates no node port or cluster IP, so checks no range
            real = dict(body, metadata=dict(body["metadata"], name=f"fuzz-{next(_SERVICES)}"))
            plane.request("POST", f"{collection}?fieldValidation=Strict", real)
            plane.request("DELETE", f"{collection}/{real['metadata']['name']}")
    except ApiError as error:
        return error.body.get("message") or str(error.body)
    return ""


def dgdlint_refuses(body: dict) -> list[str]:
    result = check_texts({"mutant.json": json.dumps(body, indent=1)}, STAGE)
    return [f"{f.rule} {f.path}: {f.message}" for f in result.findings
            if f.severity == "error" and (f.stage == "schema" or f.rule in ADMISSION)]


def _judge(plane, namespace: str, data) -> None:
    index = data.draw(st.integers(0, len(BASES) - 1))
    name, base = BASES[index]
    base_placed = placed(plane, namespace, base)
    assume(base_placed is not None)
    if index not in _VERDICTS:
        _VERDICTS[index] = not server_refuses(plane, *base_placed) and not dgdlint_refuses(base_placed[0])
    assume(_VERDICTS[index])
    body, path = placed(plane, namespace, mutated(data.draw, base))
    server, ours = server_refuses(plane, body, path), dgdlint_refuses(body)
    assert bool(server) == bool(ours), (
        f"the API server and dgdlint disagree on this mutant of {name}:\n{json.dumps(body, indent=1)}\n"
        f"server: {server or 'accepted'}\ndgdlint: {ours or 'accepted'}")


_SEED = int(os.environ.get("DGDLINT_FUZZ_SEED", "0"))
_FIXED = dict(deadline=None, derandomize=not _SEED, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                     HealthCheck.filter_too_much, HealthCheck.data_too_large])


def test_the_fuzzer_has_bases_of_many_kinds():
    assert len({document["kind"] for _name, document in BASES}) >= 20
    assert all(kind_schema(document) for _name, document in BASES if document["kind"] in ("Job", "Service"))


@seed(_SEED)
@settings(max_examples=100, **_FIXED)
@given(st.data())
def test_builtin_mutants_get_the_same_verdict_from_the_api_server_and_dgdlint(control_plane, namespace, data):
    _judge(control_plane, namespace, data)
