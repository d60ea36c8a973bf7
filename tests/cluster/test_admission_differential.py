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

import copy
import re
from pathlib import Path

import pytest
from cluster_support import CLUSTER
from controlplane import ApiError, resource_path, storage_version
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

from dgdlint.engine import check_texts
from dgdlint.load import LoadResult, load_text
from dgdlint.model import build_model
from dgdlint.schema import SchemaStage
from dgdlint.schema.bundled import bundled_root, choose_release, read_index

pytestmark = CLUSTER

NEWEST = choose_release(read_index(bundled_root()), None).name
CASES = [path for path in SCHEMA_FIXTURES + RULE_FIXTURES
         if dgd_documents(path) and header(path, "release") in (None, NEWEST)]
# Rules (not the schema stage) that report what the API server itself refuses, each with how its field
# path reads in the server's terms: a repeated env name at the entry, a non-string label or annotation at
# the map (the server fails to decode it at all), a name, label or annotation key out of syntax at its map.
SERVER_RULES = {"duplicate-env": lambda path: path.removesuffix(".name"),
                "metadata-value-not-string": lambda path: ".".join(re.split(r"[.\[]", path)[:2]),
                # a missing name is reported at the kind (there is no metadata to point at); an owner reference's
                # missing field at the reference (the server names a required field at its parent here)
                "object-metadata-invalid": lambda path: "metadata" if path == "kind"
                else re.sub(r"^(metadata\.ownerReferences\[\d+\])\..*", r"\1", path)
                if path.startswith("metadata.ownerReferences[") else ".".join(re.split(r"[.\[]", path)[:2])}
_DECODE_ERROR = re.compile(r"Go struct field ObjectMeta\.(\w+) of type")
NOT_ALL_CHECKED = "some validation rules were not checked"
_UNKNOWN_FIELD = re.compile(r'unknown field "([^"]+)"')
# A value outside its integer format's range is reported with no field, the path at the message's end.
_FORMAT = re.compile(r"must be of type integer with format \w+ in (\S+)$")


def dgdlint_path(field: str) -> str:
    """The server's field path in dgdlint's spelling: map keys as `.key`, not `[key]`."""
    return re.sub(r"\[([^\]0-9][^\]]*)\]", r".\1", field.lstrip("."))


def fields_of(status: dict) -> set[str]:
    """The fields a rejection names; a missing required key at the object that lacks it, as dgdlint does."""
    fields = {dgdlint_path(name) for name in _UNKNOWN_FIELD.findall(status.get("message", ""))}
    fields |= {f"metadata.{name}" for name in _DECODE_ERROR.findall(status.get("message", ""))}
    for cause in (status.get("details") or {}).get("causes") or []:
        field = dgdlint_path(cause.get("field", ""))
        if cause.get("reason") == "FieldValueRequired" and "." in field:
            field = field.rsplit(".", 1)[0]
        if field and field != "<nil>":  # "<nil>": the note that some CEL rules were not checked
            fields.add(field)
        fields |= {dgdlint_path(name) for name in _FORMAT.findall(cause.get("message", ""))}
    assert fields, f"the server rejected the object without naming a field: {status}"
    return fields


def server_verdict(plane, namespace: str, dgd: dict, old: dict | None = None) -> tuple[set[str], bool]:
    """(fields the server rejects, whether it said some validation rules were not checked); an empty set
    means accepted. With `old`, the old object is created for real first and `dgd` is a dry-run update."""
    body = copy.deepcopy(dgd)
    body.setdefault("metadata", {})["namespace"] = namespace
    path = resource_path(plane, body["apiVersion"], body["kind"], namespace)
    try:
        if old is None:
            plane.request("POST", f"{path}?dryRun=All&fieldValidation=Strict", body)
        else:
            old = copy.deepcopy(old)
            old.setdefault("metadata", {})["namespace"] = namespace
            with storage_version(plane, old["apiVersion"].split("/")[1]):
                stored = plane.request("POST", path, old)
                body["metadata"]["resourceVersion"] = stored["metadata"]["resourceVersion"]
                plane.request("PUT", f"{path}/{body['metadata']['name']}?dryRun=All&fieldValidation=Strict", body)
        return set(), False
    except ApiError as error:
        return fields_of(error.body), NOT_ALL_CHECKED in error.body.get("message", "")


def dgdlint_verdict(path: Path, dgd: dict, stage: SchemaStage, old_path: Path | None) -> set[str]:
    stage.previous = {}
    if old_path is not None:
        loaded = LoadResult()
        load_text(old_path.name, old_path.read_text(encoding="utf-8"), loaded)
        stage.previous = {obj.ref: obj for obj in build_model(loaded).objects}
    metadata = dgd.get("metadata") or {}
    name = metadata.get("name") or metadata.get("generateName") or ""
    ref = f"{dgd['kind']}/{metadata.get('namespace') or 'default'}/{name}"
    try:
        result = check_texts({path.name: path.read_text(encoding="utf-8")}, stage)
    finally:
        stage.previous = {}
    found = set()
    for finding in result.findings:
        if finding.severity == "error" and finding.object_ref in (ref, ""):
            if finding.stage == "schema":
                found.add(finding.path)
            elif finding.rule in SERVER_RULES:
                found.add(SERVER_RULES[finding.rule](finding.path))
    return found


def agree(server: set[str], partial: bool, ours: set[str]) -> bool:
    if bool(server) != bool(ours):
        return False
    return server <= ours if partial else server == ours


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
        ours = dgdlint_verdict(path, dgd, stage, path.parent / old_name if old_name else None)
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
