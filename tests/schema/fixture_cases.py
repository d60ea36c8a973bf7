"""The fixtures other checkers are compared with dgdlint's schema stage on.

Schema fixtures live in tests/schema/fixtures/{fail,pass}/*.yaml (see test_schema_fixtures.py): a fail
fixture names the findings it must give, `# expect: RULE PATH [MESSAGE]`; `# release: R` names the bundled
Dynamo release it is checked against; `# old: FILE` makes it an update of FILE (transition rules).
The comparisons with kubeconform and the API server run over these and over every rule fixture
(tests/rules/<rule>/{pass,fail}/*.yaml), whose DGDs the schema stage checks too. Where a checker
disagrees with dgdlint for a known reason, disagreements.yaml says so, per checker."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
FIXTURES = TESTS / "schema" / "fixtures"
SCHEMA_FIXTURES = sorted(p for p in FIXTURES.glob("*/*.yaml") if not p.name.endswith(".old.yaml"))
RULE_FIXTURES = sorted((TESTS / "rules").glob("*/*/*.yaml"))
DISAGREEMENTS_FILE = TESTS / "schema" / "disagreements.yaml"
EXPECT = re.compile(r"^# expect: (\S+) (\S+)(?: (.+))?$", re.M)
# What kubeconform cannot see: it reads the OpenAPI structure only.
BEYOND_STRUCTURE = {"crd-cel-rule": "a CEL rule (x-kubernetes-validations)",
                    "crd-cel-uncompiled": "a CEL rule (x-kubernetes-validations)",
                    "crd-list-duplicate": "a list-map key or set (x-kubernetes-list-type)",
                    "kubernetes-list-duplicate": "a list-map key or set of a built-in kind (x-kubernetes-list-type)"}


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def header(path: Path, key: str) -> str | None:
    match = re.search(rf"^# {key}: (\S+)", path.read_text(encoding="utf-8"), re.M)
    return match.group(1) if match else None


def expected_schema_paths(path: Path) -> set[tuple[str, str]]:
    """(rule, field path) of every finding a fail fixture expects (all are reasons the API server rejects it)."""
    return {(rule, where) for rule, where, _message in EXPECT.findall(path.read_text(encoding="utf-8"))}


def disagreements(checker: str) -> dict[str, str]:
    """{fixture (repository-relative): reason} for one checker ("api-server" or "kubeconform")."""
    data = yaml.safe_load(DISAGREEMENTS_FILE.read_text(encoding="utf-8")) or {}
    listed = data.get(checker) or {}
    assert all(isinstance(reason, str) and len(reason) > 20 for reason in listed.values()), \
        f"every {checker} entry of {DISAGREEMENTS_FILE.name} carries its reason"
    return listed


def documents(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if isinstance(d, dict)]


def dgd_documents(path: Path) -> list[dict]:
    return [d for d in documents(path) if d.get("kind") == "DynamoGraphDeployment"
            and str(d.get("apiVersion", "")).startswith("nvidia.com/")]
