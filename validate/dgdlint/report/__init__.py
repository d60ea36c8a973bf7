"""Output formats: each module turns a CheckResult into text. The registry maps format names to them."""

from __future__ import annotations

from collections.abc import Callable

from dgdlint.engine import CheckResult


def _text(result: CheckResult, **options) -> str:
    from dgdlint.report.text import render

    return render(result, **options)


def _json(result: CheckResult, **options) -> str:
    from dgdlint.report.json_report import render

    return render(result, **options)


FORMATS: dict[str, Callable[..., str]] = {"text": _text, "json": _json}


def summary(result: CheckResult) -> dict:
    objects = len(result.model.objects)
    return {
        "errors": result.count("error"),
        "warnings": result.count("warning"),
        "infos": result.count("info"),
        "files": len(result.files),
        "objects": objects,
        "schema": "skipped" if result.schema_skipped else "checked",
    }
