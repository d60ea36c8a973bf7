"""Locations a user can open: a finding on a rendered chart names the template in the repository
(`charts/cosmos3-reasoner/templates/dynamographdeployment.yaml`), not the render's own name, at a line
that template has: the template line that reads as the rendered line, else the first one with its key.
A line the template does not have (a value the template copies whole, such as a list from the values) is
looked for in the values files, the last given first, then the chart's own values.yaml: the line that sets
that key to that value. (`--render-out DIR` writes the rendered files instead, and findings keep their
exact rendered lines.)"""

from __future__ import annotations

import dataclasses
import functools
import os
import re


def relocate(findings: list, rendered: dict[str, tuple[str, str]], values_files: list[str] | None = None) -> None:
    """Point findings (and their related locations) on rendered names at the chart's templates, or at the
    values file line that set the value, in place."""
    if not rendered:
        return
    values_files = list(values_files or [])
    for finding in findings:
        if finding.file in rendered:
            finding.file, finding.line, finding.column = _template_position(finding.file, finding.line, rendered,
                                                                             values_files)
        finding.related = [_moved(location, rendered, values_files) for location in finding.related]


def _moved(location, rendered, values_files):
    if location.file not in rendered:
        return location
    file, line, column = _template_position(location.file, location.line, rendered, values_files)
    return dataclasses.replace(location, file=file, line=line, column=column)


def _template_position(name: str, line: int, rendered: dict, values_files: list[str]) -> tuple[str, int, int]:
    template, text = rendered[name]
    rendered_lines = text.splitlines()
    wanted = rendered_lines[line - 1].strip() if 0 < line <= len(rendered_lines) else ""
    lines = _lines(template)
    found = _find(lines, wanted)
    if found is not None:
        return template, found + 1, len(lines[found]) - len(lines[found].lstrip()) + 1
    chart_values = os.path.join(template.split(os.sep + "templates" + os.sep, 1)[0], "values.yaml")
    for values_file in [*reversed(values_files), chart_values]:
        place = _value_line(values_file, wanted)
        if place is not None:
            return values_file, place[0], place[1]
    return template, 1, 1


def _value_line(path: str, wanted: str) -> tuple[int, int] | None:
    """(line, column) of the line of a values file that sets the rendered `key: value` (quoted or not, in a
    block or a flow mapping), None when none does or the rendered line is no `key: value`."""
    key, colon, value = wanted.removeprefix("- ").partition(": ")
    value = value.strip().strip("'\"")
    if not colon or not key.strip() or not value:
        return None
    pattern = re.compile(rf"(?<![\w.-]){re.escape(key.strip())}:\s+['\"]?{re.escape(value)}['\"]?\s*(?:[,}}#]|$)")
    for index, text in enumerate(_lines(path)):
        match = pattern.search(text)
        if match:
            return index + 1, match.start() + 1
    return None


def _find(lines: list[str], wanted: str) -> int | None:
    if not wanted:
        return None
    for index, line in enumerate(lines):
        if line.strip() == wanted:
            return index
    key = wanted.lstrip("- ").split(":", 1)[0].strip()
    if not key:
        return None
    for index, line in enumerate(lines):
        if line.strip().lstrip("- ").startswith(key + ":"):
            return index
    return None


@functools.lru_cache(maxsize=64)
def _lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return []
