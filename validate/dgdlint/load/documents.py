"""Load YAML manifests into plain Python values that remember the file, line and column of every node.

Safe loading only: libyaml's C parser produces events and this module builds the documents from
them with an explicit stack, so deep nesting cannot overflow the interpreter, alias expansion is
bounded, and duplicate keys, non-mapping documents and undecodable bytes become parse findings
rather than exceptions. The loop here handles the common nodes; nodes.py the rest."""

from __future__ import annotations

from collections.abc import Iterator

import yaml

from dgdlint.load.common import MAX_DEPTH, MAX_NODES_PER_DOCUMENT, may_hold_marks
from dgdlint.load.nodes import (
    KEYS,
    MERGE_KEY,
    MERGE_PENDING,
    NO_KEY,
    PLAIN,
    Budget,
    expand_alias,
    merge,
    take_key,
    typed,
)
from dgdlint.load.resolve import value_of
from dgdlint.load.result import Document, LoadResult, parse_finding
from dgdlint.scalars import INT64_RANGE

try:  # libyaml's C parser; the pure-Python one is a slow but correct fallback
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - every supported platform ships the C extension
    from yaml import SafeLoader as _Loader

def build_documents(file: str, text: str, result: LoadResult) -> None:
    """Turn the event stream of `text` into Documents, appending findings for what is malformed."""
    index = -1
    loader = None
    marks = may_hold_marks(text)
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
                    merge(frame, positions)
                if frame[6]:
                    anchors[frame[6]] = (frame[0], nodes - frame[5] + 1)
                continue
            if kind is _DOCUMENT_END:
                break

            if stack:
                frame = stack[-1]
                if frame[7]:
                    if frame[2] is NO_KEY:  # a key of the mapping: remember it and wait for the value
                        # The common key inline (plain, read before, unanchored, new here); take_key the rest.
                        key = KEYS.get(event.value) if kind is _SCALAR and event.implicit[0] else None
                        if key is not None and event.tag is None and not event.anchor and key != MERGE_KEY \
                                and key not in frame[4]:
                            mark = frame[4][key] = (event.start_mark.line + 1, event.start_mark.column + 1)
                            frame[2] = key
                            frame[3] = mark
                        else:
                            take_key(file, frame, event, kind, result, anchors)
                        continue
                    path = frame[1] + ((MERGE_KEY,) if frame[2] is MERGE_PENDING else (frame[2],))
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
                raise Budget(event.start_mark, f"document has more than {MAX_NODES_PER_DOCUMENT} nodes")

            if kind is _SCALAR:
                value = PLAIN.get(event.value, NO_KEY) if event.tag is None and event.implicit[0] else NO_KEY
                if value is NO_KEY:  # not a plain scalar read before
                    value = typed(event, PLAIN, value_of)
                if value is None:
                    has_null = True
                elif type(value) is float and value.is_integer() or type(value) is int and value > INT64_RANGE[1]:
                    whole_floats = True
                if event.anchor:
                    anchors[event.anchor] = (value, 1)
            elif kind is _MAPPING or kind is _SEQUENCE:
                value = {} if kind is _MAPPING else []
            elif kind is _ALIAS:
                value, nodes = expand_alias(event, anchors, nodes)
            else:  # pragma: no cover - no other event can appear inside a document
                continue

            positions[path] = mark
            if frame is None:
                root = value
            elif frame[7]:
                if frame[2] is MERGE_PENDING:  # merged when the mapping closes (an inline value is complete then)
                    frame[8] = (frame[8] or []) + [(value, event.start_mark, mark, len(frame[0]))]
                else:
                    frame[0][frame[2]] = value
                frame[2] = NO_KEY
            else:
                frame[0].append(value)

            if kind is _MAPPING or kind is _SEQUENCE:
                if len(stack) >= MAX_DEPTH:
                    raise Budget(event.start_mark, f"nesting deeper than {MAX_DEPTH} levels")
                stack.append([value, path, NO_KEY, None, {}, nodes, event.anchor, kind is _MAPPING, None])
                if event.anchor:
                    anchors[event.anchor] = (value, -1)  # its weight is known when it closes
    except Budget as budget:
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


def _skip_to_document_end(events: Iterator) -> None:
    for event in events:
        if isinstance(event, yaml.DocumentEndEvent):
            return


def _one_line(text: str) -> str:
    return " ".join(text.split())
