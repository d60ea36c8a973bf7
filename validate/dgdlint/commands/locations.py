"""Locations a user can open: a finding on a rendered chart names the template in the repository
(`charts/cosmos3-reasoner/templates/dynamographdeployment.yaml`), not the render's own name, at a line
that template has: the template line that reads as the rendered line, else the first one with its key.
A line the template does not have (in a list or map the template copies whole from the values) is looked
for in the values files and the chart's own values.yaml: the node of the smallest copied collection that
one place of them holds. (`--render-out DIR` writes the rendered files instead, and findings keep their
exact rendered lines.)"""

from __future__ import annotations

import functools
import os


def relocate(findings: list, rendered: dict[str, tuple[str, str]], values_files: list[str] | None = None,
             chart: str | None = None) -> None:
    """Point findings (and their related locations) on rendered names at the chart's templates, or at the
    values file node the template copied (the -f files, then `chart`'s values.yaml), in place."""
    if not rendered:
        return
    sources = [*reversed(values_files or [])]
    if chart and os.path.isdir(chart):
        sources.append(os.path.join(chart, "values.yaml"))
    for finding in findings:
        if finding.file in rendered:
            finding.file, finding.line, finding.column = _template_position(
                finding.file, finding.line, finding.column, rendered, sources)
        finding.related = [_moved(location, rendered, sources) for location in finding.related]


def _moved(location, rendered, sources):
    if location.file not in rendered:
        return location
    file, line, column = _template_position(location.file, location.line, location.column, rendered, sources)
    return location.replace(file=file, line=line, column=column)


def _template_position(name: str, line: int, column: int, rendered: dict,
                       sources: list[str]) -> tuple[str, int, int]:
    template, text = rendered[name]
    rendered_lines = text.splitlines()
    wanted = rendered_lines[line - 1].strip() if 0 < line <= len(rendered_lines) else ""
    lines = _lines(template)
    found = _find(lines, wanted)
    if found is not None:
        return template, found + 1, len(lines[found]) - len(lines[found].lstrip()) + 1
    return _copied_from(text, line, column, sources) or (template, 1, 1)


def _copied_from(text: str, line: int, column: int, values_files: list[str]) -> tuple[str, int, int] | None:
    """Where a values file holds the collection a template copied whole (with toYaml) around the rendered
    node at (line, column): the smallest enclosing collection that one place of all the values files holds,
    under a key of the same name (a collection found in several places is looked for one level up). None
    when none is found in one place only."""
    for document in _rendered_documents(text):
        at = [path for path, place in document.places().items() if place == (line, column)]
        if at:
            path = max(at, key=len)
            break
    else:
        return None
    sources = [(file, source) for file in values_files if (source := _values_document(file)) is not None]
    for depth in range(len(path), 0, -1):
        copied = _value_at(document.value, path[:depth])
        if not isinstance(copied, (dict, list)) or not copied:
            continue
        name = _last_key(path[:depth])
        matches = [(file, source, where) for file, source in sources for where in source.places()
                   if _last_key(where) == name and _value_at(source.value, where) == copied]
        if len(matches) == 1:
            file, source, where = matches[0]
            found_line, found_column = source.position(where + path[depth:])
            return file, found_line, found_column
    return None


@functools.lru_cache(maxsize=16)
def _rendered_documents(text: str) -> tuple:
    """A rendered template's documents, read once however many of its findings are placed."""
    from dgdlint.load import load_text

    return tuple(load_text("rendered", text).documents)


@functools.lru_cache(maxsize=16)
def _values_document(path: str):
    from dgdlint.load import UsageError, load_paths

    try:
        documents = load_paths([path]).documents
    except (UsageError, OSError):  # a values file that cannot be read is no source to point at
        return None
    return documents[0] if documents else None


def _value_at(value: object, path: tuple) -> object:
    for part in path:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
            value = value[part]
        else:
            return None
    return value


def _last_key(path: tuple) -> str | None:
    return next((part for part in reversed(path) if isinstance(part, str)), None)


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
