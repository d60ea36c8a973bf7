"""Helm's `--set` and `--set-string` applied into the values of the `-f` files, as the Helm CLI does (its
strvals.ParseInto writes each expression into the values the files gave): `a[0].b=1` changes the first item
of a list a values file holds, and two expressions on one list item both apply. The embedded Helm SDK parses
an expression into a fresh map only, so this module walks the expression's keys as strvals reads them
(names up to `=`, `[`, `,` or `.`, a backslash escaping the next character) and lets Helm's own parser read
every value (its typing of `true`, `null`, `0`, `{a,b}`); a malformed expression is refused by Helm's parser
first, with its own message."""

from __future__ import annotations

from collections.abc import Callable

Parse = Callable[[str], dict]


class SetError(ValueError):
    """An expression Helm refuses against these values (a key that is not a map or list there)."""


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def until(self, stops: str) -> tuple[str, str | None]:
        """The runes up to one of `stops` (unescaped), and that stop; None at the end of the text."""
        out = []
        text = self.text
        while self.pos < len(text):
            rune = text[self.pos]
            self.pos += 1
            if rune in stops:
                return "".join(out), rune
            if rune == "\\":
                if self.pos >= len(text):
                    return "".join(out), None
                rune = text[self.pos]
                self.pos += 1
            out.append(rune)
        return "".join(out), None

    def value_text(self) -> str:
        """The value as written (escapes kept), for Helm's parser: a `{...}` list or the text up to `,`."""
        start = self.pos
        if self.text.startswith("{", start):
            self.pos += 1
            self.until("}")
            end = self.pos
            if self.text.startswith(",", self.pos):
                self.pos += 1
            return self.text[start:end]
        _, stop = self.until(",")
        return self.text[start:self.pos - 1 if stop == "," else self.pos]


def apply_set(values: dict, expression: str, parse: Parse) -> None:
    """Write one `--set` (`parse` Helm's parse_set_string) or `--set-string` (parse_set_string_values)
    expression into `values`, in place."""
    try:
        parse(expression)  # Helm's own checks and messages for a malformed expression
    except Exception as error:  # noqa: BLE001 - Helm's error type is the caller's module's
        if not ("key map" in str(error) and "has no value" in str(error)):
            raise  # ... but an empty map key (`a.=1`) is refused only where the values have no map there
    reader = _Reader(expression)
    while reader.pos < len(expression):
        if not _key(reader, values, parse):
            break  # the expression ended before a value: what it named is left as it was, as Helm leaves it


def keys_of(expression: str) -> list[str]:
    """The keys of one expression as written, in order (`a.b=1,c[0]=x\\,y` -> a.b, c[0]): a `,` escaped or
    inside a `{...}` list value separates nothing, as strvals reads it."""
    reader, keys = _Reader(expression), []
    while reader.pos < len(expression):
        start = reader.pos
        _, stop = reader.until("=,")
        if stop == "=":
            keys.append(expression[start:reader.pos - 1].strip())
            reader.value_text()
    return keys


def key_parts(key: str) -> list[str]:
    """A key as written in an expression, in its parts (`a.b[0]` -> a, b, 0; `kubernetes\\.io/os` one part): a
    backslash takes the next character as it is, as strvals reads keys."""
    reader, parts = _Reader(key), []
    while reader.pos < len(key):
        part, _stop = reader.until(".[]")
        if part:
            parts.append(part)
    return parts


def _value(reader: _Reader, parse: Parse) -> object:
    return parse("v=" + reader.value_text())["v"]


def _key(reader: _Reader, data: dict, parse: Parse) -> bool:
    """One `key...=value` into `data`; False when the text ends before the value."""
    name, stop = reader.until("=[,.")
    if stop is None:
        return False
    if stop == "[":
        index = int(reader.until("]")[0])
        current = data.get(name, [])
        if not isinstance(current, list):
            raise SetError(f"{name} is not a list in the values, so {name}[{index}] cannot be set")
        items, done = _list_item(reader, list(current), index, parse)
        if name:
            data[name] = items
        return done
    if stop == "=":
        value = _value(reader, parse)
        if name:
            data[name] = value
        return True
    if stop == ".":
        inner = data.get(name, {})
        if not isinstance(inner, dict):
            raise SetError(f"{name} is not a map in the values, so a key under it cannot be set")
        done = _key(reader, inner, parse)
        if done and not inner:
            raise SetError(f'key map "{name}" has no value')
        if inner and name:
            data[name] = inner
        return done
    return True  # a ",": Helm's parser has refused it already


def _list_item(reader: _Reader, items: list, index: int, parse: Parse) -> tuple[list, bool]:
    _, stop = reader.until("[.=")
    if stop is None:
        return items, False
    if stop == "=":
        value = _value(reader, parse)
    elif stop == "[":
        nested = int(reader.until("]")[0])
        current = items[index] if index < len(items) and items[index] is not None else []
        if not isinstance(current, list):
            raise SetError(f"item {index} is not a list in the values, so item [{nested}] of it cannot be set")
        value, done = _list_item(reader, list(current), nested, parse)
        if not done:
            return items, False
    else:  # "." : a map item, kept and written into when the list has one at this index
        value = items[index] if index < len(items) and isinstance(items[index], dict) else {}
        if index < len(items):
            items[index] = value  # an item of another kind is made a map before the key is read, as Helm does
        if not _key(reader, value, parse):
            return items, False
    if len(items) <= index:
        items.extend([None] * (index + 1 - len(items)))
    items[index] = value
    return items, True
