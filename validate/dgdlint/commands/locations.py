"""Locations a user can open: a finding on a rendered chart names the template in the repository
(`charts/cosmos3-reasoner/templates/dynamographdeployment.yaml`), not the render's own name, at a line
that template has: the template line that reads as the rendered line, else the first one with its key.
(`--render-out DIR` writes the rendered files instead, and findings keep their exact rendered lines.)"""

from __future__ import annotations

import dataclasses
import functools


def relocate(findings: list, rendered: dict[str, tuple[str, str]]) -> None:
    """Point findings (and their related locations) on rendered names at the chart's templates, in place."""
    if not rendered:
        return
    for finding in findings:
        if finding.file in rendered:
            finding.file, finding.line, finding.column = _template_position(finding.file, finding.line, rendered)
        finding.related = [_moved(location, rendered) for location in finding.related]


def _moved(location, rendered):
    if location.file not in rendered:
        return location
    file, line, column = _template_position(location.file, location.line, rendered)
    return dataclasses.replace(location, file=file, line=line, column=column)


def _template_position(name: str, line: int, rendered: dict) -> tuple[str, int, int]:
    template, text = rendered[name]
    rendered_lines = text.splitlines()
    wanted = rendered_lines[line - 1].strip() if 0 < line <= len(rendered_lines) else ""
    lines = _lines(template)
    found = _find(lines, wanted)
    if found is None:
        return template, 1, 1
    return template, found + 1, len(lines[found]) - len(lines[found].lstrip()) + 1


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
