"""Round-trip I/O: a file's documents as ruamel.yaml trees to edit, written back so that every line the
edit did not change is the original line, byte for byte.

A changed document is dumped twice by ruamel (before and after the edit); the lines that differ between the
two dumps replace the matching original lines, re-indented to the original's indentation. The result must
read back as the edited tree, with every comment still there; otherwise the file is refused."""

from __future__ import annotations

import io
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import ConstructorError, RoundTripConstructor
from ruamel.yaml.emitter import RoundTripEmitter
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import ScalarNode

from dgdlint.edit.comments import CommentTable, Indent, attach_comments, take_comments
from dgdlint.edit.source import Chunk, EditError, comment_layout, split_chunks
from dgdlint.edit.transplant import Unkept, original_line, transplant

_BREAK = re.compile(r"\r\n|\r|\n")


class UnreadableValue(ConstructorError):
    """A scalar ruamel cannot turn into its type (`!!int abc`, `!!bool maybe`, an integer of thousands of
    digits); the message says which kind, never the value (it could be a secret)."""


class _Constructor(RoundTripConstructor):
    """ruamel's round-trip constructor, with a value it cannot build reported as a YAML error at its line
    (ruamel raises ValueError, KeyError or IndexError there, which no caller could tell from a bug)."""

    def construct_non_recursive_object(self, node, tag=None):
        try:
            return super().construct_non_recursive_object(node, tag)
        except (ArithmeticError, LookupError, TypeError, ValueError):
            raise UnreadableValue(None, None, _unreadable(node), node.start_mark) from None


class _Emitter(RoundTripEmitter):
    """ruamel's round-trip emitter, but for a null item of a block list: ruamel pads the line after its dash to
    where the item's content would start (`- `), and so wrote a trailing space, or put an end-of-line comment
    one column further than the file has it (`- # note` came out `-  # note`). The dash ends the line, or the
    comment follows it as far as it did."""

    def process_scalar(self) -> None:
        if self.sequence_context and not self.flow_level and self.event.value == "":
            if self.analysis is None:
                self.analysis = self.analyze_scalar(self.event.value)
            if self.style is None:
                self.style = self.choose_scalar_style()
            if not self.style:  # plain: nothing is written after the dash
                self.sequence_context = False  # no padding
                self.indention = False  # the next item starts a line of its own, as after a value
        super().process_scalar()


def _unreadable(node) -> str:
    kind = str(node.tag).rsplit(":", 1)[-1] if isinstance(node, ScalarNode) else ""
    digits = len(node.value.strip("+-").replace("_", "")) if isinstance(node, ScalarNode) else 0
    if kind == "int" and digits > sys.get_int_max_str_digits() > 0:
        return f"an integer of {digits} digits, too long for the round trip to read (quote it if it is text)"
    wanted = {"int": "an integer", "float": "a number", "bool": "true or false", "null": "null"}.get(kind)
    return f"the value tagged !!{kind} is not {wanted}" if wanted else "a value that cannot be read as its type"


def make_yaml(indent: Indent | None = None) -> YAML:
    yaml = YAML(typ="rt")
    yaml.Constructor = _Constructor
    yaml.Emitter = _Emitter
    yaml.preserve_quotes = True
    yaml.width = 1 << 20  # never fold a long line the user wrote on one
    indent = indent or Indent()
    yaml.indent(mapping=indent.mapping, sequence=indent.sequence, offset=indent.offset)
    return yaml


def plain(node):
    """The data of a tree, without ruamel's formatting (for comparing two trees)."""
    if isinstance(node, dict):
        return {str(key): plain(value) for key, value in node.items()}
    if isinstance(node, list):
        return [plain(item) for item in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, (int, float)):
        return node
    return str(node)


def _error_line(text: str) -> int | None:
    """0-based line of the YAML error that stops `text` from reading (None: it reads)."""
    try:
        make_yaml().load(text)
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        return mark.line if mark else 0
    return None


