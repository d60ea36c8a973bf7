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
from schema_fuzz import Mutator

from dgdlint.defaulting import WORKLOAD_PROVIDER, min_available_defaulted, stored_provider
from dgdlint.model import KObject, as_map
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


def _dgd_schema_at(document: dict, path: tuple) -> dict | None:
    version = document["apiVersion"].split("/")[1]
    return schema_at(STAGE.crds[("nvidia.com", "DynamoGraphDeployment", version)].schema, path)


def _mutable(path: tuple) -> bool:
    return path[:1] == ("spec",) or path[:2] in (("metadata", "labels"), ("metadata", "annotations"))


MUTATOR = Mutator(_dgd_schema_at, TEXTS, NUMBERS, ["a", "nvidia.com/x", "app"], _mutable)


@st.composite
def mutants(draw) -> dict:
    return MUTATOR.mutated(draw, draw(st.sampled_from(BASES)))


@st.composite
def updates(draw) -> tuple[dict, dict]:
    """(stored, mutant of it): an update of a v1beta1 graph (the version the server stores, so no test
    switches the storage version between examples)."""
    base = draw(st.sampled_from([b for b in BASES if b["apiVersion"].endswith("/v1beta1")]))
    return copy.deepcopy(base), MUTATOR.mutated(draw, base)


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
    sent, stored_sent = (document, None) if stored is None else _defaulted_by_the_operator(document, stored)
    server, partial, decoding = server_answer(plane, namespace, sent, stored_sent)
    ours = dgdlint_verdict("mutant.yaml", text, document, STAGE, old_path)
    same = agree_after_decoding(server, ours) if decoding else agree(server, partial, ours)
    assert same, (
        f"the API server and dgdlint disagree on this {'update' if stored else 'mutant'}:\n{text}\n"
        f"{'stored: ' + json.dumps(stored) if stored else ''}\n"
        f"server rejects: {sorted(server)}{' (some rules unchecked)' if partial else ''}\n"
        f"dgdlint rejects: {sorted(ours)}")


def _defaulted_by_the_operator(document: dict, stored: dict) -> tuple[dict, dict]:
    """An update's new and stored graphs as the operator's defaulting webhook, which this cluster lacks, leaves
    them for the CRD's rules: on the Grove pathway every component gets minAvailable 1, at create and again on
    the update (dgdlint.defaulting, which dgdlint's update check reads the same way)."""
    kept = stored_provider(KObject.read_from("stored", stored))
    named = as_map(as_map(document.get("metadata")).get("annotations")).get(WORKLOAD_PROVIDER)
    return (min_available_defaulted(document, named if isinstance(named, str) else kept),
            min_available_defaulted(stored, kept))


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
