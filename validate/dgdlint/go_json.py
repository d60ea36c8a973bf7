"""Go's encoding/json reading a JSON text into a Go type, the type described by the CRD schema generated
from it (controller-gen writes one schema node per Go field). What Go takes and what it refuses:

- the text must be JSON (no NaN, no comments); `null` fits anything and leaves the value unset;
- an object's keys find their struct field by name, exactly or else ignoring case; a key that names no
  field is ignored (so a CRD's `additionalProperties: false` does not apply, nor do its enums, patterns,
  bounds or CEL rules: only the Go types count);
- a value of the wrong JSON type for its field (a string for a bool, `1.5` or `1e3` for an int, an int
  beyond the field's 32 or 64 bits) is an error, and one error anywhere fails the whole decode;
- a key seen twice decodes again into the same field: an object merges into what the first one set,
  anything else replaces it.

Quantities (`x-kubernetes-int-or-string` with the quantity pattern) take a string or a number that
resource.ParseQuantity reads (the string as written between its quotes, escapes undecoded, trimmed as Go
trims), int-or-string takes a string or a 32-bit integer. The bundled schemas keep an integer's
width only as its bounds (maximum 2147483647 for int32); Go's time fields (metav1.Time, RFC 3339 text)
are named by the caller, as the schemas no longer mark them."""

from __future__ import annotations

import base64
import binascii
import json
import json.scanner
import math
import re
from dataclasses import dataclass
from decimal import Decimal

from dgdlint.go_time import rfc3339_problem
from dgdlint.quantity import go_quantity
from dgdlint.scalars import go_trim_space

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
BYTES = {"x-go-bytes": True}  # a Go []byte: base64 text, or a list of numbers 0..255


class Pairs(list):
    """A JSON object as its (key, value) pairs, in order and with any key written twice."""


@dataclass(frozen=True)
class Number:
    """A JSON number kept as written, for Go to read as its field's type."""

    text: str  # as written: Go reads it for the field's type


class Text(str):
    """A JSON string's value that remembers the string as written between its quotes, escapes and all: a
    type with its own UnmarshalJSON may read those bytes rather than the value (resource.Quantity does)."""

    __slots__ = ("raw",)


class _Decoder(json.JSONDecoder):
    """Python's JSON decoder, its scanner the pure-Python one, which takes string values from parse_string."""

    def __init__(self, **options):
        super().__init__(**options)
        read = self.parse_string

        def parse_string(text: str, end: int, strict: bool):
            value, after = read(text, end, strict)
            kept = Text(value)
            kept.raw = text[end:after - 1]
            return kept, after

        self.parse_string = parse_string
        self.scan_once = json.scanner.py_make_scanner(self)


class TooDeep(Exception):
    """Nested deeper than Python's parser goes (Go's goes to 10000 levels): dgdlint cannot tell."""


class Undecodable(Exception):
    def __init__(self, path: tuple, problem: str):
        super().__init__(problem)
        self.path = path
        self.problem = problem


def parse(text: str):
    """The JSON text, objects as Pairs, numbers as Number and string values as Text; ValueError when Go's
    parser refuses it, TooDeep when dgdlint cannot read it."""
    def no_constant(name):
        raise ValueError(f"{name} is not JSON")

    try:
        return json.loads(text, cls=_Decoder, object_pairs_hook=Pairs, parse_int=Number, parse_float=Number,
                          parse_constant=no_constant)
    except RecursionError:
        raise TooDeep() from None


def _kind(value) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, Number):
        return f"the number {value.text}"
    if isinstance(value, Pairs):
        return "an object"
    return "a list" if isinstance(value, list) else "a string"


_MOST_DIGITS = 4000


def plain(value):
    """A parsed value as plain Python (objects as dicts, the last of a repeated key winning)."""
    if isinstance(value, Pairs):
        return {key: plain(item) for key, item in value}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, Number):
        number = float(value.text)
        # Python reads at most 4,300 digits as an int; so many are beyond any integer of Go's anyway
        whole = _INTEGER.fullmatch(value.text) and len(value.text) <= _MOST_DIGITS
        return int(value.text) if whole else number
    return value


