"""Kubernetes quantities (`100m`, `96Gi`, `1e3`): parsed exactly, once, for every module that reads them
(the admission rule, plan's totals, diff's comparisons)."""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, Decimal, InvalidOperation

from dgdlint.scalars import as_str

_BINARY_SUFFIXES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL_SUFFIXES = {"n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": Decimal(1),
                     "k": Decimal(10**3), "M": Decimal(10**6), "G": Decimal(10**9), "T": Decimal(10**12),
                     "P": Decimal(10**15), "E": Decimal(10**18)}
_QUANTITY = re.compile(r"^(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
                       r"(?:[eE](?P<exponent>[+-]?[0-9]+)|(?P<suffix>[KMGTPE]i|[numkMGTPE])?)$")


def parse_quantity(text: object) -> Decimal | None:
    """`"100m"` -> 0.1, `"96Gi"` -> 103079215104, `"1e3"` -> 1000; None when it is not a quantity."""
    text = as_str(text)
    match = _QUANTITY.fullmatch(text) if text is not None else None  # as written: ParseQuantity trims nothing
    if match is None:
        return None
    try:
        number = Decimal(match.group("number"))
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimal numbers
        return None
    if match.group("exponent") is not None:
        exponent = int(match.group("exponent"))
        if abs(exponent) > 60:  # far beyond any real resource; keeps Decimal arithmetic bounded
            return None
        return number.scaleb(exponent)
    suffix = match.group("suffix") or ""
    if suffix in _BINARY_SUFFIXES:
        return number * _BINARY_SUFFIXES[suffix]
    return number * _DECIMAL_SUFFIXES[suffix]


def quantity_bytes(text: object) -> int | None:
    """A memory or storage quantity in whole bytes (rounded up, as Kubernetes rounds a fraction of a byte)."""
    value = parse_quantity(text)
    return int(value.to_integral_value(rounding=ROUND_CEILING)) if value is not None else None


def format_bytes(count: int) -> str:
    """Bytes in the shortest exact Kubernetes form: 103079215104 -> `96Gi`, 2000 -> `2k`, 1500 -> `1500`."""
    if count == 0:
        return "0"
    for suffix, factor in reversed(_BINARY_SUFFIXES.items()):
        if count % factor == 0:
            return f"{count // factor}{suffix}"
    for suffix in ("E", "P", "T", "G", "M", "k"):
        factor = int(_DECIMAL_SUFFIXES[suffix])
        if count % factor == 0:
            return f"{count // factor}{suffix}"
    return str(count)


def is_quantity(text: object) -> bool:
    """Whether the API server would parse `text` as a quantity (Kubernetes' ParseQuantity trims nothing:
    `" 16Gi"` and `"16Gi "` are refused, and the operator drops them)."""
    text = as_str(text)
    return text is not None and _QUANTITY.fullmatch(text) is not None


def canonical_quantity(text: str | None) -> str:
    """An exact, comparable form: `1`, `"1"` and `1000m` give the same text; what is no quantity stays as is."""
    if text is None:
        return ""
    value = parse_quantity(text)
    return text.strip() if value is None else format(value.normalize(), "f")


def format_cores(cores: Decimal) -> str:
    """CPU cores as a plain decimal: 16, 0.1, 38.1."""
    return f"{cores.normalize():f}"
