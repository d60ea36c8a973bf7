"""Comments as edits see them: each belongs to a key of a mapping or an item of a sequence (the comment lines
just above it, and the comment at the end of its line). They are taken out of ruamel.yaml's own storage
into a table keyed by (container, key), follow their key when an edit moves or renames it, and are put
back at the key's new indentation when the document is written."""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from ruamel.yaml.comments import Comment, CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark
from ruamel.yaml.tokens import CommentToken

from dgdlint.edit.source import CommentLayout


@dataclass
class Attached:
    """The comments of one key or item: lines above it as (column, text) ("" for a blank line), the comment
    at the end of its line as (column, text), both relative to the key's own column."""

    above: list[tuple[int, str]] = field(default_factory=list)
    eol: tuple[int, str] | None = None
    eol_gap: int = 1  # spaces between the end of the line's content and the end-of-line comment
    line: int = 0  # 0-based line of the key in the original document, for messages


@dataclass
class Indent:
    mapping: int = 2
    sequence: int = 2  # column of an item's content, from its parent key
    offset: int = 0  # column of the dash, from its parent key


class CommentTable:
    def __init__(self) -> None:
        self._entries: dict[tuple[int, object], Attached] = {}
        self._pinned: dict[int, object] = {}  # keeps keyed containers alive so ids stay unique
        self.trailer: list[str] = []  # comment lines after the document's last value
        self.unplaced: list[int] = []  # comment lines with no key to belong to (inside flow collections)

    def get(self, container, key) -> Attached | None:
        return self._entries.get((id(container), key))

    def pop(self, container, key) -> Attached | None:
        return self._entries.pop((id(container), key), None)

    def put(self, container, key, attached: Attached | None) -> None:
        if attached is None:
            return
        self._pinned[id(container)] = container
        existing = self._entries.get((id(container), key))
        if existing is not None:  # two keys' comments land on one key: keep them all, in order
            above = existing.above + attached.above
            if existing.eol and attached.eol:  # one end of line for two comments: the second goes above
                above.append((0, attached.eol[1]))
            eol, gap = (existing.eol, existing.eol_gap) if existing.eol else (attached.eol, attached.eol_gap)
            attached = Attached(above, eol, gap, existing.line)
        self._entries[(id(container), key)] = attached

    def pop_under(self, value) -> list[Attached]:
        """Take the comments of every key and item inside `value` out of the table."""
        taken = []
        for container in _containers(value) if isinstance(value, (dict, list)) else []:
            keys = list(container.keys()) if isinstance(container, dict) else range(len(container))
            taken += [found for found in (self.pop(container, key) for key in keys) if found is not None]
        return taken

    def move(self, source, key, target, new_key=None) -> None:
        self.put(target, key if new_key is None else new_key, self.pop(source, key))

    def texts(self, root) -> list[str]:
        """Every comment text of a key still in the document under `root` (what the written text must hold)."""
        alive = _alive(root)
        entries = [attached for key, attached in self._entries.items() if key in alive]
        out = [text for attached in entries for _, text in attached.above if text]
        out += [attached.eol[1] for attached in entries if attached.eol]
        return out + [line.strip() for line in self.trailer if line.strip()]

    def lost_lines(self, root) -> list[int]:
        """0-based original lines of comments whose key is no longer in the document under `root`."""
        alive = _alive(root)
        return sorted(entry.line for key, entry in self._entries.items()
                      if key not in alive and (entry.above or entry.eol))


def _alive(root) -> set:
    alive = set()
    for container in _containers(root):
        keys = container.keys() if isinstance(container, dict) else range(len(container))
        alive.update((id(container), key) for key in keys)
    return alive


def _containers(node):
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            yield node
            stack.extend(node)


def _anchors(root, lines: list[str]):
    """(line, column, is_item, container, key) of every key and item that sits on its own position."""
    out = []
    for container in _containers(root):
        data = getattr(getattr(container, "lc", None), "data", None) or {}
        if isinstance(container, CommentedMap):
            for key, position in data.items():
                out.append((position[0], position[1], False, container, key))
        elif isinstance(container, CommentedSeq):
            for index, position in data.items():
                line, column = position[0], position[1]
                before = lines[line][:column].rstrip() if line < len(lines) else ""
                dash = len(before) - 1 if before.endswith("-") else column
                out.append((line, dash, True, container, index))
    return out


def _is_flow(container) -> bool:
    fa = getattr(container, "fa", None)
    return bool(fa is not None and fa.flow_style())


