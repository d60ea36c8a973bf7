"""Scalars typed as Kubernetes' YAML reader types them.

kubectl and the API server turn YAML into JSON with sigs.k8s.io/yaml, whose YAML side is go-yaml v2. Its
rules for a plain scalar are not YAML 1.1's as PyYAML implements them, and they decide what the server
sees: `y` and `n` are booleans, `12:30` is text (no base 60), `0o17`, `0X1F`, `09` and `1e3` are numbers,
`.inf` and `.nan` cannot be carried in JSON at all (the server refuses the object). A mapping key is
typed the same way and then written as text (`y:` is the key "true"; a null key is refused).

This module is written from go-yaml v2's resolver and Go's strconv rules, and is checked case by case
against a real API server (tests/cluster/test_yaml_scalars.py)."""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct
from datetime import date

from dgdlint.scalars import INT64_RANGE

CORE = "tag:yaml.org,2002:"
NULL, BOOL, INT, FLOAT, STR = CORE + "null", CORE + "bool", CORE + "int", CORE + "float", CORE + "str"
TIMESTAMP, BINARY = CORE + "timestamp", CORE + "binary"
_RESOLVED_TAGS = {NULL, BOOL, INT, FLOAT, TIMESTAMP}
UINT64_MAX = 2**64 - 1


class Refused(ValueError):
    """A scalar Kubernetes' YAML reader refuses; the message never repeats the value (it may be a secret)."""

    def __init__(self, message: str, remediation: str):
        super().__init__(message)
        self.message = message
        self.remediation = remediation


