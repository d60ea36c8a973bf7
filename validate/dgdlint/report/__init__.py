"""Output formats: each module turns a CheckResult (or, for plan_*, a Plan) into text. FORMATS and PLAN_FORMATS
map format names to them."""

from __future__ import annotations

import importlib

from dgdlint.engine import CheckResult

_MODULES = {
    "text": "dgdlint.report.text",
    "json": "dgdlint.report.json_report",
    "sarif": "dgdlint.report.sarif",
    "junit": "dgdlint.report.junit",
    "github": "dgdlint.report.github",
}


def render(name: str, result: CheckResult, **options) -> str:
    return importlib.import_module(_MODULES[name]).render(result, **options)


FORMATS = {name: (lambda result, _name=name, **options: render(_name, result, **options)) for name in _MODULES}

# `dgdlint plan`'s formats: each module's render(plan) -> str.
_PLAN_MODULES = {"text": "dgdlint.report.plan_text", "markdown": "dgdlint.report.plan_markdown",
                 "json": "dgdlint.report.plan_json"}
PLAN_FORMATS = {name: (lambda plan, _module=module: importlib.import_module(_module).render(plan))
                for name, module in _PLAN_MODULES.items()}


def summary(result: CheckResult) -> dict:
    return {
        "errors": result.count("error"),
        "warnings": result.count("warning"),
        "infos": result.count("info"),
        "suppressed": len(result.suppressed),
        "baselined": result.baselined,
        "files": len(result.files),
        "objects": len(result.model.objects),
        "schema": "skipped" if result.schema_skipped else "checked",
        "schema_source": result.schema_source,
    }


def write_report(report: str, target: str | None) -> str | None:
    """Write a report to `target` (stdout when None). Returns a problem to report as a usage error, or None."""
    import sys

    if target is None:
        try:
            sys.stdout.write(report)
            sys.stdout.flush()
        except BrokenPipeError:  # the reader left: dgdlint.cli ends quietly
            raise
        except OSError as error:  # a full disk or a device error under a redirection
            return f"cannot write the report to standard output: {error.strerror}"
        return None
    try:
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(report)
    except OSError as error:
        return f"{target}: {error.strerror}"
    return None
