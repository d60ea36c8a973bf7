"""The values of a plain manifest file, read quickly and without positions; None where documents.py must read it.

Most files a check reads are plain block YAML with no finding to place. For those, rapidyaml (C++) parses
the text and writes each document as JSON, which the standard library's C decoder reads back. The answer
must be the one documents.py gives, so this reader declines (returns None) wherever it could differ:
- before parsing: what it does not read as libyaml and go-yaml do, or bounds it does not check (tabs,
  carriage returns, control characters, directives, tags, anchors, aliases, merge and complex keys, more
  than 1 MiB or nesting that could pass common.MAX_DEPTH), and what rapidyaml takes and libyaml refuses
  (load.screen: flow collections other than one line of words and quoted text, a scalar starting with `]`,
  `@` or a backquote, text after a block scalar's header or after a quoted scalar on its line, a line past
  1000 characters, which may hold a key past libyaml's 1024, ...);
- a text rapidyaml or the JSON decoder refuses (documents.py then says why, at its line);
- a mapping with a duplicate key (documents.py reports it);
- a string that may stand for a plain scalar resolve.py types otherwise: rapidyaml writes a plain `yes`,
  `~` or `0x1F` as the JSON string it writes for a quoted one (the plain forms it writes as JSON numbers or
  literals, such as `8000` or `true`, leave no doubt: their string is a quoted scalar), and `inf` or `nan`,
  plain or quoted, as `.inf` or `.nan`;
- a key resolve.py writes otherwise (`yes:` is the key "true", `1.0:` the key "1").
Every number is typed by resolve.py from its JSON text (what rapidyaml writes of it: `.5` as `0.5`), so
numbers are read as documents.py reads them. tests/load/test_fast_reader.py compares the two readers on the
test fixtures, upstream's manifests, generated documents and mutants of real files; each disagreement it
found is one of the cases above."""

from __future__ import annotations

import json
import os
import re

from dgdlint.load.resolve import STR, TIMESTAMP, Refused, key_text, resolve_plain, value_of
from dgdlint.load.screen import declined
from dgdlint.scalars import INT64_RANGE

try:
    import ryml
except ImportError:  # pragma: no cover - a platform without a rapidyaml wheel: documents.py reads every file
    ryml = None

# A JSON string that may be a plain scalar resolve.py types otherwise (a wide net; _settled decides), and
# whether it is a key (a colon follows): text starting as a number, `~` or nothing, and the words that start
# with a letter and mean anything (resolve._FIXED); a look at the first character first.
_FIXED_WORDS = "[yYnN]|[yY]es|YES|[nN]o|NO|[tT]rue|TRUE|[fF]alse|FALSE|[oO]n|ON|[oO]ff|OFF|[nN]ull|NULL"
_DOUBTFUL = re.compile(rf'"(?=[-+.0-9~yYnNtTfFoO"])([-+.0-9~][0-9a-zA-Z_.+-]*|{_FIXED_WORDS}|)"(\s*:)?')

_NONE = 2**64 - 1  # rapidyaml's "no node"


class _Decline(Exception):
    pass


def read(text: str) -> list[tuple[int, object, bool, bool, frozenset]] | None:
    """[(index in the stream, value, has_null, whole_floats, keys)] of every document that is not empty, or None
    where documents.py must read the text."""
    if ryml is None or declined(text):
        return None
    buffer = bytearray(text.encode("utf-8"))  # parsed in place: the tree points into it while it is read
    try:
        with _quiet():
            tree = ryml.parse_in_place(buffer)
            root = tree.root_id()
            if tree.is_stream(root):
                texts, child = [], tree.first_child(root)
                while child != _NONE:
                    texts.append(_json(tree, child))
                    child = tree.next_sibling(child)
            else:
                texts = [_json(tree, root)] if tree.is_map(root) or tree.is_seq(root) or tree.has_val(root) else []
    except Exception:  # noqa: BLE001 - rapidyaml refuses the text (its own exception types): documents.py says why
        return None
    try:
        return [document for index, out in enumerate(texts)
                if (document := _document(index, out, text)) is not None]
    except (_Decline, ValueError, RecursionError):  # a JSON decoding error is a ValueError
        return None


def _json(tree, node) -> str:
    out = ryml.emit_json_malloc(tree, node)
    return out if isinstance(out, str) else bytes(out).decode("utf-8")


