"""Findings: what every stage reports, in one shape that every output format reads."""

from __future__ import annotations

SEVERITIES = ("error", "warning", "info")
STAGES = ("parse", "schema", "rule")

# Location and Finding are written out rather than made by dataclasses: they are imported before a check's
# reading workers start, where dataclasses (and inspect, which it imports) would cost every run 10 ms of waiting.


class Location:
    """A place in the input: file, line, column, the field's path, and a note for a related location.
    Not to be changed once made (it is hashed)."""

    __slots__ = ("file", "line", "column", "path", "note")

    def __init__(self, file: str, line: int, column: int, path: str = "", note: str = ""):
        self.file, self.line, self.column, self.path, self.note = file, line, column, path, note

    def _fields(self) -> tuple:
        return self.file, self.line, self.column, self.path, self.note

    def replace(self, **changes) -> Location:
        """A copy with `changes` (field names to values)."""
        return Location(**{**{name: getattr(self, name) for name in self.__slots__}, **changes})

    def __eq__(self, other: object) -> bool:
        return self._fields() == other._fields() if type(other) is Location else NotImplemented

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return "Location(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__) + ")"


class Finding:
    """One result of a check: which rule, how severe, where, what is wrong and how to fix it."""

    __slots__ = ("rule", "severity", "stage", "file", "line", "column", "path", "message", "remediation", "related",
                 "object_ref")

    def __init__(self, rule: str, severity: str, stage: str, file: str, line: int, column: int, path: str,
                 message: str, remediation: str = "", related: list[Location] | None = None, object_ref: str = ""):
        self.rule, self.severity, self.stage = rule, severity, stage
        self.file, self.line, self.column, self.path = file, line, column, path
        self.message, self.remediation = message, remediation
        self.related = [] if related is None else related
        self.object_ref = object_ref  # kind/namespace/name of the object the finding is on, when there is one

    def _fields(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return self._fields() == other._fields() if type(other) is Finding else NotImplemented

    __hash__ = None  # changed in place (commands.locations moves findings to templates)

    def __repr__(self) -> str:
        return "Finding(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__) + ")"

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
