"""JSON for machines: `{"findings": [...], "summary": {...}}`, lines and columns from 1."""

from __future__ import annotations

import json

from dgdlint.engine import CheckResult


def render(result: CheckResult, **_options) -> str:
    from dgdlint.report import summary

    document = {
        "findings": [finding.to_dict() for finding in result.findings],
        "suppressed": [dict(s.finding.to_dict(), reason=s.reason) for s in result.suppressed],
        "summary": summary(result),
    }
    return json.dumps(document, indent=2) + "\n"
