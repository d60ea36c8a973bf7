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
refusal of the server (duplicate-env). The slow tier draws bases from the objects synthesized from Kubernetes'
schemas too (builtin_synth.py: one per definition the kinds reach, each holding every scalar field it has),
so mutants reach the definitions no fixture holds. A Service is also created for real (and deleted): a dry run
allocates no node port or cluster IP, so it checks neither's range. Only the verdicts are compared: the
server names a field where a rule names the container or the object.

Derandomized, as test_admission_fuzz.py; `DGDLINT_FUZZ_SEED=N` explores others."""

from __future__ import annotations

import os

import pytest
from builtin_bases import BASES, builtin_schema_at, disagreement, kind_schema, placed, resolved, taken
from builtin_synth import SYNTHESIZED, cluster_ready
from cluster_support import CLUSTER
from hypothesis import HealthCheck, assume, given, seed, settings
from hypothesis import strategies as st
from schema_fuzz import Mutator

pytestmark = CLUSTER

TEXTS = ["", "a", "main", "Main_1", "x" * 70, "1Gi", "500m", "-1", "0", "10", "true", "TCP", "UDP", "Always",
         "Never", "OnFailure", "IfNotPresent", "ReadWriteOnce", "ReadWriteMany", "/opt/x", "rel/path",
         "nvcr.io/x:1", "a b", "NoSchedule", "Exists", "Equal", "In", "None", "Cluster", "Local", "Delete"]
NUMBERS = [0, 1, 2, -1, 65535, 65536, 2**31 - 1, 2**31]
MUTATOR = Mutator(lambda document, path: builtin_schema_at(kind_schema(document), path), TEXTS, NUMBERS,
                  ["a", "example.com/x", "cpu", "memory"],
                  lambda path: path[0] not in ("apiVersion", "kind", "metadata"), resolve=resolved)


def _judge(plane, namespace: str, data, bases=BASES) -> None:
    name, base = bases[data.draw(st.integers(0, len(bases) - 1))]
    assume(taken(plane, namespace, base) is not None)
    body, path = placed(plane, namespace, MUTATOR.mutated(data.draw, base, most=2))
    found = disagreement(name, plane, body, path)
    assert not found, found


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


@pytest.mark.slow
@seed(_SEED + 2)
@settings(max_examples=400, **_FIXED)
@given(st.data())
def test_mutants_of_synthesized_bases_get_the_same_verdict(control_plane, namespace, data):
    cluster_ready(control_plane, namespace)
    _judge(control_plane, namespace, data, SYNTHESIZED)
