"""What load.fast leaves to documents.py before parsing: texts rapidyaml does not read as libyaml and Kubernetes'
YAML reader do, or with bounds it does not check. Each case here is a disagreement the comparison tests
(tests/load/test_fast_reader.py) or a review found. These searches run on every file a check reads, so each is
written to be quick: plain substrings where they do, and each slower search only where one translation of the
text into classes of characters (_CLASSES) shows the characters it needs, side by side."""

from __future__ import annotations

import re

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
# A flow collection on one line, of plain words and quoted text without escapes (or such collections, one
# level down), and nothing after it but a comment: what manifests write in flow style (`[ReadWriteOnce]`,
# `{limits: {cpu: "1"}}`). Others are where the two parsers part ways (rapidyaml takes `{a:, b}` and
# `[a] - b`, which libyaml refuses).


def _flow(item: str) -> str:
    return (rf"""(?:\[ *(?:{item}(?: *, *{item})* *,? *)?\]|\{{ *(?:{item}(?:: +{item})?"""
            rf"""(?: *, *{item}(?:: +{item})?)* *,? *)?\}})""")


_WORD = r"""(?:"[^"\\\n]*"|'[^'\n]*'|[A-Za-z0-9_./=+-]+)"""
_FLOW = _flow(f"(?:{_WORD}|{_flow(_WORD)})") + r" *(?:#[^\n]*)?(?:\n|\Z)"  # (compiled where first needed: 5 ms)
_OPENING = re.compile(r"[\[{]")
# What libyaml refuses and rapidyaml takes, or reads otherwise (each searched for only where a quick test of the
# text finds what it needs): a block scalar's header (after a key, a dash or at a line's start) with more than
# its chomping indicator after it (rapidyaml drops an indentation indicator's spaces, and takes a `-` or `+` in
# a comment there for one), or at a line's start (the whole document: nothing may follow it); a node on a
# `---` line; a line of dots (a document end marker
# where libyaml takes none); a key left empty (`: x`); a quoted scalar with more after it on its line
# (`- "1"   - x`).
_HEADER = re.compile(r"(?:^|: |- ) *[|>](?![-+]? *$)|^[|>]|^--- *[^\s#]", re.MULTILINE)
_EMPTY_KEY = re.compile(r"(?:^|- ) *:(?: |$)", re.MULTILINE)
_AFTER_QUOTE = re.compile(r"""["'] +[^\s#:,\]}]""")
# Each search above runs only where one look at the text, written in classes of characters (str.translate: one pass
# in C), finds the pair of characters it needs: its indicator after what may come before it (`_preceded`).
# Plain substrings search that text quickly where a regular expression starting with a class of characters
# would test every position (several times as long, for each search).
_CLASSES = str.maketrans({chr(code): "\x00" if code < 32 and code != 10 or code == 127
                          else "[" if chr(code) in "[{" else "]" if chr(code) in "]},%@`"
                          else "&" if chr(code) in "&*!?" else "|" if chr(code) in "|>"
                          else '"' if chr(code) in "'\"" else chr(code) if chr(code) in " \n:-"
                          else "x" for code in range(128)})
_DEEP = re.compile(r"\n[ -]{60}")  # (a literal first: searched quickly)
# Escapes rapidyaml reads otherwise in a double-quoted scalar: a surrogate (`\ud800`, refused by libyaml), an
# escaped line break or a line of an escaped space (folded otherwise), `\L` and `\P` (which it writes over
# the escapes after them).
_ESCAPES = re.compile(r"\\(?:u|U0000)[dD][89a-fA-F]|\\\n|\n *\\ |\\[LP]")
_QUOTE_COLON = re.compile(r"""["'] *:(?: |\n|$)""")
_LONG_LINE = re.compile(r"\n[^\n]{1000}")


def declined(text: str, quick: bool = True) -> bool:
    """Whether load.fast must leave `text` to documents.py (see the module's docstring and the notes above).
    `quick=False` runs every search whatever the text holds (the tests compare both answers)."""
    if len(text) > MAX_TEXT or text.count("[") + text.count("{") > MAX_FLOW_OPENINGS:
        return True
    if not text.isascii() and re.compile(_NOT_PLAIN_TEXT).search(text) is not None:
        return True
    if not text.endswith("\n") and ("|" in text or ">" in text):
        return True  # a block scalar may end the text: rapidyaml gives it the line break the text does not have
    lines = "\n" + text  # (each line after a line break: the searches that start with one find every line)
    if _DEEP.search(lines) is not None or "..." in text:
        return True  # (`...` is a document end marker where it starts a line: libyaml wants `---` after it)
    if "\\" in text and _ESCAPES.search(text) is not None:
        return True
    if _LONG_LINE.search(lines) is not None:
        return True  # libyaml takes an implicit key of at most 1024 characters (spaces before its colon too)
    if quick:
        return _searched(text, text.translate(_CLASSES))
    return _CONTROL.search(text) is not None or text.startswith("%") or "\n%" in text or "<<" in text \
        or _closes_a_key(text) or _indicates(text) or _flow_refused(text) \
        or _HEADER.search(text) is not None or _EMPTY_KEY.search(text) is not None \
        or _AFTER_QUOTE.search(text) is not None


