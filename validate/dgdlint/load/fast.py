"""The values of a plain manifest file, read quickly and without positions; None where documents.py must read it.

Most files a check reads are plain block YAML with no finding to place. For those, rapidyaml (C++) parses
the text and writes each document as JSON, which the standard library's C decoder reads back. The answer
must be the one documents.py gives, so this reader declines (returns None) wherever it could differ:
- before parsing: what it does not read as libyaml and go-yaml do, or bounds it does not check (tabs,
  carriage returns, control characters, directives, tags, anchors, aliases, merge and complex keys, more
  than 1 MiB or nesting that could pass common.MAX_DEPTH), and what rapidyaml takes and libyaml refuses
  (_declined: flow collections other than one line of words and quoted text, a scalar starting with `]`,
  `@` or a backquote, text after a block scalar's header or after a quoted scalar on its line, ...);
- a text rapidyaml or the JSON decoder refuses (documents.py then says why, at its line);
- a mapping with a duplicate key (documents.py reports it), a key of over 1024 characters (libyaml's limit);
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
from dgdlint.scalars import INT64_RANGE

try:
    import ryml
except ImportError:  # pragma: no cover - a platform without a rapidyaml wheel: documents.py reads every file
    ryml = None

MAX_TEXT = 1024 * 1024  # at two characters a node, under common.MAX_NODES_PER_DOCUMENT
MAX_FLOW_OPENINGS = 60

# What documents.py reads differently or bounds, looked for with searches C does quickly (these run on every
# file): characters (in ASCII text, control characters only), directives and merge keys (plain substrings),
# the indicators of anchors, aliases, tags and complex keys (each occurrence of their character looked at),
# and a line indented deeply enough to nest past common.MAX_DEPTH (a block level takes a column).
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")  # tabs and carriage returns too
# ... and beyond ASCII: NEL, the line and paragraph separators, a byte-order mark (compiled when first needed)
_NOT_PLAIN_TEXT = r"[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
# An indicator after a space, a line's start or a flow indicator: an anchor, alias, tag or complex key, or a
# scalar starting with a character a plain one cannot start with (which rapidyaml takes as text, and libyaml
# and go-yaml refuse).
_INDICATOR = re.compile(r"[&*!?\]},%@`]")
_AFTER = frozenset(" [{,")  # what comes before an anchor, alias, tag or complex key
_STARTS = "]},%@`"
# A flow collection on one line, of plain words and quoted text without escapes (or such collections, one
# level down), and nothing after it but a comment: what manifests write in flow style (`[ReadWriteOnce]`,
# `{limits: {cpu: "1"}}`). Others are where the two parsers part ways (rapidyaml takes `{a:, b}` and
# `[a] - b`, which libyaml refuses).


def _flow(item: str) -> str:
    return (rf"""(?:\[ *(?:{item}(?: *, *{item})* *,? *)?\]|\{{ *(?:{item}(?:: +{item})?"""
            rf"""(?: *, *{item}(?:: +{item})?)* *,? *)?\}})""")


_WORD = r"""(?:"[^"\\\n]*"|'[^'\n]*'|[A-Za-z0-9_./=+-]+)"""
_FLOW = re.compile(_flow(f"(?:{_WORD}|{_flow(_WORD)})") + r" *(?:#[^\n]*)?(?:\n|\Z)")
_OPENING = re.compile(r"[\[{]")
# What libyaml refuses and rapidyaml takes (each searched for only where a quick test of the text finds what it
# needs): a block scalar's header (after a key, a dash or at a line's start) with more than a comment after it,
# or at a line's start (the whole document: nothing may follow it); a line of dots (a document end marker
# where libyaml takes none); a key left empty (`: x`); a quoted scalar with more after it on its line
# (`- "1"   - x`).
_HEADER = re.compile(r"(?:^|: |- ) *[|>](?![-+0-9]{0,2} *(?:#[^\n]*)?$)|^[|>]", re.MULTILINE)
_EMPTY_KEY = re.compile(r"(?:^|- ) *:(?: |$)", re.MULTILINE)
_AFTER_QUOTE = re.compile(r"""(?<!\\)["'] +[^\s#:,\]}]""")
# Where any of the above may be: a character that starts one after a space or a line's start, a quote with a
# space after it, a control character, a merge key. An ASCII text is first written in these classes of
# characters (str.translate: one pass in C), where plain substrings find them; a regular expression would take
# several times as long for the same question.
_SUSPECT = re.compile(r"""[ \n][]},%@`[{&*!?:|><]|['"] |[\x00-\x09\x0b-\x1f\x7f]|<<""")
_SUSPECT_FIRST = frozenset("]},%@`[{&*!?:|><")
_CLASSES = str.maketrans({chr(code): "\x00" if code < 32 and code != 10 or code == 127
                          else chr(code) if chr(code) in " \n" else "!" if chr(code) in _SUSPECT_FIRST
                          else '"' if chr(code) in "'\"" else "x" for code in range(128)})
