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

    def drop(self, container, key, message: str, severity: str = "warning",
             code: str = "convert-field-dropped") -> None:
        """A field with no place in the target version: said, never silent. Its comments (and those inside its
        value) wait in `orphans` for `rehome`, so that none is lost with it."""
        self.note(severity, code, container, key, message)
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


def is_true(value) -> bool:
    """Whether the operator reads `value` as true: YAML's true, or a plain word Kubernetes' YAML reader (YAML
    1.1 booleans, as the loader resolves them) takes for true (`yes`, `on`, `y`), which the round trip's YAML 1.2
    reader leaves a string. A quoted or tagged string stays a string."""
    if value is True:
        return True
    if type(value) is not str:  # a quoted string is a subclass that keeps its quotes; `!!str` a TaggedScalar
        return False
    from dgdlint.load.resolve import BOOL, resolve_plain

    return resolve_plain(value) == (BOOL, True)


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


LOST_EXAMPLES = {"v1beta1": "experimental.grove.forceScalingGroup, the order of the containers",
                 "v1alpha1": "spec.pvcs, dynamoNamespace, ingress"}  # what a record holds, by the version it adds
PRIVATE_ANNOTATIONS = ("nvidia.com/dgd-spec", "nvidia.com/dgd-status")  # the operator's conversion records


def drop_private_annotations(ctx: Context, root: CommentedMap, target: str) -> None:
    """A graph read back from a cluster carries the operator's private conversion records: what the other
    version holds that this one cannot (dgd-spec) and its status (dgd-status). The operator's ConvertTo and
    ConvertFrom read them, restore those fields and scrub them (scrubDGDInternalAnnotations); dgdlint cannot
    restore them, so it leaves them out as the operator does and says what may be missing.

    A record's own comments (the one at the end of its line, the comment lines right above it) go with it, and a
    warning says so; comment lines above it that a blank line parts from it are about what comes before, and
    stay where they were (above the next key)."""
    metadata = as_map(root.get("metadata"))
    annotations = as_map(metadata.get("annotations")) if metadata is not None else None
    if annotations is None:
        return
    for key in PRIVATE_ANNOTATIONS:
        if key not in annotations:
            continue
        if key.endswith("spec"):
            message = (f"metadata.annotations {key} is the operator's private record of the {target} fields this "
                       "graph cannot hold (it was read from a cluster). The operator restores them when it "
                       "converts; dgdlint cannot, and leaves the record out as the operator does, so such fields "
                       f"({LOST_EXAMPLES[target]}) may be missing: take the graph as the cluster serves it in "
                       f"{target} (kubectl get dynamographdeployments.{target}.nvidia.com NAME -o yaml) or compare "
                       "with it")
        else:
            message = (f"metadata.annotations {key} is the operator's private record of status; it is left out, as "
                       "the operator leaves it out when it converts")
        ctx.note("warning" if key.endswith("spec") else "info", "convert-private-annotation", annotations, key,
                 message)
        _remove_with_comments(ctx, [(annotations, key), (metadata, "annotations"), (root, "metadata")])
    if not annotations:  # emptied: left out too, its own comments with it
        _remove_with_comments(ctx, [(metadata, "annotations"), (root, "metadata")])


def _remove_with_comments(ctx: Context, path: list[tuple[CommentedMap, str]]) -> None:
    """Take the key `path[0]` out of its mapping. Its comments go too (kept in the table under a key no mapping
    has, so that the run says they were dropped), but for the comment lines above it that a blank line parts
    from it: those go above the next key, in that mapping or, when it was the last, in the mappings around it
    (`path[1:]`, each a mapping and its key holding the one before), at the column they were written at."""
    container, key = path[0]
    attached = ctx.table.pop(container, key)
    if attached is not None:
        blanks = [n for n, (_offset, text) in enumerate(attached.above) if not text]
        cut = blanks[-1] + 1 if blanks else 0
        kept, own = attached.above[:cut], attached.above[cut:]
        if own or attached.eol:
            ctx.table.put(container, ("deleted", key), Attached(own, attached.eol, attached.eol_gap, attached.line))
        if any(text for _offset, text in kept):
            _put_after(ctx, path, kept)
    del container[key]


def _column(container, key) -> int | None:
    position = getattr(getattr(container, "lc", None), "data", {}).get(key)
    return position[1] if position else None


def _put_after(ctx: Context, path: list[tuple[CommentedMap, str]], lines: list[tuple[int, str]]) -> None:
    """Comment lines that stood right after the key `path[0]` (relative to its column) above the key that now
    follows it; with none after it, kept as dropped comments (the run says so), never lost without a word."""
    base = _column(*path[0])
    for container, key in path:
        keys = list(container.keys())
        after = keys[keys.index(key) + 1:] if key in keys else []
        following = after[0] if after else None
        column = _column(container, following) if following is not None else None
        if following is not None and column is not None and base is not None:
            moved = [(offset + base - column, text) for offset, text in lines]
            existing = ctx.table.pop(container, following) or Attached(line=container.lc.data[following][0])
            ctx.table.put(container, following, Attached(moved + existing.above, existing.eol, existing.eol_gap,
                                                         existing.line))
            return
    container, key = path[0]
    ctx.table.put(container, ("deleted", "after", key), Attached(lines, line=container.lc.data[key][0]))
