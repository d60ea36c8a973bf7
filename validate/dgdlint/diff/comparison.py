"""One comparison of two models: the findings it collects, and where they point (the new side's field,
or the nearest ancestor present; the old side's as a related location)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dgdlint.findings import Finding, Location
from dgdlint.load import format_path
from dgdlint.model import KObject, Model
from dgdlint.rules.catalogue import DIFF_RULES

PVC_KIND = "PersistentVolumeClaim"


def existing(obj: KObject, path: tuple) -> tuple:
    """The path itself, or its nearest ancestor present in the object: a diff points at what is there."""
    path = tuple(path)
    while path and obj.get(path) is None:
        path = path[:-1]
    return path


def _finding(rule: str, obj: KObject, path: tuple, message: str, related: list[Location]) -> Finding:
    meta = DIFF_RULES[rule]
    path = existing(obj, path)
    line, column = obj.position(path)
    return Finding(rule=rule, severity=meta.severity, stage="rule", file=obj.file, line=line, column=column,
                   path=format_path(path), message=message, remediation=meta.remediation, related=related,
                   object_ref=obj.ref)


def object_key(obj: KObject) -> tuple[str, str, str, str]:
    return obj.group, obj.kind, obj.namespace, obj.name


def index_by_key(model: Model) -> dict[tuple, KObject]:
    return {object_key(obj): obj for obj in model.objects if obj.name}  # the last wins, as an apply does


def location(obj: KObject, path: tuple, note: str) -> Location:
    return obj.location(existing(obj, path), note)


def absent(model: Model, note: str) -> Location:
    """Where the new set is, for a finding about something it lacks."""
    return Location(model.files[0] if model.files else "-", 1, 1, "", note)


@dataclass
class Comparison:
    old: Model
    new: Model
    findings: list[Finding] = field(default_factory=list)

    def old_job(self, job: KObject):
        """The old set's Job of the same key as `job`, if any (an index built once)."""
        index = self.old.memo("diff-jobs-by-key", lambda: {object_key(w.obj): w for w in self.old.jobs()})
        return index.get(object_key(job))

    def add(self, rule: str, obj: KObject, path: tuple, message: str, *related: Location) -> None:
        self.findings.append(_finding(rule, obj, path, message, list(related)))


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def shown(value: str | None) -> str:
    return "unset" if value is None else repr(value)
