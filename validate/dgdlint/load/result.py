"""What the loader gives: the documents of a set of files, each value with the file, line and column of
every node, and the findings about what could not be read."""

from __future__ import annotations

import marshal
import re
from collections.abc import Iterable

from dgdlint.findings import Finding


class Document:
    """One YAML document: its value and the position of every node in it. A document the quick reader read
    (load.fast) has no positions: they are read from its `source` text when first asked for (the line and
    column of the document too), as they are for a few of the documents of a large set only: those with a
    finding."""

    __slots__ = ("file", "index", "value", "_line", "_column", "positions", "has_null", "whole_floats", "marks",
                 "keys", "packed", "source")

    def __init__(self, file: str, index: int, value: object, line: int | None = None, column: int | None = None,
                 positions: dict[tuple, tuple[int, int]] | None = None, has_null: bool = True,
                 whole_floats: bool = True, marks: bool = True, keys: frozenset | None = None,
                 packed: bytes | None = None, source: str | None = None):
        self.file = file
        self.index = index  # 0-based position in the file's stream
        self.value = value
        self._line = line  # 1-based line where the document's content starts (None: read from `source`)
        self._column = column
        self.positions = positions if positions is not None or packed is not None or source is not None else {}
        self.has_null = has_null  # whether any value in it is null (the loader knows; True when unknown)
        self.whole_floats = whole_floats  # whether it holds a float without a fraction or an int past int64 (idem)
        self.marks = marks  # whether a string in it may hold `<`, `${` or `{{` (False: its file's text has none)
        self.keys = keys  # every mapping key written in it (None: unknown, any key may be there)
        self.packed = packed  # the positions as a worker process sent them (load.workers), read when asked for
        self.source = source  # the text of its file, where its positions are still to be read

    def __repr__(self) -> str:
        return f"Document({self.file!r}, {self.index}, {self.value!r})"

    @property
    def line(self) -> int:
        if self._line is None:
            self._read_positions()
        return self._line

    @property
    def column(self) -> int:
        if self._column is None:
            self._read_positions()
        return self._column

    def places(self) -> dict[tuple, tuple[int, int]]:
        """{path: (line, column)} of every node."""
        if self.positions is None:
            if self.source is not None:
                self._read_positions()
            else:
                self.positions = marshal.loads(self.packed or marshal.dumps({}))
                self.packed = None
        return self.positions

    def _read_positions(self) -> None:
        """The positions of a document with a `source` (load.files.QuickDocument reads them); none here."""
        self.positions, self._line, self._column, self.source = {}, 1, 1, None

    def position(self, path: tuple) -> tuple[int, int]:
        """Line and column of the node at `path`, or of its nearest ancestor that exists."""
        positions = self.places()
        while True:
            found = positions.get(path)
            if found is not None:
                return found
            if not path:
                return self.line, self.column
            path = path[:-1]


class LoadResult:
    """The documents read from a set of files, the findings about what could not be read, and the files.
    (A plain class, as findings.Finding is: imported before the reading workers start.)"""

    def __init__(self, documents: list[Document] | None = None, findings: list[Finding] | None = None,
                 files: list[str] | None = None, template_syntax: set[str] | None = None,
                 manifest_like: set[str] | None = None):
        self.documents = [] if documents is None else documents
        self.findings = [] if findings is None else findings
        self.files = [] if files is None else files
        self.template_syntax = set() if template_syntax is None else template_syntax  # files with Helm's `{{`
        self.manifest_like = set() if manifest_like is None else manifest_like  # files that say apiVersion, kind

    def __repr__(self) -> str:
        return (f"LoadResult({len(self.documents)} documents, {len(self.findings)} findings, "
                f"{len(self.files)} files)")

    def extend(self, other: LoadResult) -> None:
        """Add what `other` loaded after what this one has (as if its files came next)."""
        self.documents += other.documents
        self.findings += other.findings
        self.files += other.files
        self.template_syntax |= other.template_syntax
        self.manifest_like |= other.manifest_like


def parse_finding(file: str, line: int, column: int, message: str, remediation: str = "",
                  rule: str = "yaml-syntax", path: str = "") -> Finding:
    return Finding(rule=rule, severity="error", stage="parse", file=file, line=line, column=column,
                   path=path, message=message, remediation=remediation)


def format_path(path: Iterable) -> str:
    """`('spec', 'services', 'W', 'envs', 3, 'value')` -> `spec.services.W.envs[3].value`."""
    out = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        else:
            text = str(part)
            if out and (not re.fullmatch(r"[A-Za-z0-9_-]+", text)):
                out.append(f"[{text!r}]" if "." in text or " " in text or "[" in text else f".{text}")
            else:
                out.append(f".{text}" if out else text)
    return "".join(out)