# Whole texts with a fixed meaning; only these texts can start with y, n, t, f, o or ~ and mean anything.
_FIXED: dict[str, object] = {"": None, "~": None, "null": None, "Null": None, "NULL": None}
for _texts, _value in ((("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
                       (("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
                       ((".nan", ".NaN", ".NAN"), math.nan),
                       ((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
                       (("-.inf", "-.Inf", "-.INF"), -math.inf)):
    _FIXED.update(dict.fromkeys(_texts, _value))

_DIGITS = {2: frozenset("01"), 8: frozenset("01234567"), 10: frozenset("0123456789"),
           16: frozenset("0123456789abcdefABCDEF")}
_PREFIXES = {"b": 2, "o": 8, "x": 16}
# A number as go-yaml's float pattern has it (checked after every underscore is dropped) ...
_YAML_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?", re.ASCII)
# ... and a text starting with a dot as Go's ParseFloat reads it (an underscore only between two digits).
_DOT_FLOAT = re.compile(r"\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?", re.ASCII)
_TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
                        r"(?:([Tt ])([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:\.[0-9]+)?(Z|[-+][0-9]{2}:[0-9]{2})?)?",
                        re.ASCII)


def _parse_uint(text: str) -> int | None:
    """Go's strconv.ParseUint(text, 0, 64): a 0b/0o/0x prefix (either case) or a leading 0 (octal)."""
    if not text:
        return None
    base = 10
    if text[0] == "0":
        if len(text) >= 3 and text[1].lower() in _PREFIXES:
            base, text = _PREFIXES[text[1].lower()], text[2:]
        else:
            base, text = 8, text[1:]
    if not set(text) <= _DIGITS[base]:
        return None
    text = text.lstrip("0")
    if len(text) > 64:  # past 64 binary digits: out of range in any base (and never a long int() here)
        return None
    value = int(text, base) if text else 0
    return value if value <= UINT64_MAX else None


def _parse_int(text: str) -> int | None:
    """Go's strconv.ParseInt(text, 0, 64), falling back to ParseUint (no sign) for the range above int64."""
    sign, body = (-1, text[1:]) if text[:1] == "-" else (1, text[1:]) if text[:1] == "+" else (1, text)
    magnitude = _parse_uint(body)
    if magnitude is not None and INT64_RANGE[0] <= sign * magnitude <= INT64_RANGE[1]:
        return sign * magnitude
    if text[:1] not in "+-":
        return magnitude  # an unsigned 64-bit integer: above int64, still an integer to go-yaml
    return None


def _finite(text: str) -> float | None:
    value = float(text)
    return value if math.isfinite(value) else None  # Go's ParseFloat fails past the float64 range


def is_timestamp(text: str) -> bool:
    """The date and date-time forms go-yaml v2 reads as a timestamp (a real calendar date)."""
    match = _TIMESTAMP.fullmatch(text)
    if match is None:
        return False
    year, month, day = int(match[1]), int(match[2]), int(match[3])
    try:
        date(year or 2000, month, day)  # year 0 is a leap year, as 2000 is
    except ValueError:
        return False
    if match[4] is None:
        return True
    if (match[4] == " ") != (match[8] is None):  # with a T a zone is required; with a space there is none
        return False
    hour, minute, second = int(match[5]), int(match[6]), int(match[7])
    return hour < 24 and minute < 60 and second < 60


def resolve_plain(text: str) -> tuple[str, object]:
    """(tag, value) of a plain scalar. Integers above int64 stay int here (go-yaml holds them as uint64)."""
    if text in _FIXED:
        value = _FIXED[text]
        tag = NULL if value is None else BOOL if isinstance(value, bool) else FLOAT
        return tag, value
    first = text[0]
    if first == ".":
        if _DOT_FLOAT.fullmatch(text):
            value = _finite(text.replace("_", ""))
            if value is not None:
                return FLOAT, value
    elif "0" <= first <= "9" or first in "+-":
        if len(text) > 4 and text[4] == "-" and text[:4].isdigit() and text[:4].isascii():
            return (TIMESTAMP if is_timestamp(text) else STR), text  # never a number: text either way
        plain = text.replace("_", "")
        integer = _parse_int(plain)
        if integer is not None:
            return INT, integer
        if _YAML_FLOAT.fullmatch(plain):
            value = _finite(plain)
            if value is not None:
                return FLOAT, value
    return STR, text


_WANTED = {NULL: "null", BOOL: "true or false", INT: "an integer", FLOAT: "a number", TIMESTAMP: "a timestamp"}


def resolve_tagged(tag: str, text: str) -> object:
    """The value of a scalar with an explicit tag, or Refused where go-yaml refuses the pair."""
    if tag == BINARY:
        try:
            return base64.b64decode("".join(text.split()), validate=True).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            raise Refused("the value tagged !!binary is not base64 (Kubernetes' YAML reader refuses it)",
                          "Write base64 text, or drop the tag.") from None
    if tag not in _RESOLVED_TAGS:
        return text  # !!str, the non-specific `!`, local and unknown tags: the text itself
    resolved, value = resolve_plain(text)
    if resolved == tag:
        return text if tag == TIMESTAMP else value
    if tag == FLOAT and resolved == INT:
        return float(value)
    raise Refused(f"the value tagged !!{tag[len(CORE):]} is not {_WANTED[tag]} (Kubernetes' YAML reader refuses it)",
                  f"Write {_WANTED[tag]}, or drop the tag.")


def value_of(resolved: object) -> object:
    """A typed scalar as the API server reads it from the JSON kubectl sends: a number is an integer when its
    JSON text is one within int64 (`1e3` and `1.0` are written 1000 and 1), else a float; .inf and .nan are
    refused (JSON has no such numbers). An integer above int64 that go-yaml holds as uint64 keeps its digits:
    the JSON carries them, and a built-in quantity reads them exactly (a request of 9223372036854775809 is
    above a limit of 9223372036854775808); a custom resource takes it for a float (the schema's `integer`
    check, schema.openapi.kubernetes_validator)."""
    kind = type(resolved)
    if kind is float:
        if not math.isfinite(resolved):
            raise Refused("an infinite or NaN number (.inf, .nan): JSON cannot carry it, and the API server "
                          "refuses the object", "Quote it if it is text; otherwise write a finite number.")
        if resolved.is_integer():
            from decimal import Decimal  # here: a whole float is rare, and start-up is not the place

            whole = int(Decimal(repr(resolved)))  # Go's JSON encoder writes the shortest digits, then zeros
            if INT64_RANGE[0] <= whole <= INT64_RANGE[1]:
                return whole
    return resolved


def key_text(resolved: object) -> str:
    """A typed mapping key as the text sigs.k8s.io/yaml makes of it."""
    if type(resolved) is str:
        return resolved
    if resolved is None:
        raise Refused("a null mapping key (empty, ~ or null): Kubernetes' YAML reader refuses it",
                      'Name the key; quote it ("null") if that text is meant.')
    if isinstance(resolved, bool):
        return "true" if resolved else "false"
    if isinstance(resolved, int):
        if resolved > INT64_RANGE[1]:
            raise Refused("an integer mapping key above the int64 range: Kubernetes' YAML reader refuses it",
                          "Quote the key.")
        return str(resolved)
    return go_float32_text(float(resolved))


def go_float32_text(value: float) -> str:
    """Go's strconv.FormatFloat(value, 'g', -1, 32), with YAML's names for infinities and NaN."""
    if math.isnan(value):
        return ".nan"
    try:
        single = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        single = math.copysign(math.inf, value)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    if single == 0:
        return "-0" if math.copysign(1, single) < 0 else "0"
    for places in range(9):  # the fewest significant digits that read back as the same float32
        text = f"{single:.{places}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            break
    mantissa, exponent = text.split("e")
    sign = "-" if mantissa.startswith("-") else ""
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    power = int(exponent)
    if power < -4 or power >= 6:  # %e, as Go chooses it for the shortest form
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if power < 0 else '+'}{abs(power):02d}"
    if power < 0:
        return f"{sign}0.{'0' * (-power - 1)}{digits}"
    whole, fraction = digits[:power + 1].ljust(power + 1, "0"), digits[power + 1:]
    return f"{sign}{whole}" + (f".{fraction}" if fraction else "")