def _integer(value, node: dict, path: tuple) -> int:
    limit = INT32_MAX if node.get("maximum") == INT32_MAX else INT64_MAX
    if not isinstance(value, Number) or not _INTEGER.fullmatch(value.text):
        raise Undecodable(path, f"is {_kind(value)}, where Go wants a whole number")
    if len(value.text.lstrip("-")) > 20:  # beyond 64 bits, and maybe beyond what Python reads as an int
        raise Undecodable(path, f"is a whole number of {len(value.text.lstrip('-'))} digits, beyond Go's "
                                f"{32 if limit == INT32_MAX else 64}-bit integer")
    number = int(value.text)
    if not -limit - 1 <= number <= limit:
        raise Undecodable(path, f"is {value.text}, beyond Go's {32 if limit == INT32_MAX else 64}-bit integer")
    return number


def _written(value: str) -> str:
    """A string as its JSON text wrote it between the quotes: Quantity's UnmarshalJSON parses those bytes,
    escapes undecoded (`"\\u0031Gi"` is no quantity)."""
    return value.raw if isinstance(value, Text) else value


def _scalar(value, node: dict, path: tuple, times: set):
    kind = node.get("type")
    if node.get("x-kubernetes-int-or-string"):
        if "pattern" in node:  # resource.Quantity: what is written, trimmed as Go trims, read by ParseQuantity
            text = go_trim_space(_written(value)) if isinstance(value, str) else value.text \
                if isinstance(value, Number) else None
            if text is None or go_quantity(text) is None:
                raise Undecodable(path, f"is {_kind(value)}, not a quantity")
            return text
        return value if isinstance(value, str) else _integer(value, {"maximum": INT32_MAX}, path)
    if node.get("x-go-bytes"):
        if isinstance(value, list) and not isinstance(value, Pairs):
            # each a uint8: null leaves it 0, and Go's ParseUint takes no sign, so even -0 is refused
            numbers = [0 if item is None else _integer(item, {}, path + (i,)) for i, item in enumerate(value)]
            if any(not 0 <= number <= 255 or (item is not None and item.text.startswith("-"))
                   for number, item in zip(numbers, value, strict=True)):
                raise Undecodable(path, "holds a number that is no byte (0 to 255, no sign)")
            return bytes(numbers)
        if isinstance(value, str):
            try:
                return base64.b64decode(value.replace("\r", "").replace("\n", ""), validate=True)
            except (binascii.Error, ValueError):
                raise Undecodable(path, "is not base64 text") from None
        raise Undecodable(path, f"is {_kind(value)}, where Go wants base64 text")
    if kind == "string":
        if not isinstance(value, str):
            raise Undecodable(path, f"is {_kind(value)}, where Go wants a string")
        if path and _time_key(path) in times and (problem := rfc3339_problem(value)):
            raise Undecodable(path, f"is {value!r}, not an RFC 3339 time: it {problem}")
        return value
    if kind == "boolean":
        if not isinstance(value, bool):
            raise Undecodable(path, f"is {_kind(value)}, where Go wants true or false")
        return value
    if kind == "integer":
        return _integer(value, node, path)
    if kind == "number":
        if not isinstance(value, Number) or not math.isfinite(float(value.text)):
            raise Undecodable(path, f"is {_kind(value)}, where Go wants a number")
        return float(value.text)
    # no type, or an object whose fields the schema leaves open (apiextensionsv1.JSON, json.RawMessage,
    # a schemaless struct): dgdlint cannot see a Go type there, and takes anything
    return plain(value)


def _fold(name: str) -> str:
    """A key as Go matches it to a field name ignoring case (bytes.EqualFold, Unicode's simple folding).
    Field names are ASCII, and the only other letters that fold onto ASCII ones are the Kelvin sign
    (K, which lower() makes k) and the long s (ſ, which it leaves)."""
    return name.lower().replace("\u017f", "s")


