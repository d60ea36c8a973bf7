"""Load YAML manifests into plain Python values that remember the file, line and column of every node.

Safe loading only: libyaml's C parser produces events and this module builds the documents from
them with an explicit stack, so deep nesting cannot overflow the interpreter, alias expansion is
bounded, and duplicate keys, non-mapping documents and undecodable bytes become parse findings
rather than exceptions."""

from __future__ import annotations

from collections.abc import Iterator

import yaml

from dgdlint.load.resolve import Refused, key_text, resolve_plain, resolve_tagged, value_of
from dgdlint.load.result import Document, LoadResult, format_path, parse_finding
from dgdlint.scalars import INT64_RANGE

try:  # libyaml's C parser; the pure-Python one is a slow but correct fallback
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - every supported platform ships the C extension
    from yaml import SafeLoader as _Loader

# Bounds that keep hostile input cheap; each is generous for real manifests.
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 200
MAX_NODES_PER_DOCUMENT = 1_000_000
YAML_SUFFIXES = (".yaml", ".yml", ".json")


# ---------------------------------------------------------------------------------------------
# Scalars, typed as Kubernetes' YAML reader types them (resolve.py).

_PLAIN: dict[str, object] = {}  # a plain scalar's text -> its value: manifests repeat the same few texts
_KEYS: dict[str, str] = {}  # a plain key's text -> the key's text as Kubernetes writes it
_CACHE_LIMIT = 65536


def _typed(event: yaml.ScalarEvent, cache: dict, finish) -> object:
    """A scalar as a value (`finish` value_of, `cache` _PLAIN) or as a key's text (key_text, _KEYS); a plain one
    is typed by its text alone, so remembered by its text."""
    tag = event.tag
    if tag is None and event.implicit[0]:
        text = event.value
        try:
            return cache[text]
        except KeyError:
            typed = _refusing(event, lambda: finish(resolve_plain(text)[1]))
            if len(cache) < _CACHE_LIMIT:
                cache[text] = typed
            return typed
    if tag is None:
        return event.value  # quoted: text
    return _refusing(event, lambda: finish(resolve_tagged(tag, event.value)))


def _refusing(event, typed):
    try:
        return typed()
    except Refused as refused:  # the value itself is not repeated: it may be a secret
        raise _Budget(event.start_mark, refused.message, rule="yaml-syntax", remediation=refused.remediation) from None


class _Budget(Exception):
    """A document refused as a whole: over a bound (rule yaml-limits), or a tag its value cannot have."""

    def __init__(self, mark, message: str, rule: str = "yaml-limits", remediation: str = "Simplify the document."):
        super().__init__(message)
        self.mark = mark
        self.message = message
        self.rule = rule
        self.remediation = remediation


# What a string needs in the text to hold a placeholder's mark: the marks themselves, or what can write one
# without spelling it (a backslash escape such as "\x3c", a !!binary value decoded).
_MARKS = ("<", "${", "{{", "\\", "binary")


def build_documents(file: str, text: str, result: LoadResult) -> None:
    """Turn the event stream of `text` into Documents, appending findings for what is malformed."""
    index = -1
    loader = None
    marks = any(mark in text for mark in _MARKS)
    try:
        loader = _Loader(text)
        events = iter(loader.get_event, None)  # the C parser called directly: no Python frame per event
        for event in events:
            if isinstance(event, yaml.DocumentStartEvent):
                index += 1
                document = _build_one(file, index, events, result)
                if document is not None:
                    document.marks = marks
                    result.documents.append(document)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = error.problem or error.context or "malformed YAML"
        message = f"YAML syntax error: {problem}"
        if error.context and error.problem:
            message += f" ({error.context})"
        remediation = "Fix the YAML syntax at this position."
        lines = text.splitlines()
        if "tab" in problem or (0 < line <= len(lines) and lines[line - 1][column - 1:column] == "\t"):
            message = "YAML syntax error: a tab character where YAML needs spaces"
            remediation = "Indent with spaces: YAML does not allow tabs for indentation."
        result.findings.append(parse_finding(file, line, column, message, remediation))
    except yaml.reader.ReaderError as error:  # a character YAML does not allow (control characters)
        position = max(error.position, 0)
        line = text.count("\n", 0, position) + 1
        column = position - (text.rfind("\n", 0, position) + 1) + 1
        character = error.character if isinstance(error.character, int) else ord(str(error.character)[:1] or " ")
        result.findings.append(parse_finding(
            file, line, column, f"YAML error: character U+{character:04X} is not allowed in YAML text",
            "Remove the control character (or quote it as an escape such as \"\\a\").", rule="yaml-encoding"))
    except yaml.YAMLError as error:  # anything else libyaml reports without a mark
        result.findings.append(parse_finding(file, 1, 1, f"YAML error: {_one_line(str(error))}",
                                             "Make the file valid UTF-8 YAML text."))
    finally:
        if loader is not None:
            loader.dispose()