def _searched(text: str, classes: str) -> bool:
    """The searches of `declined` after its bounds, each where `classes` (the text in classes of characters)
    holds what it looks for: the same answer as running them all."""
    return "\x00" in classes or text.startswith("%") or "\n%" in text or "<<" in text \
        or _closes_a_key(text, classes) \
        or ((_preceded(classes, "&", " \n[]") or _preceded(classes, "]", " \n:-")) and _indicates(text)) \
        or (_preceded(classes, "[", " \n:-") and _flow_refused(text)) \
        or ((_preceded(classes, "|", " \n") or text.startswith("---") or "\n---" in text)
            and _HEADER.search(text) is not None) \
        or ((classes.startswith(":") or " :" in classes or "\n:" in classes) and _EMPTY_KEY.search(text) is not None) \
        or ('" ' in classes and _AFTER_QUOTE.search(text) is not None)


def _preceded(classes: str, char: str, before: str) -> bool:
    """Whether `char` starts `classes` or follows one of the characters of `before` in it: its first few
    occurrences looked at one by one (most indicators are rare), then every pair searched for."""
    at = classes.find(char)
    for _ in range(_LOOKED_AT):
        if at < 0:
            return False
        if at == 0 or classes[at - 1] in before:
            return True
        at = classes.find(char, at + 1)
    return any(first + char in classes for first in before)


_LOOKED_AT = 8


def _indicates(text: str) -> bool:
    """Whether an anchor, alias, tag or complex key, or a node starting with an indicator a plain scalar cannot
    start with, is in `text`."""
    for match in _INDICATOR.finditer(text):
        at, char = match.start(), match[0]
        head = _head(text, at)
        if char in "&*!?":
            found = (not head or head[-1] in _AFTER) and (char != "?" or text[at + 1:at + 2] in ("", " ", "\n"))
        else:
            found = _node_starts(head)
        if found and not head.lstrip(" ").startswith("#"):  # (a comment's text, or a scalar's: see _node_starts)
            return True
    return False


def _flow_refused(text: str) -> bool:
    """Whether a flow collection where a node starts is other than _FLOW takes."""
    flows = re.compile(_FLOW)  # (re keeps it compiled for the run)
    checked = 0  # the end of the last flow collection taken (the ones inside it were checked with it)
    for match in _OPENING.finditer(text):  # where a node starts (elsewhere: inside a scalar)
        at = match.start()
        if at >= checked and _node_starts(_head(text, at)):
            flow = flows.match(text, at)
            if flow is None:
                return True
            checked = flow.end()
    return False


def _closes_a_key(text: str, classes: str | None = None) -> bool:
    """Whether a quote followed by a colon may close a quoted key that started on an earlier line, which libyaml
    refuses (an implicit key is on one line) and rapidyaml takes: unless the quoted scalars of its line, read
    from the line's start, close exactly at it. With `classes` (the text in classes of characters), only where
    a quote is followed by a space or a colon, and a line where a key is quoted from its start is read quickly."""
    if classes is None:
        return any(not _closes_on_its_line(_head(text, match.start()) + text[match.start()])
                   for match in _QUOTE_COLON.finditer(text))
    for pair in ('":', '" '):
        at = classes.find(pair)
        while at >= 0:
            if _QUOTE_COLON.match(text, at) is not None:
                line = _head(text, at) + text[at]
                if not (_quoted_from_its_start(line) or _closes_on_its_line(line)):
                    return True
            at = classes.find(pair, at + 1)
    return False


def _quoted_from_its_start(line: str) -> bool:
    """Whether `line` ends a quoted scalar that opens after its spaces and dashes, with no quote of its kind and
    no backslash inside it: what _closes_on_its_line answers True for, read in C."""
    quote, opened = line[-1], line.lstrip(" -")
    return opened.count(quote) == 2 and opened[0] == quote and "\\" not in opened


def _closes_on_its_line(line: str) -> bool:
    """Whether the quote that ends `line` closes a quoted scalar opened on the line (one starting at the line's
    start or after a space or an indicator; `''` inside single quotes and a backslash's escape inside double
    ones are no end)."""
    quote, at, last = "", 0, len(line) - 1
    while at <= last:
        char = line[at]
        if quote == "'":
            if char == "'":
                if at < last and line[at + 1] == "'":
                    at += 2
                    continue
                if at == last:
                    return True
                quote = ""
        elif quote == '"':
            if char == "\\":
                at += 2
                continue
            if char == '"':
                if at == last:
                    return True
                quote = ""
        elif char in "'\"" and (at == 0 or line[at - 1] in " -:[{,?"):
            quote = char
        at += 1
    return False


def _head(text: str, at: int) -> str:
    """The text of the line before position `at`."""
    return text[text.rfind("\n", 0, at) + 1:at]


def _node_starts(head: str) -> bool:
    """Whether a node may start after `head`, the text of its line before it: at the line's start, or after a
    key's colon or a dash. (On a line that starts with `#`, it is text: a comment, or a line of a block or quoted
    scalar.)"""
    before = head.rstrip(" ")
    return (before == "" or before == "-" or before.endswith((":", " -"))) and not before.lstrip(" ").startswith("#")