def _time_key(path: tuple) -> tuple:
    return tuple("*" if isinstance(part, int) else str(part).lower() for part in path)


def decode(value, node: dict | None, path: tuple = (), times: frozenset = frozenset(), into=None):
    """`value` (parsed) as Go's decoder puts it into the type of schema `node`: objects as dicts keyed by
    the field names (unknown keys dropped), None for null. Raises Undecodable at the first value, in
    document order, that Go cannot put into its field. `times`: the paths (lower case, `*` for a list
    index) of RFC 3339 time fields."""
    if value is None:
        return None
    node = node or {}
    kind = node.get("type")
    if kind == "array":
        if not isinstance(value, list) or isinstance(value, Pairs):
            raise Undecodable(path, f"is {_kind(value)}, where Go wants a list")
        return [decode(item, node.get("items"), path + (index,), times) for index, item in enumerate(value)]
    if kind == "object" and ("properties" in node or isinstance(node.get("additionalProperties"), dict)):
        if not isinstance(value, Pairs):
            raise Undecodable(path, f"is {_kind(value)}, where Go wants an object")
        out = dict(into) if isinstance(into, dict) else {}
        fields = node.get("properties") or {}
        folded = {_fold(name): name for name in reversed(list(fields))}
        for key, item in value:
            if fields:
                name = key if key in fields else folded.get(_fold(key))
                if name is None:
                    continue  # no such field: Go ignores it
                inner = fields[name]
            else:
                name, inner = key, node["additionalProperties"]
            out[name] = decode(item, inner, path + (key,), times, out.get(name))
        return out
    if kind == "object" and not node.get("x-kubernetes-preserve-unknown-fields"):
        if not isinstance(value, Pairs):
            raise Undecodable(path, f"is {_kind(value)}, where Go wants an object")
        return plain(value)
    return _scalar(value, node, path, times)


def _go_float(value: float) -> str:
    """Go's encoding/json text of a float64: the shortest digits that read back, positional between 1e-6
    and 1e21, else with an exponent of at least one digit (`1e-7`, `1e+21`)."""
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    sign, digits, exponent = Decimal(repr(value)).as_tuple()
    figures = "".join(map(str, digits)).rstrip("0") or "0"
    power = exponent + len(digits) - 1  # of the first figure
    minus = "-" if sign else ""
    if abs(value) < 1e-6 or abs(value) >= 1e21:
        body = figures[0] + ("." + figures[1:] if len(figures) > 1 else "")
        shown = f"{abs(power):02d}" if power >= 0 else str(abs(power))
        return f"{minus}{body}e{'-' if power < 0 else '+'}{shown}"
    if power < 0:
        return f"{minus}0.{'0' * (-power - 1)}{figures}"
    whole, fraction = figures[:power + 1].ljust(power + 1, "0"), figures[power + 1:]
    return f"{minus}{whole}" + (f".{fraction}" if fraction else "")


_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _go_string(text: str) -> str:
    """Go's encoding/json text of a string: HTML-safe (`<`, `>` and `&` escaped), U+2028 and U+2029
    escaped, other control characters as \\u00XX, and a lone surrogate (no UTF-8) as \\ufffd."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif code < 0x20 or char in "<>&" or code in (0x2028, 0x2029):
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\\ufffd")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def marshal(value) -> str:
    """`value` (as the loader reads a manifest) as Go's json.Marshal writes it, compact and with the keys of
    a map sorted: the JSON text kubectl sends for YAML (sigs.k8s.io/yaml), byte for byte."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return _go_string(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{_go_string(str(key))}:{marshal(item)}"
                              for key, item in sorted(value.items(), key=lambda pair: str(pair[0]).encode())) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(marshal(item) for item in value) + "]"
    return _go_string(str(value))
