"""kubeconform with schemas the project produces offline: built-in kinds from kubernetes-validate's
Kubernetes schemas (rewritten so each file stands alone), Dynamo kinds from the CRDs the schema stage reads.

kubeconform cannot use kubernetes-validate's files as they are: they refer to one shared
`/api/_definitions.json`, an absolute path that resolves to nothing on disk. Each file written here
carries the definitions it reaches under its own `$defs`, named as kubeconform looks them up:
`<kind>-<group>-<version>.json` (built-ins) and `<kind>_<version>.json` (custom resources)."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

from dgdlint.schema.openapi import bound_integer_formats

SHARED_REF = "/api/_definitions.json#/$defs/"
LOCAL_REF = "#/$defs/"
BUILTIN_LOCATION = "{{ .ResourceKind }}{{ .KindSuffix }}.json"
CUSTOM_LOCATION = "{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json"


def _refs(node: object) -> Iterable[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def _relocated(node: object) -> object:
    if isinstance(node, dict):
        return {key: (value.replace(SHARED_REF, LOCAL_REF) if key == "$ref" and isinstance(value, str)
                      else _relocated(value)) for key, value in node.items()}
    if isinstance(node, list):
        return [_relocated(item) for item in node]
    return node


def standalone_builtin_schema(schema: dict, definitions: dict) -> dict:
    """One kind's schema with every definition it reaches copied in and its references made local."""
    needed: dict[str, dict] = {}
    pending = [ref.rsplit("/", 1)[1] for ref in _refs(schema) if "$defs/" in ref]
    while pending:
        name = pending.pop()
        if name in needed:
            continue
        needed[name] = definitions[name]
        pending.extend(ref.rsplit("/", 1)[1] for ref in _refs(definitions[name]) if "$defs/" in ref)
    standalone = {key: value for key, value in _relocated(schema).items() if key != "$id"}
    standalone["$defs"] = {name: _relocated(needed[name]) for name in sorted(needed)}
    return standalone


def builtin_file_name(api_version: str, kind: str) -> str:
    """kubeconform's name for a built-in kind: `deployment-apps-v1.json`, `service-v1.json`."""
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    return f"{kind.lower()}-{group_version}.json"


def write_schemas(out: Path, kinds: Iterable[tuple[str, str]], stage) -> list[str]:
    """Write kubeconform-readable schemas for the (apiVersion, kind) pairs given: built-ins from the
    stage's Kubernetes schemas, and every custom resource the stage has a CRD for. Returns the files."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    root = stage.builtins._schema_dir()
    definitions = None
    for api_version, kind in sorted(set(kinds)):
        name = builtin_file_name(api_version, kind)
        source = root / name
        if not source.is_file():
            continue
        if definitions is None:
            definitions = bound_integer_formats(json.loads((root / "_definitions.json").read_text(encoding="utf-8")))
            definitions = definitions["$defs"]
        schema = standalone_builtin_schema(bound_integer_formats(json.loads(source.read_text(encoding="utf-8"))),
                                           definitions)
        (out / name).write_text(json.dumps(schema, sort_keys=True), encoding="utf-8")
        written.append(name)
    for (_group, kind, version), crd in sorted(stage.crds.items()):
        name = f"{kind.lower()}_{version}.json"
        (out / name).write_text(json.dumps(crd.schema, sort_keys=True), encoding="utf-8")
        written.append(name)
    return written


def kinds_in(paths: Iterable[Path]) -> set[tuple[str, str]]:
    """The (apiVersion, kind) of every document in the YAML files."""
    import yaml

    found = set()
    for path in paths:
        for document in yaml.safe_load_all(Path(path).read_text(encoding="utf-8")):
            if isinstance(document, dict) and document.get("kind") and document.get("apiVersion"):
                found.add((str(document["apiVersion"]), str(document["kind"])))
    return found


def run(kubeconform: str, schemas: Path, files: Iterable[Path], *, missing_ok: bool = False) -> dict:
    """kubeconform -strict over the files with only the given schema folder; its JSON report (one entry
    per resource: filename, kind, name, status, msg) plus its exit code."""
    command = [kubeconform, "-strict", "-verbose", "-output", "json",
               "-schema-location", str(schemas / BUILTIN_LOCATION),
               "-schema-location", str(schemas / CUSTOM_LOCATION)]
    if missing_ok:
        command.append("-ignore-missing-schemas")
    completed = subprocess.run([*command, *map(str, files)], capture_output=True, text=True, check=False)
    try:
        report = json.loads(completed.stdout or "{}")
    except json.JSONDecodeError:
        report = {"resources": [], "error": completed.stdout + completed.stderr}
    report["returncode"] = completed.returncode
    report.setdefault("resources", [])
    return report