_SCALAR, _ALIAS = yaml.ScalarEvent, yaml.AliasEvent
_MAPPING, _SEQUENCE = yaml.MappingStartEvent, yaml.SequenceStartEvent
_CLOSES = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
_DOCUMENT_END = yaml.DocumentEndEvent


def _build_one(file: str, index: int, events: Iterator, result: LoadResult) -> Document | None:
    """One document from the events up to its end. Dispatches on the event's exact class (libyaml makes
    no subclasses): this loop runs once per node of every file, so it avoids isinstance chains."""
    positions: dict[tuple, tuple[int, int]] = {}
    anchors: dict[str, tuple[object, int]] = {}
    # Frame: container, path, pending key, key mark, keys seen, node count at start, anchor, is a mapping,
    # the values of its merge keys (`<<`).
    stack: list[list] = []
    root: object = None
    root_mark = None
    nodes = 0
    has_null = whole_floats = False
    keys: set = set()
    try:
        for event in events:
            kind = type(event)
            if kind in _CLOSES:
                frame = stack.pop()
                keys.update(frame[4])
                if frame[8]:
                    _merge(frame, positions)
                if frame[6]:
                    anchors[frame[6]] = (frame[0], nodes - frame[5] + 1)
                continue
            if kind is _DOCUMENT_END:
                break

            if stack:
                frame = stack[-1]
                if frame[7]:
                    if frame[2] is _NO_KEY:  # a key of the mapping: remember it and wait for the value
                        # The common key inline (plain, read before, unanchored, new here); _take_key the rest.
                        key = _KEYS.get(event.value) if kind is _SCALAR and event.implicit[0] else None
                        if key is not None and event.tag is None and not event.anchor and key != MERGE_KEY \
                                and key not in frame[4]:
                            mark = frame[4][key] = (event.start_mark.line + 1, event.start_mark.column + 1)
                            frame[2] = key
                            frame[3] = mark
                        else:
                            _take_key(file, frame, event, kind, result, anchors)
                        continue
                    path = frame[1] + ((MERGE_KEY,) if frame[2] is _MERGE else (frame[2],))
                    mark = frame[3]
                else:
                    path = frame[1] + (len(frame[0]),)
                    mark = (event.start_mark.line + 1, event.start_mark.column + 1)
            else:
                frame = None
                path = ()
                mark = root_mark = (event.start_mark.line + 1, event.start_mark.column + 1)

            nodes += 1
            if nodes > MAX_NODES_PER_DOCUMENT:
                raise _Budget(event.start_mark, f"document has more than {MAX_NODES_PER_DOCUMENT} nodes")

            if kind is _SCALAR:
                value = _PLAIN.get(event.value, _NO_KEY) if event.tag is None and event.implicit[0] else _NO_KEY
                if value is _NO_KEY:  # not a plain scalar read before
                    value = _typed(event, _PLAIN, value_of)
                if value is None:
                    has_null = True
                elif type(value) is float and value.is_integer() or type(value) is int and value > INT64_RANGE[1]:
                    whole_floats = True
                if event.anchor:
                    anchors[event.anchor] = (value, 1)
            elif kind is _MAPPING or kind is _SEQUENCE:
                value = {} if kind is _MAPPING else []
            elif kind is _ALIAS:
                value, nodes = _expand_alias(event, anchors, nodes)
            else:  # pragma: no cover - no other event can appear inside a document
                continue

            positions[path] = mark
            if frame is None:
                root = value
            elif frame[7]:
                if frame[2] is _MERGE:  # merged when the mapping closes (an inline value is complete then)
                    frame[8] = (frame[8] or []) + [(value, event.start_mark, mark, len(frame[0]))]
                else:
                    frame[0][frame[2]] = value
                frame[2] = _NO_KEY
            else:
                frame[0].append(value)

            if kind is _MAPPING or kind is _SEQUENCE:
                if len(stack) >= MAX_DEPTH:
                    raise _Budget(event.start_mark, f"nesting deeper than {MAX_DEPTH} levels")
                stack.append([value, path, _NO_KEY, None, {}, nodes, event.anchor, kind is _MAPPING, None])
                if event.anchor:
                    anchors[event.anchor] = (value, -1)  # its weight is known when it closes
    except _Budget as budget:
        line, column = budget.mark.line + 1, budget.mark.column + 1
        result.findings.append(parse_finding(file, line, column, f"document {index + 1} rejected: "
                                             f"{budget.message}", budget.remediation, rule=budget.rule))
        _skip_to_document_end(events)
        return None
    if root is None:
        return None  # an empty document (`---` alone, or only comments): kubectl skips it too
    line, column = root_mark if root_mark else (1, 1)
    return Document(file=file, index=index, value=root, line=line, column=column, positions=positions,
                    has_null=has_null, whole_floats=whole_floats, keys=frozenset(keys))


