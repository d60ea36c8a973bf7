"""Differential admission fuzzing of Kubernetes' own kinds: a mutant the API server refuses, dgdlint refuses,
and one it takes, dgdlint takes.

The bases are the built-in objects of every rule's passing fixtures (Jobs, claims, volumes, Services,
autoscalers, Pods, quotas, ...), each used only where both the server and dgdlint take it as written. A
mutant changes one or two values under its spec as Kubernetes' own JSON schema of the kind describes them
(the schemas kubernetes-validate ships, which dgdlint's schema stage reads; schema_fuzz.Mutator): a value
regenerated (enums, integers at and past their bounds, quantities, names, optional fields the base lacks),
a value of the wrong type, a field dropped, an unknown one added, a list entry repeated. The server judges
it as a server-side apply, as Helm 4 and `kubectl apply --server-side` send it (list keys are then unique),
and as a create, as Helm 3 and a client-side apply send it (int32 fields then hold their range): dgdlint
refuses what either refuses, by its schema stage, its admission rules and the other rules that report a
refusal of the server (duplicate-env). A Service is also created for real (and deleted): a dry run
allocates no node port or cluster IP, so it checks neither's range. Only the verdicts are compared: the
server names a field where a rule names the container or the object.

Derandomized, as test_admission_fuzz.py; `DGDLINT_FUZZ_SEED=N` explores others."""

from __future__ import annotations

import copy
import itertools
import json
import os

import pytest
from admission_support import SERVER_RULES, schema_at
from cluster_support import CLUSTER
from controlplane import ApiError, resource_path
from fixture_cases import RULE_FIXTURES, documents, relative
from hypothesis import HealthCheck, assume, given, seed, settings
from hypothesis import strategies as st
from schema_fuzz import Mutator

from dgdlint.engine import check_texts
from dgdlint.rules.catalogue import all_rules
from dgdlint.schema import SchemaStage
from dgdlint.schema.builtin import BuiltinSchemas

pytestmark = CLUSTER

STAGE = SchemaStage()
SCHEMAS = BuiltinSchemas()
# The admission rules, and the rules of other families that report what the server itself refuses (a repeated env
# name: server-side apply refuses the list).
ADMISSION = {rule.name for rule in all_rules() if rule.family == "admission"} | set(SERVER_RULES)
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


MUTATOR = Mutator(lambda document, path: builtin_schema_at(kind_schema(document), path), TEXTS, NUMBERS,
                  ["a", "example.com/x", "cpu", "memory"],
                  lambda path: path[0] not in ("apiVersion", "kind", "metadata"), resolve=resolved)


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
    body, path = placed(plane, namespace, MUTATOR.mutated(data.draw, base, most=2))
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


@pytest.mark.slow
@seed(_SEED + 1)
@settings(max_examples=600, **_FIXED)
@given(st.data())
def test_builtin_mutants_get_the_same_verdict_thorough(control_plane, namespace, data):
    _judge(control_plane, namespace, data)
