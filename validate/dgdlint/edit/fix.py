"""`dgdlint fix`: the repairs with one right answer, applied to the user's files through the round trip.

Fixers (edit/fixers.py) read the model and propose plans (edit/plans.py): set an env var in a container, take
one from a Secret, set a field, or add a flag after a word of its command. This module applies them to the
ruamel trees of the files the objects came from. A plan that cannot be applied without a choice (an env var
whose value comes from a Secret, a flag inside a script where its place is not clear) becomes a note instead
of an edit."""

from __future__ import annotations

import re

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from dgdlint.edit.notes import Note
from dgdlint.edit.plans import (
    AddFlag,
    Ambiguous,
    DeleteItems,
    DeleteKeys,
    FromSecret,
    QuoteScalar,
    SetEnv,
    SetField,
)
from dgdlint.edit.roundtrip import EditableDocument, EditableFile
from dgdlint.load.resolve import STR, Refused, resolve_plain, value_of
from dgdlint.model import KObject

_NOT_A_PLAIN_STRING = re.compile(r"^(|~|null|true|false|yes|no|on|off|y|n|[-+.0-9].*)$", re.IGNORECASE)


def document_of(files: dict[str, EditableFile], obj: KObject) -> EditableDocument | None:
    """The editable document an object of the model was read from (matched by file and line)."""
    edit = files.get(obj.file)
    if edit is None:
        return None
    line = obj.doc.line - 1
    for chunk, document in zip(edit.chunks, edit.documents, strict=True):
        if document is not None and chunk.start <= line < chunk.start + max(1, len(chunk.body.splitlines())):
            return document
    return None


def _node(document: EditableDocument, path: tuple):
    node = document.root
    for part in path:
        if isinstance(node, CommentedMap) and part in node:
            node = node[part]
        elif isinstance(node, CommentedSeq) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return None
    return node


def _string(value: str):
    return DoubleQuotedScalarString(value) if _NOT_A_PLAIN_STRING.match(value) else value


def _line(plan) -> int:
    """Where a note points: the env entry (or the list it goes in), the command word, the finding's place."""
    path = plan.container.env_path(plan.name) if isinstance(plan, SetEnv) else \
        plan.path + plan.indexes[:1] if isinstance(plan, DeleteItems) else \
        plan.paths[0] if isinstance(plan, DeleteKeys) else plan.path
    return plan.obj.position(path)[0]


_APPLY = {}  # plan type -> how it is applied (filled below)


def apply(files: dict[str, EditableFile], plans: list) -> list[Note]:
    notes: list[Note] = []
    # Removals last: the other plans find their entries at the places the model read them.
    for plan in sorted(plans, key=lambda plan: isinstance(plan, DeleteItems | DeleteKeys)):
        document = document_of(files, plan.obj)
        if isinstance(plan, Ambiguous) or document is None:
            message = plan.message if isinstance(plan, Ambiguous) else "its document could not be edited"
            notes.append(Note(plan.obj.file, _line(plan), "warning", "fix-ambiguous", f"{message} [{plan.rule}]"))
            continue
        if document.refusal is not None:  # what it holds cannot be kept: refused when written, at its line
            document.changed = True
            continue
        done = _APPLY[type(plan)](document, plan)
        if isinstance(done, str):
            notes.append(Note(plan.obj.file, _line(plan), "warning", "fix-ambiguous", f"{done} [{plan.rule}]"))
        else:
            document.changed = True
            notes.append(Note(plan.obj.file, _line(plan), "info", "fixed", f"{plan.why} [{plan.rule}]"))
    return notes


def _set_env(document: EditableDocument, plan: SetEnv) -> bool | str:
    base = plan.obj.base
    entry = plan.container.env_var(plan.name)
    if entry is not None and entry.origin != "graph":
        if not entry.is_literal:
            return f"{plan.name} comes from valueFrom; set it to {plan.value!r} by hand"
        item = _node(document, base + entry.path)
        if not isinstance(item, CommentedMap) or item.get("name") != plan.name:
            return f"{plan.name}'s entry is not where it was read; set it by hand"
        old = item.get("value")
        item["value"] = type(old)(plan.value) if isinstance(old, str) and type(old) is not str else \
            _string(plan.value)
        return True
    anchor = plan.container.env_anchor
    target = _node(document, base + anchor)
    if not isinstance(target, CommentedSeq):
        holder = _node(document, base + anchor)
        if not isinstance(holder, CommentedMap):
            return f"no env list to add {plan.name} to"
        key = "envs" if anchor and anchor[-1] != "mainContainer" and "services" in anchor else "env"
        target = holder.setdefault(key, CommentedSeq())
        if not isinstance(target, CommentedSeq):
            return f"{key} is not a list"
    target.append(CommentedMap([("name", plan.name), ("value", _string(plan.value))]))
    return True


def _add_flag(document: EditableDocument, plan: AddFlag) -> bool | str:
    holder = _node(document, plan.obj.base + plan.path[:-1])
    index = plan.path[-1]
    if not isinstance(holder, CommentedSeq) or not isinstance(index, int) or index >= len(holder):
        return f"cannot find where {plan.flag} goes"
    word = str(holder[index])
    if word.strip() == plan.after:
        neighbour = holder[index]
        holder.insert(index + 1, type(neighbour)(plan.flag) if isinstance(neighbour, str) else plan.flag)
        comments = document.table
        for position in reversed(range(index + 1, len(holder) - 1)):
            comments.move(holder, position, holder, position + 1)
        return True
    matches = list(re.finditer(rf"(?<!\S){re.escape(plan.after)}(?!\S)", word))
    if len(matches) != 1:
        return f"{plan.after} appears {len(matches)} times in one command string; add {plan.flag} by hand"
    old = holder[index]
    end = matches[0].end()
    text = word[:end] + " " + plan.flag + word[end:]
    holder[index] = type(old)(text) if isinstance(old, str) and type(old) is not str else text
    return True