_COLLECTION_KEY = "a mapping key must be a scalar, not a collection (Kubernetes' YAML reader refuses it)"
_SCALAR_KEY = "Write the key as text."


def _take_key(file: str, frame: list, event, kind, result: LoadResult, anchors: dict) -> None:
    if kind is _SCALAR:
        key = _typed(event, _KEYS, key_text)
        if event.anchor:  # an alias of it elsewhere is the scalar read as a value
            try:
                anchors[event.anchor] = (_typed(event, _PLAIN, value_of), 1)
            except _Budget:
                pass  # no value JSON can carry (.inf): an alias of it is refused as unanchored
        if key == MERGE_KEY and event.tag is None and event.implicit[0]:  # a plain `<<`: YAML's merge key
            frame[2] = _MERGE
            frame[3] = (event.start_mark.line + 1, event.start_mark.column + 1)
            return
    elif kind is _ALIAS:  # an aliased key: the anchored scalar, written as a key is
        if event.anchor not in anchors:
            raise _Budget(event.start_mark, f"alias *{event.anchor} has no anchor")
        value = anchors[event.anchor][0]
        if isinstance(value, (dict, list)):
            raise _Budget(event.start_mark, _COLLECTION_KEY, rule="yaml-syntax", remediation=_SCALAR_KEY)
        key = _refusing(event, lambda: key_text(value))
    else:
        raise _Budget(event.start_mark, _COLLECTION_KEY, rule="yaml-syntax", remediation=_SCALAR_KEY)
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


def _merge(frame: list, positions: dict) -> None:
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
            raise _Budget(start, "a merge key (<<) takes a mapping or a list of mappings", rule="yaml-syntax",
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


def _expand_alias(event, anchors: dict, nodes: int) -> tuple[object, int]:
    if event.anchor not in anchors:
        raise _Budget(event.start_mark, f"alias *{event.anchor} has no anchor")
    value, weight = anchors[event.anchor]
    if weight < 0:
        raise _Budget(event.start_mark, f"alias *{event.anchor} refers to a collection that contains it")
    nodes += weight
    if nodes > MAX_NODES_PER_DOCUMENT:
        raise _Budget(event.start_mark,
                      f"aliases expand the document beyond {MAX_NODES_PER_DOCUMENT} nodes (an alias bomb?)")
    return value, nodes


def _skip_to_document_end(events: Iterator) -> None:
    for event in events:
        if isinstance(event, yaml.DocumentEndEvent):
            return


class _NoKey:
    __slots__ = ()


_NO_KEY = _NoKey()
_MERGE = _NoKey()  # the pending key is a merge key
MERGE_KEY = "<<"


def _one_line(text: str) -> str:
    return " ".join(text.split())
