"""Findings: what every stage reports, in one shape that every output format reads."""

from __future__ import annotations

from dataclasses import dataclass, field

SEVERITIES = ("error", "warning", "info")
STAGES = ("parse", "schema", "rule")


@dataclass(frozen=True)
class Location:
    """A place in the input: file, line, column, the field's path, and a note for a related location."""

    file: str
    line: int
    column: int
    path: str = ""
    note: str = ""


@dataclass
class Finding:
    """One result of a check: which rule, how severe, where, what is wrong and how to fix it."""

    rule: str
    severity: str
    stage: str
    file: str
    line: int
    column: int
    path: str
    message: str
    remediation: str = ""
    related: list[Location] = field(default_factory=list)
    object_ref: str = ""  # kind/namespace/name of the object the finding is on, when there is one

    def sort_key(self) -> tuple:
        return (self.file, self.line, self.column, STAGES.index(self.stage), self.rule, self.path)

    def to_dict(self) -> dict:
        data = {
            "rule": self.rule,
            "severity": self.severity,
            "stage": self.stage,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "path": self.path,
            "message": self.message,
            "remediation": self.remediation,
        }
        if self.object_ref:
            data["object"] = self.object_ref
        if self.related:
            data["related"] = [
                {"file": r.file, "line": r.line, "column": r.column, "path": r.path, "note": r.note}
                for r in self.related
            ]
        return data
