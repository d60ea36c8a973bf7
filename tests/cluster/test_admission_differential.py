"""Differential admission: every DGD of every schema and rule fixture (pass and fail, both API versions)
goes to the real API server as a server-side dry-run create (an update, for a fixture with an `# old:`
side) with fieldValidation=Strict, and the server's verdict (accepted, or rejected and on which fields)
must equal dgdlint's schema stage. The server is the oracle: a disagreement is a bug in dgdlint unless
disagreements.yaml lists it (under api-server) with its reason, and a listed fixture that no longer
disagrees fails too. Fixtures checked against an older bundled release than the server's CRDs are left
out (the server holds one release).

There is no Dynamo operator here: its validating webhook does not run, so webhook rules stay dgdlint's
own reading (rule stage); only the CRD's schema, CEL rules and list keys are compared."""

from __future__ import annotations

from pathlib import Path

import pytest
from admission_support import SERVER_RULES, agree, dgdlint_verdict, server_verdict
from cluster_support import CLUSTER
from fixture_cases import (
    RULE_FIXTURES,
    SCHEMA_FIXTURES,
    dgd_documents,
    disagreements,
    documents,
    expected_schema_paths,
    header,
    relative,
)

from dgdlint.schema import SchemaStage
from dgdlint.schema.bundled import bundled_root, choose_release, read_index

pytestmark = CLUSTER

NEWEST = choose_release(read_index(bundled_root()), None).name
CASES = [path for path in SCHEMA_FIXTURES + RULE_FIXTURES
         if dgd_documents(path) and header(path, "release") in (None, NEWEST)]


def verdicts(path: Path, plane, namespace: str) -> list[tuple[set[str], bool, dict]]:
    old_name = header(path, "old")
    old_path = path.parent / old_name if old_name else None
    old = documents(old_path)[0] if old_path else None
    return [(*server_verdict(plane, namespace, dgd, old), dgd) for dgd in dgd_documents(path)]


@pytest.fixture(scope="module")
def stage() -> SchemaStage:
    return SchemaStage()


@pytest.mark.parametrize("path", CASES, ids=relative)
def test_the_api_server_and_the_schema_stage_give_the_same_verdict(path, control_plane, namespace, stage):
    old_name = header(path, "old")
    outcomes = []
    for server, partial, dgd in verdicts(path, control_plane, namespace):
        old_path = path.parent / old_name if old_name else None
        ours = dgdlint_verdict(path.name, path.read_text(encoding="utf-8"), dgd, stage, old_path)
        outcomes.append((agree(server, partial, ours), sorted(server), sorted(ours)))
    reason = disagreements("api-server").get(relative(path))
    if reason:
        assert not all(ok for ok, _, _ in outcomes), \
            f"listed as a disagreement ({reason}) but the server and dgdlint now agree: delete the entry"
    else:
        assert all(ok for ok, _, _ in outcomes), [(server, ours) for _ok, server, ours in outcomes]


@pytest.mark.parametrize("path", [p for p in CASES if p in SCHEMA_FIXTURES and p.parent.name == "fail"],
                         ids=relative)
def test_each_failing_schema_fixture_is_rejected_by_the_api_server_where_it_expects(path, control_plane, namespace):
    [(server, partial, _dgd)] = verdicts(path, control_plane, namespace)
    expected = {SERVER_RULES.get(rule, str)(where) for rule, where in expected_schema_paths(path)}
    assert server <= expected if partial else server == expected
