"""Kubernetes' CEL libraries that the evaluator does not ship, as declarations for cel-expr-python:
quantities (`quantity`, `isQuantity`, `isGreaterThan`, `add`, ...), the list library (`isSorted`, `sum`,
`min`, `max`, `indexOf`, `lastIndexOf`), regular expressions (`find`, `findAll`) and the optional
`oldSelf` of transition rules (`hasValue`, `value`, `orValue`).

The string library (`lowerAscii`, `split`, `join`, `replace`, ...) is cel-go's strings extension, which
the evaluator ships as its own `ExtStrings`. A quantity travels through CEL as a one-key map holding its
exact decimal value, so that `==` compares quantities by value, as Kubernetes does."""

from __future__ import annotations

import re
from decimal import Decimal

from dgdlint.quantity import go_quantity, parse_quantity

QUANTITY_KEY = "kubernetes.Quantity"
OPTIONAL_KEY = "kubernetes.optional"


class CelFunctionError(ValueError):
    """Raised inside a function: CEL turns it into an evaluation error of the rule."""


# --- quantities -----------------------------------------------------------------------------------

def quantity(text: str) -> dict:
    value = parse_quantity(text) if isinstance(text, str) else None
    if value is None:
        raise CelFunctionError(f"quantities must match the regular expression of Kubernetes quantities: {text!r}")
    return _as_quantity(value)


def is_quantity(text: str) -> bool:
    return isinstance(text, str) and go_quantity(text) is not None


def _as_quantity(value: Decimal) -> dict:
    return {QUANTITY_KEY: format(value.normalize(), "f")}


def _value(q: object) -> Decimal:
    if not isinstance(q, dict) or set(q) != {QUANTITY_KEY}:
        raise CelFunctionError("no such overload: the receiver is not a quantity")
    return Decimal(q[QUANTITY_KEY])


def _operand(other: object) -> Decimal:
    if isinstance(other, bool):
        raise CelFunctionError("no such overload")
    if isinstance(other, int):
        return Decimal(other)
    return _value(other)


def compare_to(a: dict, b: dict) -> int:
    left, right = _value(a), _value(b)
    return (left > right) - (left < right)


def is_integer(q: dict) -> bool:
    value = _value(q)
    return value == value.to_integral_value() and abs(value) < 2**63


def as_integer(q: dict) -> int:
    if not is_integer(q):
        raise CelFunctionError("cannot convert value to integer")
    return int(_value(q))


def sign(q: dict) -> int:
    value = _value(q)
    return (value > 0) - (value < 0)


QUANTITY_FUNCTIONS = {
    # name: (is_member, parameter kinds, result kind, implementation); kinds: q quantity, s string, i int...
    "quantity": (False, "s", "q", quantity),
    "isQuantity": (False, "s", "b", is_quantity),
    "isGreaterThan": (True, "qq", "b", lambda a, b: compare_to(a, b) > 0),
    "isLessThan": (True, "qq", "b", lambda a, b: compare_to(a, b) < 0),
    "compareTo": (True, "qq", "i", compare_to),
    "isInteger": (True, "q", "b", is_integer),
    "asInteger": (True, "q", "i", as_integer),
    "asApproximateFloat": (True, "q", "d", lambda q: float(_value(q))),
    "sign": (False, "q", "i", sign),  # sign(q): Kubernetes declares no member overload, whatever its docs say
    "add": (True, "qq", "q", lambda a, b: _as_quantity(_value(a) + _operand(b))),
    "add#int": (True, "qi", "q", lambda a, b: _as_quantity(_value(a) + _operand(b))),
    "sub": (True, "qq", "q", lambda a, b: _as_quantity(_value(a) - _operand(b))),
    "sub#int": (True, "qi", "q", lambda a, b: _as_quantity(_value(a) - _operand(b))),
}


# --- lists -----------------------------------------------------------------------------------------

def _comparable(items: list) -> list:
    kinds = {type(item) for item in items}
    if kinds - {int, float, str, bool} or (str in kinds and len(kinds) > 1):
        raise CelFunctionError("no such overload: the list's elements are not comparable")
    return items


def is_sorted(items: list) -> bool:
    items = _comparable(items)
    return all(items[i] <= items[i + 1] for i in range(len(items) - 1))


def list_sum(items: list):
    if not all(isinstance(item, (int, float)) and not isinstance(item, bool) for item in items):
        raise CelFunctionError("no such overload: sum() needs numbers")
    return sum(items)


def list_min(items: list):
    if not items:
        raise CelFunctionError("min called on an empty list")
    return min(_comparable(items))