def take_comments(root, body: str, layout: CommentLayout) -> CommentTable:
    """Move every comment of the document under `root` out of ruamel's storage into a table."""
    table = CommentTable()
    lines = body.splitlines()
    by_line: dict[int, list] = {}
    for anchor in _anchors(root, lines):
        by_line.setdefault(anchor[0], []).append(anchor)
    number = 0
    while number < len(lines):
        if number not in layout.full_lines:
            number += 1
            continue
        block_start = number
        while number < len(lines) and number in layout.full_lines:
            number += 1
        block = lines[block_start:number]
        if number >= len(lines):
            table.trailer = [text + "\n" for text in block]
            continue
        candidates = [a for a in by_line.get(number, []) if not _is_flow(a[3])]
        if not candidates:
            table.unplaced += [block_start + i for i, text in enumerate(block) if text.strip()]
            continue
        line, column, _is_item, container, key = min(candidates, key=lambda a: (a[1], not a[2]))
        above = [(len(text) - len(text.lstrip()) - column, text.strip()) if text.strip() else (0, "")
                 for text in block]
        table.put(container, key, Attached(above=above, line=line))
    for line, (column, text) in layout.eol.items():
        candidates = [a for a in by_line.get(line, []) if not _is_flow(a[3])]
        if not candidates:
            table.unplaced.append(line)
            continue
        anchor_line, anchor_column, _is_item, container, key = max(candidates, key=lambda a: (a[1], not a[2]))
        gap = column - len(lines[line][:column].rstrip())
        existing = table.get(container, key)
        if existing is not None:
            existing.eol, existing.eol_gap = (column - anchor_column, text), gap
        else:
            table.put(container, key, Attached(eol=(column - anchor_column, text), eol_gap=gap, line=anchor_line))
    for container in _containers(root):
        setattr(container, Comment.attrib, Comment())
    return table


def attach_comments(root, table: CommentTable, indent: Indent) -> None:
    """Put the table's comments back into ruamel's storage at the columns the keys are written at."""
    for container in _containers(root):
        setattr(container, Comment.attrib, Comment())
    _attach_mapping(root, table, indent, 0)


def _tokens(attached: Attached, column: int) -> list:
    return [CommentToken(text + "\n", CommentMark(max(column + offset, 0))) if text else
            CommentToken("\n", CommentMark(0)) for offset, text in attached.above]


def _eol(attached: Attached, column: int, content_end: int | None = None):
    """The end-of-line token: as far from the line's content as it was, else where it was relative to its key."""
    if attached.eol is None:
        return None
    offset, text = attached.eol
    where = content_end + attached.eol_gap if content_end is not None else column + offset
    return CommentToken(text + "\n", CommentMark(max(where, 0)))


_MEASURE: list = []  # a ruamel dumper, made once, that writes one scalar to measure it


def _scalar_width(value) -> int | None:
    """Columns a one-line scalar takes as ruamel writes it: its text as written (`0x1F`, `1.50`, `1_000`, the
    quotes it was written with), 0 for a null written as nothing (None: not a one-line scalar)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.scalarstring import FoldedScalarString, LiteralScalarString

    if isinstance(value, (dict, list, LiteralScalarString, FoldedScalarString)) or \
            (isinstance(value, str) and "\n" in value):
        return None
    if not _MEASURE:
        dumper = YAML(typ="rt")
        dumper.width = 1 << 20  # as the round trip writes: never folded
        _MEASURE.append(dumper)
    stream = io.StringIO()
    try:
        _MEASURE[0].dump(CommentedMap([("k", value)]), stream)
    except Exception:  # noqa: BLE001 - a value ruamel cannot write alone is measured by no one
        return None
    lines = stream.getvalue().splitlines()
    return len(lines[0]) - len("k: ") if len(lines) == 1 and lines[0].startswith("k: ") else \
        0 if lines == ["k:"] else None


def _content_end(column: int, prefix: int, value) -> int | None:
    """Column after the written content of a line that starts at `column` with `prefix` columns (key and
    colon, or the dash) and then `value`."""
    if isinstance(value, (dict, list)):
        if not value:
            return column + prefix + 3  # `{}` or `[]`
        return None if _is_flow(value) else column + prefix
    width = _scalar_width(value)
    return None if width is None else column + prefix + (1 + width if width else 0)


def _attach_mapping(node, table: CommentTable, indent: Indent, column: int) -> None:
    if not isinstance(node, CommentedMap) or _is_flow(node):
        return
    for key, value in node.items():
        attached = table.get(node, key)
        if attached is not None:
            end = _content_end(column, (_scalar_width(key) or len(str(key))) + 1, value)
            node.ca.items[key] = [None, _tokens(attached, column) or None, _eol(attached, column, end), None]
        _attach_value(value, table, indent, column)


def _attach_value(value, table: CommentTable, indent: Indent, column: int) -> None:
    if isinstance(value, CommentedMap) and value:
        _attach_mapping(value, table, indent, column + indent.mapping)
    elif isinstance(value, CommentedSeq) and value:
        _attach_sequence(value, table, indent, column + indent.offset, column + indent.sequence)


def _attach_sequence(node, table: CommentTable, indent: Indent, dash: int, content: int) -> None:
    if _is_flow(node):
        return
    for index, item in enumerate(node):
        attached = table.get(node, index)
        if attached is not None:
            end = _content_end(dash, 1, item) if not isinstance(item, (dict, list)) else None
            node.ca.items[index] = [_eol(attached, dash, end), _tokens(attached, dash) or None]
        if isinstance(item, CommentedMap):
            _attach_mapping(item, table, indent, content)
        elif isinstance(item, CommentedSeq) and item:
            _attach_sequence(item, table, indent, content, content + (indent.sequence - indent.offset))
