"""What the conversions share: the names both API versions agree on, and the context an edit reports through
(notes with their file lines, and the comment table that follows moved keys)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dgdlint.edit.comments import Attached, CommentTable
from dgdlint.edit.notes import Note, line_of

MAIN = "main"
FRONTEND_SIDECAR = "sidecar-frontend"
DEFAULT_GPU = "nvidia.com/gpu"
PROMOTED_SUBTYPES = ("prefill", "decode")
GMS_MODES = {"intraPod": "IntraPod", "interPod": "InterPod"}  # v1alpha1 -> v1beta1 spelling of a GMS mode


@dataclass
class Context:
    file: str
    start: int  # 0-based first line of the document body in the file
    table: CommentTable
    notes: list[Note] = field(default_factory=list)
    orphans: list[Attached] = field(default_factory=list)  # comments of dropped fields, waiting for a new home

    def note(self, severity: str, code: str, container, key, message: str) -> None:
        self.notes.append(Note(self.file, line_of(container, key, self.start), severity, code, message))

    def drop(self, container, key, message: str, severity: str = "warning") -> None:
        """A field with no place in the target version: said, never silent. Its comments (and those inside its
        value) wait in `orphans` for `rehome`, so that none is lost with it."""
        self.note(severity, "convert-field-dropped", container, key, message)
        try:
            value = container[key]
        except (KeyError, IndexError, TypeError):
            value = None
        for attached in [self.table.pop(container, key), *self.table.pop_under(value)]:
            if attached is not None and (attached.above or attached.eol):
                self.orphans.append(attached)

    def rehome(self, container, key) -> None:
        """Put the comments of dropped fields above `key` of `container` (the component they belonged to)."""
        if not self.orphans:
            return
        lines = []
        for attached in self.orphans:
            lines += [(max(offset, 0), text) for offset, text in attached.above]
            if attached.eol:
                lines.append((0, attached.eol[1]))
        self.orphans = []
        self.table.put(container, key, Attached(above=lines))


def as_map(value) -> CommentedMap | None:
    return value if isinstance(value, CommentedMap) else None


def as_seq(value) -> CommentedSeq | None:
    return value if isinstance(value, CommentedSeq) else None


def rename_mode(holder: CommentedMap, spellings: dict[str, str]) -> None:
    """The GPU memory service and failover `mode` are spelled differently in the two versions."""
    old = holder.get("mode")
    if isinstance(old, str) and old in spellings:
        holder["mode"] = type(old)(spellings[old]) if type(old) is not str else spellings[old]


def set_api_version(root: CommentedMap, version: str) -> None:
    """The graph's apiVersion, in the quoting it was written with."""
    old = root["apiVersion"]
    new = f"nvidia.com/{version}"
    root["apiVersion"] = type(old)(new) if isinstance(old, str) and type(old) is not str else new


def rename_key(spec: CommentedMap, old: str, new: str, value, ctx: Context) -> None:
    """`old` becomes `new` (with `value`) at the same place in the mapping, its comments with it."""
    position = list(spec.keys()).index(old)
    del spec[old]
    spec.insert(position, new, value)
    ctx.table.move(spec, old, spec, new)