def _detect_indent(root, lines: list[str]) -> Indent:
    mapping, sequence, offset = Counter(), Counter(), Counter()
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, CommentedMap):
            for key, value in node.items():
                position = node.lc.data.get(key)
                if position is None:
                    continue
                if isinstance(value, CommentedMap) and value and not value.fa.flow_style():
                    first = next(iter(value.lc.data.values()), None)
                    if first and first[0] > position[0]:
                        mapping[first[1] - position[1]] += 1
                elif isinstance(value, CommentedSeq) and value and not value.fa.flow_style():
                    first = value.lc.data.get(0)
                    if first and first[0] > position[0]:
                        sequence[first[1] - position[1]] += 1
                        before = lines[first[0]][:first[1]].rstrip()
                        dash = len(before) - 1 if before.endswith("-") else first[1] - 2
                        offset[dash - position[1]] += 1
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    found = Indent()
    if mapping:
        found.mapping = mapping.most_common(1)[0][0]
    if sequence:
        found.sequence = sequence.most_common(1)[0][0]
        found.offset = max(0, min(offset.most_common(1)[0][0], found.sequence - 2))
    return found


@dataclass
class EditableDocument:
    file: str
    chunk: Chunk
    root: object
    table: CommentTable
    indent: Indent
    anchors: list[int]
    refusal: tuple[int, str] | None = None  # (0-based line, why) when the round trip cannot keep this document
    base: str = ""  # ruamel's dump before any edit
    changed: bool = False
    followers: list[str] = field(default_factory=list)  # documents an edit adds after this one (YAML text)

    def dump(self) -> str:
        attach_comments(self.root, self.table, self.indent)
        stream = io.StringIO()
        make_yaml(self.indent).dump(self.root, stream)
        return stream.getvalue() + "".join(self.table.trailer)

    def render(self) -> str:
        text = self._render_own()
        for follower in self.followers:
            text += ("" if text.endswith("\n") else "\n") + "---\n" + follower
        return text

    def _render_own(self) -> str:
        if not self.changed:
            return self.chunk.separator + self.chunk.body
        if self.refusal is not None:
            raise EditError(self.file, self.chunk.start + self.refusal[0] + 1, self.refusal[1])
        if self.anchors:
            raise EditError(self.file, self.chunk.start + self.anchors[0] + 1,
                            "YAML anchors or aliases in a document the edit changes; the edit could break "
                            "what they share (write the values out)")
        new = self.dump()
        try:
            body = transplant(self.chunk.body, self.base, new)
            if not self._same(body):  # a change made inside a line written its own way: the changed lines anew
                body = transplant(self.chunk.body, self.base, new, within=False)
        except Unkept as unkept:  # never the whole document written anew: the user's text stays, or nothing
            raise EditError(self.file, self.chunk.start + unkept.line + 1,
                            "the edit changes lines here that the round trip cannot pair with the file's own "
                            "writing of them (a key or a value over several lines that it writes another way, "
                            "such as a key after `?` over several lines); the document written anew would "
                            "reformat lines the edit does not change (write it on one line)") from None
        if not self._same(body):  # the changed lines do not fit where they go: refused, never rewritten whole
            raise EditError(self.file, self.chunk.start + original_line(self.chunk.body, body, _error_line(body)) + 1,
                            "the edit's lines here, fitted into the file's own indentation, do not read back as "
                            "the edit; the document written anew would reformat lines the edit does not change "
                            "(indent this part as the rest of the file is)")
        return self.chunk.separator + body

    def _same(self, body: str) -> bool:
        try:
            reread = make_yaml().load(body)
        except YAMLError:
            return False
        if plain(reread) != plain(self.root):
            return False
        layout = comment_layout(self.file, Chunk("", body, self.chunk.start))
        lines = body.splitlines()
        found = Counter(lines[n].strip() for n in layout.full_lines if lines[n].strip())
        found.update(text for _, text in layout.eol.values())
        return found == Counter(self.table.texts(self.root))


