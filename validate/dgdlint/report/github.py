"""GitHub Actions workflow commands: `::error file=F,line=L,col=C,title=RULE::message`, one per finding."""

from __future__ import annotations

from dgdlint.engine import CheckResult

LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(result: CheckResult, **_options) -> str:
    lines = []
    for f in result.findings:
        properties = f"file={_property(f.file)},line={f.line},col={f.column},title={_property(f.rule)}"
        message = f.message + (f" [{f.path}]" if f.path else "")
        if f.remediation:
            message += f"\nFix: {f.remediation}"
        lines.append(f"::{LEVELS[f.severity]} {properties}::{_data(message)}")
    return "\n".join(lines) + ("\n" if lines else "")
