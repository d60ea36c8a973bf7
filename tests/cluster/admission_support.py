"""The admission verdicts the differential tests compare: the real API server's (a server-side dry run,
fieldValidation=Strict) and dgdlint's schema stage plus the rules that report what the server itself
refuses, each as the set of fields it rejects (empty: accepted)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

from controlplane import ApiError, resource_path, storage_version

from dgdlint.engine import check_texts
from dgdlint.load import LoadResult, load_text
from dgdlint.model import build_model
from dgdlint.schema import SchemaStage

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
# The server could not decode the body (an unknown or repeated field under strict validation, a value the
# object's Go type cannot hold such as a boolean label): it says so and validates nothing else.
DECODING = "cannot be handled as a"
WHOLE = "(the whole object)"  # a decoding refusal that names no field
# dgdlint writes a key holding a dot or a space as `['nvidia.com/gpu']`; dgdlint_path spells it `.nvidia.com/gpu`
_QUOTED_KEY = re.compile(r"\['([^']*)'\]")
_PART = re.compile(r"\['([^']*)'\]|\[(\d+)\]|\.?([^.\[]+)")
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
    if not fields and DECODING in status.get("message", ""):
        return {WHOLE}  # Go could not read a value it names by its text only (a time, "parsing time \"\"")
    assert fields, f"the server rejected the object without naming a field: {status}"
    return fields


def server_verdict(plane, namespace: str, dgd: dict, old: dict | None = None) -> tuple[set[str], bool]:
    """(fields the server rejects, whether it said some validation rules were not checked); an empty set
    means accepted. With `old`, the old object is created for real first and `dgd` is a dry-run update."""
    fields, partial, _decoding = server_answer(plane, namespace, dgd, old)
    return fields, partial


def server_answer(plane, namespace: str, dgd: dict, old: dict | None = None) -> tuple[set[str], bool, bool]:
    """server_verdict's answer, and whether the server stopped at decoding the body (DECODING)."""
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
        return set(), False, False
    except ApiError as error:
        message = error.body.get("message", "")
        return fields_of(error.body), NOT_ALL_CHECKED in message, DECODING in message


def dgdlint_verdict(name: str, text: str, dgd: dict, stage: SchemaStage, old_path: Path | None = None) -> set[str]:
    """The fields dgdlint rejects of `dgd`, one object of the file `name` holding `text`."""
    stage.previous = {}
    if old_path is not None:
        loaded = LoadResult()
        load_text(old_path.name, old_path.read_text(encoding="utf-8"), loaded)
        stage.previous = {obj.ref: obj for obj in build_model(loaded).objects}
    metadata = dgd.get("metadata") or {}
    object_name = metadata.get("name") or metadata.get("generateName") or ""
    ref = f"{dgd['kind']}/{metadata.get('namespace') or 'default'}/{object_name}"
    try:
        result = check_texts({name: text}, stage)
    finally:
        stage.previous = {}
    found = set()
    for finding in result.findings:
        if finding.severity == "error" and finding.object_ref in (ref, ""):
            if finding.stage == "schema":
                found.add(_QUOTED_KEY.sub(r".\1", finding.path))
            elif finding.rule in SERVER_RULES and (finding.rule != "duplicate-env" or keyed(stage, dgd, finding.path)):
                found.add(SERVER_RULES[finding.rule](_QUOTED_KEY.sub(r".\1", finding.path)))
    return found


def path_parts(path: str) -> tuple:
    """dgdlint's `spec.services.W.envs[3]` (a key with a dot written `['a.b']`) as its keys and indexes."""
    return tuple(int(index) if index else quoted or plain for quoted, index, plain in _PART.findall(path))


def schema_at(schema: dict | None, path: tuple) -> dict | None:
    """The schema of the node at `path` in a bundled JSON schema, or None where it says nothing about it."""
    for part in path:
        if schema is None:
            return None
        if isinstance(part, int):
            schema = schema.get("items")
        elif part in (schema.get("properties") or {}):
            schema = schema["properties"][part]
        else:
            extra = schema.get("additionalProperties")
            schema = extra if isinstance(extra, dict) else None
    return schema


def keyed(stage: SchemaStage, dgd: dict, path: str) -> bool:
    """Whether the list holding the entry at `path` is a list map in the object's CRD schema: only there does
    the server refuse a repeated key (a v1alpha1 graph's `envs` is a plain list, whose repeat dgdlint
    refuses as a rule of its own)."""
    parts = path_parts(path)
    last = max((i for i, part in enumerate(parts) if isinstance(part, int)), default=None)
    crd = stage.crds.get(("nvidia.com", dgd["kind"], str(dgd["apiVersion"]).split("/")[-1]))
    if last is None or crd is None:
        return True
    return (schema_at(crd.schema, parts[:last]) or {}).get("x-kubernetes-list-type") == "map"


def agree(server: set[str], partial: bool, ours: set[str]) -> bool:
    if bool(server) != bool(ours):
        return False
    if server == {WHOLE}:  # refused as a whole, before validation: dgdlint refuses it too, where it can say
        return True
    return server <= ours if partial else server == ours


def agree_after_decoding(server: set[str], ours: set[str]) -> bool:
    """Where the server stopped at decoding: dgdlint rejects too, and names each field the server names or an
    ancestor of it (a mapping where a string belongs: the server calls its keys unknown, dgdlint says the
    value is of the wrong type). dgdlint may name more: the server validated nothing after decoding."""
    return bool(ours) and all(field == WHOLE or any(field == mine or field.startswith((mine + ".", mine + "["))
                                                    for mine in ours) for field in server)


REMOVED = object()  # changed()'s value for a field taken out


def changed(document: dict, path: tuple, value) -> dict:
    """A copy of `document` with the node at `path` set to `value`, or taken out (REMOVED)."""
    mutant = copy.deepcopy(document)
    holder = mutant
    for part in path[:-1]:
        holder = holder[part]
    if value is REMOVED:
        del holder[path[-1]]
    else:
        holder[path[-1]] = value
    return mutant