# What rapidyaml writes for a plain (and, as a key, also a quoted) `inf`, `-Infinity`, `.NaN` and the like: not
# the text it read, so the key or value cannot be known from it.
_NAN_INF = ('".inf"', '"-.inf"', '".nan"')
# A string starting or ending with a space, which no plain scalar does: where rapidyaml misreads indentation
# (a key `  c` after a comment line less indented than the block), and quoted text that does. (In rapidyaml's
# JSON a closing quote is followed by a colon, a comma, a bracket or a line break, never by a space.)
_SPACE_BEFORE_QUOTE = re.compile(r' "[,\n\]}:]')


def _document(index: int, out: str, text: str) -> tuple[int, object, bool, bool, frozenset] | None:
    if out.lstrip()[:1] not in ("{", "[") and out.strip() != "null":
        raise _Decline  # a document that is a scalar: no manifest, and rapidyaml reads `'a'!x` as "" (no tag)
    if ('".' in out or '"-.' in out) and any(written in out for written in _NAN_INF) or '" ' in out \
            or _SPACE_BEFORE_QUOTE.search(out):
        raise _Decline
    unsettled = set(_DOUBTFUL.findall(out)) - _SETTLED  # (most are settled: the same few texts in every file)
    for content, colon in unsettled:
        _check(content, colon, text)
    floats = [False]

    def number(token: str) -> object:
        value = _number(token)
        if type(value) is float and value.is_integer() or type(value) is int and value > INT64_RANGE[1]:
            floats[0] = True
        return value

    value = json.loads(out, parse_int=number, parse_float=number)
    count, keys = _keys(value)
    if count != out.count('": '):
        raise _Decline  # a duplicate key (the JSON decoder kept one of them), or a string holding `": `
    if value is None:
        return None  # an empty document: documents.py skips it too
    return index, value, "null" in out, floats[0], frozenset(keys)


def _keys(value: object) -> tuple[int, set]:
    """How many keys the mappings in `value` have, and which."""
    count, keys, pending = 0, set(), [value]
    while pending:
        node = pending.pop()
        if type(node) is dict:
            count += len(node)
            keys.update(node)
            pending.extend(node.values())
        elif type(node) is list:
            pending.extend(node)
    return count, keys


_NUMBERS: dict[str, object] = {}


def _number(token: str) -> object:
    try:
        return _NUMBERS[token]
    except KeyError:
        try:
            value = value_of(resolve_plain(token)[1])
        except Refused:
            raise _Decline from None
        if len(_NUMBERS) < 65536:
            _NUMBERS[token] = value
        return value


# Texts as _DOUBTFUL finds them, (text, the colon after a key or ""): settled (a quoted scalar or a key
# written as it is read) or doubted. Remembered for the run: the same few texts come back in every file.
_SETTLED: set[tuple[str, str]] = set()
_DOUBTED: set[tuple[str, str]] = set()


def _check(content: str, colon: str, text: str) -> None:
    """Decline where the JSON string `content` may stand for a plain scalar documents.py reads otherwise."""
    if content == "":
        if "''" not in text and '""' not in text:
            raise _Decline  # no quoted empty scalar in the text: an empty plain one (null, or a null key)
        return
    found = (content, colon)
    if found in _DOUBTED:
        raise _Decline
    if not _settled(content, bool(colon)):
        if len(_DOUBTED) < 65536:
            _DOUBTED.add(found)
        raise _Decline
    if len(_SETTLED) < 65536:
        _SETTLED.add(found)


def _settled(content: str, key: bool) -> bool:
    try:
        tag, value = resolve_plain(content)
        if key:
            return key_text(value) == content
    except Refused:
        return False
    return tag in (STR, TIMESTAMP) or not _quoted_when_plain(content)


def _quoted_when_plain(content: str) -> bool:
    """Whether rapidyaml writes `content`, read as a plain scalar, as a JSON string."""
    buffer = bytearray(b"- " + content.encode("utf-8"))
    try:
        with _quiet():
            tree = ryml.parse_in_place(buffer)
            out = _json(tree, tree.first_child(tree.root_id()))
    except Exception:  # noqa: BLE001 - not a plain scalar on its own: doubt remains
        return True
    return out.lstrip().startswith('"')


class _quiet:
    """rapidyaml writes its errors to the process's standard error before raising them: to nowhere, here."""

    _null = -1

    def __enter__(self):
        if _quiet._null < 0:
            _quiet._null = os.open(os.devnull, os.O_WRONLY)
        self._saved = os.dup(2)
        os.dup2(_quiet._null, 2)

    def __exit__(self, *_exc):
        os.dup2(self._saved, 2)
        os.close(self._saved)
