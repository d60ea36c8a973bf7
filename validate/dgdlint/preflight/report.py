"""The preflight report: one Check per thing looked at, as text for people or JSON for tools."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

MARKS = {"ok": "ok  ", "warning": "warn", "error": "FAIL"}


@dataclass
class Check:
    topic: str  # "api", "namespace", "secret", "storage", "priority", "gpu"
    status: str  # "ok", "warning", "error"
    subject: str
    detail: str

    def to_dict(self) -> dict:
        return {"topic": self.topic, "status": self.status, "subject": self.subject, "detail": self.detail}


@dataclass
class Report:
    server: str
    namespace: str
    checks: list[Check] = field(default_factory=list)

    def add(self, topic: str, status: str, subject: str, detail: str) -> None:
        self.checks.append(Check(topic, status, subject, detail))

    def count(self, status: str) -> int:
        return sum(check.status == status for check in self.checks)

    def of(self, topic: str) -> list[Check]:
        return [check for check in self.checks if check.topic == topic]


def render_text(report: Report) -> str:
    lines = [f"preflight against {report.server}, namespace {report.namespace}"]
    for check in report.checks:
        lines.append(f"{MARKS[check.status]} {check.topic:<9} {check.subject}: {check.detail}")
    lines.append(f"{len(report.checks)} checks: {report.count('error')} failed, {report.count('warning')} warnings")
    return "\n".join(lines) + "\n"


def render_json(report: Report) -> str:
    return json.dumps({"server": report.server, "namespace": report.namespace,
                       "checks": [check.to_dict() for check in report.checks],
                       "summary": {"errors": report.count("error"), "warnings": report.count("warning")}},
                      indent=2) + "\n"
