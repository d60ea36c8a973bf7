"""What the conversions share: the names both API versions agree on, and the context an edit reports through
(notes with their file lines, and the comment table that follows moved keys)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dgdlint.edit.comments import CommentTable
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

    def note(self, severity: str, code: str, container, key, message: str) -> None:
        self.notes.append(Note(self.file, line_of(container, key, self.start), severity, code, message))

    def drop(self, container, key, message: str, severity: str = "warning") -> None:
        """A field with no place in the target version: said, never silent. Its comments go with it."""
        self.note(severity, "convert-field-dropped", container, key, message)
        self.table.pop(container, key)


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
