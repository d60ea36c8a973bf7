"""What the event loop of documents.py hands over for all but its common case: scalars typed as Kubernetes'
YAML reader types them (resolve.py, remembered by their text), mapping keys (typed, aliased, duplicated,
merge keys), merge keys applied as go-yaml v2 applies them, aliases expanded within the node budget, and the
refusal of a whole document (Budget)."""

from __future__ import annotations

import yaml

from dgdlint.load.common import MAX_NODES_PER_DOCUMENT
from dgdlint.load.resolve import Refused, key_text, resolve_plain, resolve_tagged, value_of
from dgdlint.load.result import LoadResult, format_path, parse_finding

PLAIN: dict[str, object] = {}  # a plain scalar's text -> its value: manifests repeat the same few texts
KEYS: dict[str, str] = {}  # a plain key's text -> the key's text as Kubernetes writes it
_CACHE_LIMIT = 65536


def typed(event: yaml.ScalarEvent, cache: dict, finish) -> object:
    """A scalar as a value (`finish` value_of, `cache` PLAIN) or as a key's text (key_text, KEYS); a plain one
    is typed by its text alone, so remembered by its text."""
    tag = event.tag
    if tag is None and event.implicit[0]:
        text = event.value
        try:
            return cache[text]
        except KeyError:
            value = refusing(event, lambda: finish(resolve_plain(text)[1]))
            if len(cache) < _CACHE_LIMIT:
                cache[text] = value
            return value
    if tag is None:
        return event.value  # quoted: text
    return refusing(event, lambda: finish(resolve_tagged(tag, event.value)))


def refusing(event, make):
    """make(), or the document refused at the scalar where its value cannot be taken."""
    try:
        return make()
    except Refused as refused:  # the value itself is not repeated: it may be a secret
        raise Budget(event.start_mark, refused.message, rule="yaml-syntax", remediation=refused.remediation) from None


class Budget(Exception):
    """A document refused as a whole: over a bound (rule yaml-limits), or a tag its value cannot have."""

    def __init__(self, mark, message: str, rule: str = "yaml-limits", remediation: str = "Simplify the document."):
        super().__init__(message)
        self.mark = mark
        self.message = message
        self.rule = rule
        self.remediation = remediation


_COLLECTION_KEY = "a mapping key must be a scalar, not a collection (Kubernetes' YAML reader refuses it)"
_SCALAR_KEY = "Write the key as text."


def take_key(file: str, frame: list, event, kind, result: LoadResult, anchors: dict) -> None:
    if kind is yaml.ScalarEvent:
        key = typed(event, KEYS, key_text)
        if event.anchor:  # an alias of it elsewhere is the scalar read as a value
            try:
                anchors[event.anchor] = (typed(event, PLAIN, value_of), 1)
            except Budget:
                pass  # no value JSON can carry (.inf): an alias of it is refused as unanchored
        if key == MERGE_KEY and event.tag is None and event.implicit[0]:  # a plain `<<`: YAML's merge key
            frame[2] = MERGE_PENDING
            frame[3] = (event.start_mark.line + 1, event.start_mark.column + 1)
            return
    elif kind is yaml.AliasEvent:  # an aliased key: the anchored scalar, written as a key is
        if event.anchor not in anchors:
            raise Budget(event.start_mark, f"alias *{event.anchor} has no anchor")
        value = anchors[event.anchor][0]
        if isinstance(value, (dict, list)):
            raise Budget(event.start_mark, _COLLECTION_KEY, rule="yaml-syntax", remediation=_SCALAR_KEY)
        key = refusing(event, lambda: key_text(value))
    else:
        raise Budget(event.start_mark, _COLLECTION_KEY, rule="yaml-syntax", remediation=_SCALAR_KEY)
    mark = (event.start_mark.line + 1, event.start_mark.column + 1)
    seen = frame[4]
    if key in seen:
        first = seen[key]
        result.findings.append(parse_finding(
            file, mark[0], mark[1],
            f"duplicate key {key!r} (first at line {first[0]}); the API server rejects it "
            "and YAML tools disagree on which value wins",
            "Keep one entry for this key.", rule="yaml-duplicate-key",
            path=format_path(frame[1] + (key,))))
    frame[2] = key
    frame[3] = mark
    seen[key] = mark


def merge(frame: list, positions: dict) -> None:
    """Apply a closed mapping's merge keys as Kubernetes' YAML reader (go-yaml v2) does, in document order:
    a merge sets every key of its mappings (of a list of them, the first wins), over the keys written before
    it; keys written after it win. A merged key is placed at its `<<`."""
    mapping, path = frame[0], frame[1]
    written = list(mapping.items())
    merged: dict = {}
    done = 0
    for value, start, mark, before in frame[8]:
        sources = value if isinstance(value, list) else [value]
        if not all(isinstance(source, dict) for source in sources):
            raise Budget(start, "a merge key (<<) takes a mapping or a list of mappings", rule="yaml-syntax",
                          remediation="Merge mappings only (an alias of a mapping, or a list of them).")
        merged.update(written[done:before])
        done = before
        later = {key for key, _item in written[before:]}  # written after this merge: their own place stays
        for source in reversed(sources):
            for key, item in source.items():
                merged[key] = item
                if key not in later:
                    positions[path + (key,)] = mark
    merged.update(written[done:])
    mapping.clear()
    mapping.update(merged)


def expand_alias(event, anchors: dict, nodes: int) -> tuple[object, int]:
    if event.anchor not in anchors:
        raise Budget(event.start_mark, f"alias *{event.anchor} has no anchor")
    value, weight = anchors[event.anchor]
    if weight < 0:
        raise Budget(event.start_mark, f"alias *{event.anchor} refers to a collection that contains it")
    nodes += weight
    if nodes > MAX_NODES_PER_DOCUMENT:
        raise Budget(event.start_mark,
                      f"aliases expand the document beyond {MAX_NODES_PER_DOCUMENT} nodes (an alias bomb?)")
    return value, nodes


class NoKey:
    __slots__ = ()


NO_KEY = NoKey()
MERGE_PENDING = NoKey()  # the pending key is a merge key
MERGE_KEY = "<<"
