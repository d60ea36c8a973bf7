"""The text side of an edit: a file cut into its YAML documents (separators kept verbatim) and, for each
document, where its comments are, read from libyaml's event marks so that a `#` inside a block scalar or a
quoted string is never taken for a comment."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

try:  # the same C parser the loader uses
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader

_SEPARATOR = re.compile(r"^(---|\.\.\.)[ \t]*(#.*)?$")
_BLOCK_HEADER = re.compile(r"[|>][0-9+-]*")
_BETWEEN_VALUE_AND_COMMENT = re.compile(r"[\s:\-,\[\]{}]*")
_CORE = "tag:yaml.org,2002:"
# The explicit tags an edit keeps: the non-specific `!` and the core schema's own types, each on its kind of node.
_KEPT_TAGS = {yaml.ScalarEvent: {"!", *(_CORE + name for name in ("str", "int", "float", "bool", "null"))},
              yaml.MappingStartEvent: {"!", _CORE + "map"}, yaml.SequenceStartEvent: {"!", _CORE + "seq"}}


class EditError(Exception):
    """A file that cannot be edited safely; nothing of it is written."""

    def __init__(self, file: str, line: int, message: str):
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.message = message


@dataclass
class Chunk:
    """One document's text: `separator` (its `---` line, or "") then `body`; `start` is the body's first line
    (0-based) in the file."""

    separator: str
    body: str
    start: int


@dataclass
class CommentLayout:
    """Where a document's comments are: full-line comment and blank lines, and end-of-line comments."""

    full_lines: set[int] = field(default_factory=set)  # 0-based lines that are only a comment (or blank)
    eol: dict[int, tuple[int, str]] = field(default_factory=dict)  # line -> (column of '#', comment text)
    anchors: list[int] = field(default_factory=list)  # lines with an anchor or an alias
    directives: bool = False
    unusual: list[tuple[int, str]] = field(default_factory=list)  # (line, what) the round trip cannot keep


def split_chunks(text: str) -> list[Chunk]:
    """The file's documents, cut at `---`/`...` lines; the separator lines stay with the document they open."""
    chunks: list[Chunk] = []
    separator: list[str] = []
    body: list[str] = []
    start = 0
    lines = text.splitlines(keepends=True)
    for number, line in enumerate(lines):
        if _SEPARATOR.match(line.rstrip("\r\n")):
            if body or chunks or separator:
                if body:
                    chunks.append(Chunk("".join(separator), "".join(body), start))
                    separator, body = [], []
            separator.append(line)
            start = number + 1
            continue
        if not body:
            start = number
        body.append(line)
    if body or separator:
        chunks.append(Chunk("".join(separator), "".join(body), start))
    return chunks


def _shown(tag: str) -> str:
    shown = "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag
    return shown if len(shown) <= 40 else shown[:39] + "…"


def _note_unusual(event, open_collections: list[list], layout: CommentLayout) -> None:
    """Record what an edit cannot keep as written: a merge key (`<<`), a key that is a mapping or a list, and a
    tag outside the core schema (`!!omap`, `!!pairs`, `!!set`, `!!binary`, a local `!tag`) or on the wrong kind
    of node (`!!str {a: 1}`). Each collection's nodes are counted, so that a mapping's even ones are its keys."""
    node = isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent))
    is_key = node and bool(open_collections) and open_collections[-1][0] and open_collections[-1][1] % 2 == 0
    line = event.start_mark.line
    tag = getattr(event, "tag", None)
    if tag is not None and tag not in _KEPT_TAGS.get(type(event), ()):
        layout.unusual.append((line, f"a value tagged {_shown(tag)}"))
    elif is_key and isinstance(event, yaml.ScalarEvent) and event.value == "<<" and event.style in (None, ""):
        layout.unusual.append((line, "a YAML merge key (<<)"))
    elif is_key and isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
        layout.unusual.append((line, "a key that is a mapping or a list"))
    if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
        open_collections.append([isinstance(event, yaml.MappingStartEvent), 0])
    elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
        open_collections.pop()
    if open_collections and (isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent, yaml.MappingEndEvent,
                                                yaml.SequenceEndEvent))):
        open_collections[-1][1] += 1


def comment_layout(file: str, chunk: Chunk) -> CommentLayout:
    """Read `chunk.body`'s events; a YAML error is an EditError at its line in the file."""
    layout = CommentLayout()
    lines = chunk.body.splitlines()
    content: set[int] = set()  # lines inside a multi-line scalar: a `#` there is text
    ends: dict[int, int] = {}  # line -> column where its last value ends
    open_collections: list[list] = []  # [is a mapping, nodes read so far] of each collection being read
    try:
        for event in yaml.parse(chunk.body, Loader=_Loader):
            start, end = event.start_mark, event.end_mark
            _note_unusual(event, open_collections, layout)
            if getattr(event, "anchor", None):
                layout.anchors.append(start.line)
            if isinstance(event, yaml.DocumentStartEvent) and (event.version or event.tags):
                layout.directives = True
            if isinstance(event, yaml.ScalarEvent):
                last = end.line - 1 if end.column == 0 and end.line > start.line else end.line
                content.update(range(start.line + 1, last + 1))
                if event.style in ("|", ">"):
                    header = _BLOCK_HEADER.match(lines[start.line], start.column)
                    ends[start.line] = max(ends.get(start.line, 0), header.end() if header else start.column + 1)
                    continue
            if isinstance(event, (yaml.StreamEndEvent, yaml.DocumentEndEvent, yaml.MappingEndEvent,
                                  yaml.SequenceEndEvent)) and end.column == 0:
                continue
            if not isinstance(event, (yaml.StreamStartEvent, yaml.DocumentStartEvent)):
                ends[end.line] = max(ends.get(end.line, 0), end.column)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = chunk.start + (mark.line if mark else 0) + 1
        raise EditError(file, line, f"not valid YAML ({error.problem or error.context})") from None
    except yaml.YAMLError as error:
        raise EditError(file, chunk.start + 1, f"not valid YAML ({error})") from None
    for number, line in enumerate(lines):
        if number in content:
            continue
        stripped = line.strip()
        if number not in ends and (not stripped or stripped.startswith("#")):
            layout.full_lines.add(number)
            continue
        if number in ends:
            gap = _BETWEEN_VALUE_AND_COMMENT.match(line, ends[number])
            if gap.end() < len(line) and line[gap.end()] == "#" and (gap.end() == 0 or line[gap.end() - 1] in " \t"):
                layout.eol[number] = (gap.end(), line[gap.end():].rstrip())
        if "\t" in line[:len(line) - len(line.lstrip())]:
            raise EditError(file, chunk.start + number + 1, "a tab in the indentation")
    return layout
