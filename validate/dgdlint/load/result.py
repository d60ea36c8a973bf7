"""What the loader gives: the documents of a set of files, each value with the file, line and column of
every node, and the findings about what could not be read."""

from __future__ import annotations

import marshal
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from dgdlint.findings import Finding


@dataclass
class Document:
    """One YAML document: its value and the position of every node in it."""

    file: str
    index: int  # 0-based position in the file's stream
    value: object
    line: int  # 1-based line where the document's content starts
    column: int
    positions: dict[tuple, tuple[int, int]] | None = field(default_factory=dict)  # None: `packed` holds them
    has_null: bool = True  # whether any value in it is null (the loader knows; True when unknown)
    whole_floats: bool = True  # whether it holds a float without a fraction or an int past int64 (idem)
    marks: bool = True  # whether a string in it may hold `<`, `${` or `{{` (False: its file's text has none; idem)
    keys: frozenset | None = None  # every mapping key written in it (None: unknown, any key may be there)
    packed: bytes | None = None  # the positions as a worker process sent them (load.workers), read when asked for

    def places(self) -> dict[tuple, tuple[int, int]]:
        """{path: (line, column)} of every node."""
        if self.positions is None:
            self.positions = marshal.loads(self.packed or marshal.dumps({}))
            self.packed = None
        return self.positions

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


@dataclass
class LoadResult:
    """The documents read from a set of files, the findings about what could not be read, and the files."""

    documents: list[Document] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    template_syntax: set[str] = field(default_factory=set)  # files whose text has Helm's `{{`
    manifest_like: set[str] = field(default_factory=set)  # files whose text says apiVersion and kind

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