_DEEP = re.compile(r"\n[ -]{60}")  # (a literal first: searched quickly)

# A JSON string that may be a plain scalar resolve.py types otherwise (a wide net; _settled decides), and
# whether it is a key (a colon follows).
_DOUBTFUL = re.compile(r'"([-+.0-9~yYnNtTfFoO][0-9a-zA-Z_.+-]*|)"(\s*:)?')

_NONE = 2**64 - 1  # rapidyaml's "no node"


class _Decline(Exception):
    pass


def read(text: str) -> list[tuple[int, object, bool, bool, frozenset]] | None:
    """[(index in the stream, value, has_null, whole_floats, keys)] of every document that is not empty, or None
    where documents.py must read the text."""
    if ryml is None or len(text) > MAX_TEXT or text.count("[") + text.count("{") > MAX_FLOW_OPENINGS \
            or _declined(text):
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


def _declined(text: str) -> bool:
    if not text.isascii() and re.compile(_NOT_PLAIN_TEXT).search(text) is not None:
        return True
    if not text.endswith("\n") and ("|" in text or ">" in text):
        return True  # a block scalar may end the text: rapidyaml gives it the line break the text does not have
    if _DEEP.search("\n" + text[:60]) is not None or _DEEP.search(text) is not None or "..." in text:
        return True  # (`...` is a document end marker where it starts a line: libyaml wants `---` after it)
    if not _suspect(text):
        return False  # one quick look at the text is enough for most: the checks below look where it found something
    if _CONTROL.search(text) is not None or text.startswith("%") or "\n%" in text or "<<" in text:
        return True  # a control character, a directive, a merge key
    for match in _INDICATOR.finditer(text):
        at, char = match.start(), match[0]
        head = text[text.rfind("\n", 0, at) + 1:at]
        if char in "&*!?":
            found = (not head or head[-1] in _AFTER) and (char != "?" or text[at + 1:at + 2] in ("", " ", "\n"))
        else:
            found = _node_starts(head)
        if found and not head.lstrip(" ").startswith("#"):  # (a comment's text, or a scalar's: see _node_starts)
            return True
    checked = 0  # the end of the last flow collection taken (the ones inside it were checked with it)
    for match in _OPENING.finditer(text):  # where a node starts (elsewhere: inside a scalar)
        at = match.start()
        if at >= checked and _node_starts(text[text.rfind("\n", 0, at) + 1:at]):
            flow = _FLOW.match(text, at)
            if flow is None:
                return True
            checked = flow.end()
    return _HEADER.search(text) is not None or _EMPTY_KEY.search(text) is not None \
        or _AFTER_QUOTE.search(text) is not None


def _suspect(text: str) -> bool:
    if text[:1] in _SUSPECT_FIRST or "<<" in text:
        return True
    if not text.isascii():
        return _SUSPECT.search(text) is not None
    classes = text.translate(_CLASSES)
    return " !" in classes or "\n!" in classes or '" ' in classes or "\x00" in classes


def _node_starts(head: str) -> bool:
    """Whether a node may start after `head`, the text of its line before it: at the line's start, or after a
    key's colon or a dash. (On a line that starts with `#`, it is text: a comment, or a line of a block or quoted
    scalar.)"""
    before = head.rstrip(" ")
    return (before == "" or before == "-" or before.endswith((":", " -"))) and not before.lstrip(" ").startswith("#")


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
    if ('".' in out or '"-.' in out) and any(written in out for written in _NAN_INF) or '" ' in out \
            or _SPACE_BEFORE_QUOTE.search(out):
        raise _Decline
    found = set(_DOUBTFUL.findall(out))
    if not found <= _SETTLED_SET:  # (most are: the same few texts in every file)
        for content, colon in found - _SETTLED_SET:
            _check(content, bool(colon), text)
            if content and len(_SETTLED_SET) < 65536:
                _SETTLED_SET.add((content, colon))
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
    # libyaml takes a key of at most 1024 characters (as written, quotes and escapes included: a key of 100
    # characters is written in at most 1002); past that, any line of about that length may hold one.
    if keys and max(map(len, keys)) > 100 and max(map(len, text.split("\n"))) > 1000:
        raise _Decline
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


_SETTLED: dict[tuple[str, bool], bool] = {}
_SETTLED_SET: set[tuple[str, str]] = set()  # as _DOUBTFUL finds them: (text, the colon after a key or "")


def _check(content: str, key: bool, text: str) -> None:
    """Decline where the JSON string `content` may stand for a plain scalar documents.py reads otherwise."""
    if content == "":
        if "''" not in text and '""' not in text:
            raise _Decline  # no quoted empty scalar in the text: an empty plain one (null, or a null key)
        return
    settled = _SETTLED.get((content, key))
    if settled is None:
        settled = _SETTLED[(content, key)] = _settled(content, key)
    if not settled:
        raise _Decline


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
