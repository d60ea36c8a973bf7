"""Text for people: one line per finding, `file:line:col: severity rule message`, then a summary."""

from __future__ import annotations

from dgdlint.engine import CheckResult


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def one_line(name: str) -> str:
    """A file name on one line: control characters (a newline in a name) written as escapes (the findings' lines,
    and the `wrote` lines on stderr)."""
    if name.isprintable():
        return name
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in name)


def _message(finding) -> str:
    """A rule's message names its object and field; a schema finding's says what is wrong with a field, so the
    field's path goes first (as JSON's `path`, SARIF's logical location and GitHub's annotation carry it)."""
    if finding.stage == "schema" and finding.path and finding.path not in finding.message:
        return f"{finding.path}: {finding.message}"
    return finding.message


def render(result: CheckResult, show_fix: bool = False) -> str:
    from dgdlint.report import summary

    lines = []
    for finding in result.findings:
        lines.append(f"{one_line(finding.file)}:{finding.line}:{finding.column}: {finding.severity} "
                     f"{finding.rule} {_message(finding)}")
        if show_fix and finding.remediation:
            lines.append(f"    fix: {finding.remediation}")
    data = summary(result)
    if data["schema"] == "skipped":
        schema = "schema stage skipped (no CRD given)"
    else:
        schema = f"schema checked against {data['schema_source']}" if data["schema_source"] else "schema checked"
    extra = ""
    if data["suppressed"]:
        extra += f", {data['suppressed']} suppressed"
    if data["baselined"]:
        extra += f", {data['baselined']} in the baseline"
    lines.append(f"{counts(result)}{extra} in {_plural(data['files'], 'file')} "
                 f"({_plural(data['objects'], 'object')}; {schema})")
    return "\n".join(lines) + "\n"


def counts(result: CheckResult) -> str:
    """`1 error, 2 warnings, 0 info`: the head of the summary line."""
    return f"{_plural(result.count('error'), 'error')}, {_plural(result.count('warning'), 'warning')}, " \
           f"{result.count('info')} info"
