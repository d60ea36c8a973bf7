"""What a fixer proposes (edit/fixers.py and its neighbours read the model and yield these): set an env var in
a container, take one from a Secret, set or remove a field, remove list items, add a flag after a word of a
command, quote a scalar as written, or say that a finding has no single answer. edit/fix.py applies them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dgdlint.model import Container, KObject


@dataclass
class SetEnv:
    rule: str
    obj: KObject
    container: Container
    name: str
    value: str
    why: str
    reported_on: tuple = ()  # the objects the rule reports the finding on, when not `obj`


@dataclass
class AddFlag:
    rule: str
    obj: KObject
    path: tuple  # the command/args element holding the word the flag goes after
    after: str
    flag: str
    why: str


@dataclass
class SetField:
    """Write `key: value` into the mapping at `path` of an object, before `before` when that key is there.
    The value is a string, a mapping of strings, or a list of mappings of strings."""

    rule: str
    obj: KObject
    path: tuple
    key: str
    value: str | list | dict
    why: str
    before: str = ""


@dataclass
class FromSecret:
    """Make the env entry at `path` take its value from key `key` of Secret `secret`, in place of its literal
    value or other source."""

    rule: str
    obj: KObject
    path: tuple
    secret: str
    key: str
    why: str
    own: bool = False  # the entry's own secretKeyRef, written beside the literal: kept as it is (optional too)


@dataclass
class DeleteItems:
    """Take the items at `indexes` out of the list at `path` of an object (their comments go with them)."""

    rule: str
    obj: KObject
    path: tuple
    indexes: tuple[int, ...]
    why: str


@dataclass
class DeleteKeys:
    """Take the keys at `paths` out of their mappings, and a mapping they leave empty out of its own."""

    rule: str
    obj: KObject
    paths: tuple[tuple, ...]
    why: str


@dataclass
class QuoteScalar:
    """Write the value at `path` (a plain scalar YAML reads as no string) as its own text in double quotes:
    the text as written, read from the file (`1.0` stays "1.0", `0x1F` "0x1F"), never the value made text.
    `doubt` is asked of that text and may name why the quoted text is not the one answer (then a note)."""

    rule: str
    obj: KObject
    path: tuple
    value: object  # the value the model read there: the text is checked to read as it
    what: str  # e.g. "DynamoGraphDeployment x: annotation a": the note says what it became
    doubt: Callable[[str], str | None] | None = None
    why: str = ""  # written when the text is read


@dataclass
class Ambiguous:
    rule: str
    obj: KObject
    path: tuple
    message: str
    reported_on: tuple = ()