def _value(value: str | list | dict):
    if isinstance(value, dict):
        return CommentedMap((key, _string(text)) for key, text in value.items())
    if isinstance(value, list):
        return CommentedSeq([CommentedMap((key, _string(text)) for key, text in item.items()) for item in value])
    return _string(value)


def _set_field(document: EditableDocument, plan: SetField) -> bool | str:
    holder = _node(document, plan.obj.base + plan.path)
    if not isinstance(holder, CommentedMap):
        return f"{'.'.join(map(str, plan.path))} is not a mapping; write {plan.key} by hand"
    value = _value(plan.value)
    if plan.key in holder:
        holder[plan.key] = value
    elif plan.before in holder:
        holder.insert(list(holder).index(plan.before), plan.key, value)
    else:
        holder[plan.key] = value
    return True


def _from_secret(document: EditableDocument, plan: FromSecret) -> bool | str:
    item = _node(document, plan.obj.base + plan.path)
    if not isinstance(item, CommentedMap):
        return "the entry is not a mapping; write its valueFrom by hand"
    if plan.own:
        del item["value"]  # the literal (never shown) goes; the Secret reference stays as written
        return True
    source = CommentedMap([("secretKeyRef", CommentedMap([("name", plan.secret), ("key", plan.key)]))])
    keys = list(item)
    place = keys.index("value") if "value" in item else keys.index("valueFrom") if "valueFrom" in item else len(keys)
    for key in ("value", "valueFrom"):
        if key in item:
            del item[key]  # the literal (never shown) and any other source go; their comments with them
    item.insert(place, "valueFrom", source)
    return True


def _delete_items(document: EditableDocument, plan: DeleteItems) -> bool | str:
    holder = _node(document, plan.obj.base + plan.path)
    if not isinstance(holder, CommentedSeq) or not all(0 <= index < len(holder) for index in plan.indexes):
        return f"{'.'.join(map(str, plan.path))} is not the list it was; edit it by hand"
    table = document.table
    for index in sorted(plan.indexes, reverse=True):
        # Its comments stay in the table under a key no list has, so the run says they were dropped.
        table.move(holder, index, holder, ("deleted", index))
        del holder[index]
        for position in range(index + 1, len(holder) + 1):
            table.move(holder, position, holder, position - 1)
    return True


# A resource table left empty goes, up to `resources`; so does an annotation map.
_EMPTY_GOES = {"limits", "requests", "custom", "resources", "annotations"}


def _delete_keys(document: EditableDocument, plan: DeleteKeys) -> bool | str:
    base, table = plan.obj.base, document.table
    if not all(isinstance(_node(document, base + path[:-1]), CommentedMap) and path[-1] in
               _node(document, base + path[:-1]) for path in plan.paths):
        return "a key to remove is not where it was; edit it by hand"
    for path in plan.paths:
        at = path
        while at:
            holder = _node(document, base + at[:-1])
            if not isinstance(holder, CommentedMap) or at[-1] not in holder or \
                    (at != path and (at[-1] not in _EMPTY_GOES or holder[at[-1]])):
                break
            table.move(holder, at[-1], holder, ("deleted", at[-1]))  # reported as dropped, with its comments
            del holder[at[-1]]
            at = at[:-1]
    return True


# A plain scalar that reads as a boolean or a number: no space, quote, comma, bracket or brace, no `#`.
_PLAIN_WORD = re.compile(r"[^\s'\",\[\]{}#]+")


def _same_value(one: object, other: object) -> bool:
    return type(one) is type(other) and one == other


def _quote_scalar(document: EditableDocument, plan: QuoteScalar) -> bool | str:
    holder = _node(document, plan.obj.base + plan.path[:-1])
    key = plan.path[-1]
    position = getattr(getattr(holder, "lc", None), "data", {}).get(key) if isinstance(holder, CommentedMap) else None
    if position is None:
        return f"{plan.what} is not where it was read; quote it by hand"
    lines = document.chunk.body.splitlines()
    line, column = position[2], position[3]
    found = _PLAIN_WORD.match(lines[line], column) if line < len(lines) else None
    text = found.group(0) if found else ""
    try:
        tag, value = resolve_plain(text) if text else (STR, text)
        same = tag != STR and _same_value(value_of(value), plan.value)
    except Refused:
        same = False
    if not same:  # a tag (`!!int 5`), or a text that is not the value the model read
        return f"{plan.what}: its text could not be read as written; quote it by hand"
    doubt = plan.doubt(text) if plan.doubt else None
    if doubt:
        return doubt
    holder[key] = DoubleQuotedScalarString(text)
    plan.why = f'{plan.what}: {text} quoted as written, "{text}" (a string, as the API server needs)'
    return True


_APPLY.update({SetEnv: _set_env, AddFlag: _add_flag, SetField: _set_field, FromSecret: _from_secret,
               DeleteItems: _delete_items, DeleteKeys: _delete_keys, QuoteScalar: _quote_scalar})
