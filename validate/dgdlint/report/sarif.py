"""SARIF 2.1.0 for code scanning: rule metadata with help text, start line and column, the field path as
a logical location, related locations for cross-object findings, and suppressions with their reasons."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

from dgdlint.engine import CheckResult
from dgdlint.findings import Finding

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _uri(file: str) -> str:
    """A relative URI reference for a file under the working directory (what code scanning maps to the
    repository), else a file: URI; either percent-encoded, as SARIF's URIs are (a space, `%`, a `:` in the
    first segment would make another URI or none)."""
    if file in ("<stdin>", "-"):
        return "stdin"
    path = Path(file)
    if path.is_absolute():
        try:
            return quote(path.relative_to(Path.cwd()).as_posix(), safe="/")
        except ValueError:
            return path.as_uri()
    return quote(file.replace(os.sep, "/"), safe="/")


def _location(file: str, line: int, column: int, path: str) -> dict:
    location = {"physicalLocation": {"artifactLocation": {"uri": _uri(file)},
                                     "region": {"startLine": max(line, 1), "startColumn": max(column, 1)}}}
    if path:
        location["logicalLocations"] = [{"fullyQualifiedName": path, "kind": "member"}]
    return location


def _rules(result: CheckResult) -> list[dict]:
    from dgdlint.rules.catalogue import STAGE_FINDINGS, all_rules

    descriptors = []
    known = set()
    for rule in all_rules():
        known.add(rule.name)
        descriptors.append({
            "id": rule.name,
            "name": rule.name,
            "shortDescription": {"text": rule.title},
            "fullDescription": {"text": rule.rationale},
            "help": {"text": f"{rule.rationale}\nFix: {rule.remediation}",
                     "markdown": f"**Why.** {rule.rationale}\n\n**Fix.** {rule.remediation}"},
            "defaultConfiguration": {"level": LEVELS[rule.severity]},
            "properties": {"code": rule.code, "family": rule.family, "tags": [rule.family]},
        })
    used = {f.rule for f in result.findings} | {s.finding.rule for s in result.suppressed}
    for name in sorted(used - known):
        stage, severity, meaning = STAGE_FINDINGS.get(name, ("rule", "error", name))
        descriptors.append({"id": name, "name": name, "shortDescription": {"text": meaning},
                            "help": {"text": meaning}, "defaultConfiguration": {"level": LEVELS[severity]},
                            "properties": {"stage": stage}})
    return descriptors


def _result(finding: Finding, index: dict[str, int], reason: str | None = None) -> dict:
    entry = {
        "ruleId": finding.rule,
        "ruleIndex": index[finding.rule],
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message + (f" Fix: {finding.remediation}" if finding.remediation else "")},
        "locations": [_location(finding.file, finding.line, finding.column, finding.path)],
        "properties": {"stage": finding.stage},
    }
    if finding.related:
        entry["relatedLocations"] = [
            dict(_location(r.file, r.line, r.column, r.path), id=i, message={"text": r.note or r.path or "related"})
            for i, r in enumerate(finding.related)
        ]
    if reason is not None:
        entry["suppressions"] = [{"kind": "inSource", "justification": reason}]
    return entry


def render(result: CheckResult, **_options) -> str:
    from dgdlint import __version__

    rules = _rules(result)
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = [_result(f, index) for f in result.findings]
    results += [_result(s.finding, index, s.reason) for s in result.suppressed]
    document = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "dgdlint", "version": __version__, "semanticVersion": __version__,
                                "rules": rules}},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    }
    return json.dumps(document, indent=2) + "\n"