def list_max(items: list):
    if not items:
        raise CelFunctionError("max called on an empty list")
    return max(_comparable(items))


def index_of(items: list, wanted) -> int:
    return next((i for i, item in enumerate(items) if _cel_equal(item, wanted)), -1)


def last_index_of(items: list, wanted) -> int:
    return next((i for i in range(len(items) - 1, -1, -1) if _cel_equal(items[i], wanted)), -1)


def _cel_equal(a, b) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return a == b


LIST_FUNCTIONS = {
    "isSorted": (True, "l", "b", is_sorted),
    "sum": (True, "l", "x", list_sum),
    "min": (True, "l", "x", list_min),
    "max": (True, "l", "x", list_max),
}
# indexOf and lastIndexOf on lists share their names with the strings extension's, whose declarations the
# evaluator will not extend: list_index_of is here, tested, for the day it can be declared.
LIST_INDEX_FUNCTIONS = {"indexOf": index_of, "lastIndexOf": last_index_of}


# --- regular expressions -----------------------------------------------------------------------------

def _pattern(text: str) -> re.Pattern:
    try:
        return re.compile(text)
    except re.error as error:
        raise CelFunctionError(f"invalid regular expression {text!r}: {error}") from None


def find(text: str, pattern: str) -> str:
    match = _pattern(pattern).search(text)
    return match.group(0) if match else ""


def find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    found = [match.group(0) for match in _pattern(pattern).finditer(text)]
    return found if limit < 0 else found[:limit]


REGEX_FUNCTIONS = {
    "find": (True, "ss", "s", find),
    "findAll": (True, "ss", "l", find_all),
    "findAll#limit": (True, "ssi", "l", find_all),
}


# --- the optional oldSelf of rules with optionalOldSelf ----------------------------------------------------

def optional_old_self(present: bool, value: object = None) -> dict:
    """What `oldSelf` is bound to when a rule sets optionalOldSelf: on create it has no value."""
    return {OPTIONAL_KEY: present, "value": value} if present else {OPTIONAL_KEY: False}


def _optional(o: object) -> dict:
    if not isinstance(o, dict) or OPTIONAL_KEY not in o:
        raise CelFunctionError("no such overload: the receiver is not an optional")
    return o


def optional_value(o: dict):
    if not _optional(o)[OPTIONAL_KEY]:
        raise CelFunctionError("optional.none() dereference")
    return o["value"]


OPTIONAL_FUNCTIONS = {
    "hasValue": (True, "o", "b", lambda o: bool(_optional(o)[OPTIONAL_KEY])),
    "value": (True, "o", "x", optional_value),
}
# The evaluator matches a declared `dyn` parameter only at compile time: one overload per kind of default.
for _kind in "sbidlo":
    OPTIONAL_FUNCTIONS[f"orValue#{_kind}"] = (True, "o" + _kind, "x",
                                              lambda o, default: o["value"] if _optional(o)[OPTIONAL_KEY] else default)

FUNCTIONS = {**QUANTITY_FUNCTIONS, **LIST_FUNCTIONS, **REGEX_FUNCTIONS, **OPTIONAL_FUNCTIONS}


def declarations(cel, leave_out: tuple = (), quantity=None) -> list:
    """The FunctionDecls of every function above but those named in `leave_out` (declared by an extension
    the caller loads), for `cel.NewEnv(functions=...)`. `quantity` is the type a quantity has where the
    expressions are only compiled (Kubernetes' opaque kubernetes.Quantity); by default the one-key map that
    evaluation passes around."""
    t = cel.Type
    kinds = {"q": quantity or t.Map(t.STRING, t.DYN), "o": t.Map(t.STRING, t.DYN), "s": t.STRING, "b": t.BOOL,
             "i": t.INT, "d": t.DOUBLE, "l": t.List(t.DYN), "x": t.DYN}
    by_name: dict[str, list] = {}
    for key, (member, parameters, result, implementation) in FUNCTIONS.items():
        name = key.partition("#")[0]
        if name in leave_out:
            continue
        overload_id = f"dgdlint_{key.replace('#', '_')}"
        by_name.setdefault(name, []).append(cel.Overload(overload_id, kinds[result], [kinds[p] for p in parameters],
                                                         member, _guarded(implementation)))
    return [cel.FunctionDecl(name, overloads) for name, overloads in by_name.items()]


def _guarded(implementation):
    """Errors inside a function become CEL evaluation errors, never a crash of the run."""
    def call(*args):
        try:
            return implementation(*args)
        except CelFunctionError:
            raise
        except Exception as error:  # a function given values of the wrong shape
            raise CelFunctionError(str(error)) from None

    return call