@dataclass
class EditableFile:
    path: str
    text: str
    chunks: list[Chunk]
    documents: list[EditableDocument | None]  # None: a chunk without a document (comments only)
    bom: str = ""  # a byte-order mark the file starts with, put back on write
    endings: list[str] = field(default_factory=list)  # each line's break as written ("\r\n", "\r", "\n")

    def render(self) -> str:
        parts = []
        for chunk, document in zip(self.chunks, self.documents, strict=True):
            parts.append(document.render() if document is not None else chunk.separator + chunk.body)
        return self.bom + _with_endings("".join(c.separator + c.body for c in self.chunks), self.endings,
                                        "".join(parts))

    @property
    def changed(self) -> bool:
        return any(d is not None and (d.changed or d.followers) for d in self.documents)


def open_text(path: str, text: str) -> EditableFile:
    """Parse every document of `text` for editing; an EditError names the line that stops it."""
    from dgdlint.load import LoadResult, load_text

    checked = load_text(path, text, LoadResult())
    errors = [f for f in checked.findings if f.severity == "error"]
    if errors:
        raise EditError(path, errors[0].line, errors[0].message)
    original = text
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    endings = _BREAK.findall(text, len(bom))
    text = _BREAK.sub("\n", text[len(bom):])  # a break is a break to YAML, whichever it is
    chunks = split_chunks(text)
    documents: list[EditableDocument | None] = []
    for chunk in chunks:
        layout = comment_layout(path, chunk)
        if layout.directives:
            raise EditError(path, chunk.start + 1, "YAML directives (%YAML, %TAG) are not kept by the round trip")
        try:
            root = make_yaml().load(chunk.body)
        except YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            line = mark.line if mark else 0
            tagged = next((what for at, what in layout.unusual if at == line), None)
            why = error.problem if isinstance(error, UnreadableValue) else \
                f"{tagged} that cannot be read as one" if tagged else "not valid YAML"
            raise EditError(path, chunk.start + line + 1, why) from None
        if root is None:
            documents.append(None)
            continue
        if layout.unusual:  # kept as written; an edit that changes this document is refused
            line, what = layout.unusual[0]
            documents.append(EditableDocument(path, chunk, root, CommentTable(), Indent(), layout.anchors, (
                line, f"{what} in a document the edit changes, which the round trip cannot keep safely (write it "
                      "out as plain mappings, lists and values)")))
            continue
        indent = _detect_indent(root, chunk.body.splitlines())
        table = take_comments(root, chunk.body, layout)
        document = EditableDocument(path, chunk, root, table, indent, layout.anchors)
        if table.unplaced:
            document.refusal = (table.unplaced[0], "a comment inside a flow collection ([...] or {...}), which "
                                                   "the round trip cannot keep in place")
        document.base = document.dump()
        documents.append(document)
    return EditableFile(path, original, chunks, documents, bom, endings)


def _with_endings(before: str, endings: list[str], after: str) -> str:
    """`after` (the edited text, its lines ending in "\n") with the line breaks of the file it was `before`: a
    line the edit kept ends as it did (a file mixing Windows and Unix lines stays mixed), a new line as most of
    the file's lines do."""
    kinds = Counter(endings)
    if len(kinds) <= 1:
        return after.replace("\n", endings[0]) if endings and endings[0] != "\n" else after
    usual = kinds.most_common(1)[0][0]
    old, new = before.split("\n"), after.split("\n")
    kept: dict[int, str] = {}
    for tag, i1, i2, j1, _j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            kept.update((j1 + k, endings[i1 + k]) for k in range(i2 - i1) if i1 + k < len(endings))
    return "".join(line + kept.get(number, usual) for number, line in enumerate(new[:-1])) + new[-1]
