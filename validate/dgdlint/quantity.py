"""Kubernetes quantities (`100m`, `96Gi`, `1e3`): parsed exactly, once, for every module that reads them
(the admission rule, plan's totals, diff's comparisons)."""

from __future__ import annotations

from decimal import MAX_EMAX, MIN_EMIN, ROUND_CEILING, ROUND_UP, Context, Decimal

from dgdlint.scalars import as_str

# A suffix's power of 10 or of 2, as apimachinery's suffixer has them.
_DECIMAL_EXPONENTS = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_EXPONENTS = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DIGITS = frozenset("0123456789")
_SUFFIX_LETTERS = frozenset("eEinumkKMGTP")
_INT64 = 2**63
# Wide enough for any exponent a quantity can carry (Go reads it as an int32).
_WIDE = Context(prec=80, Emax=MAX_EMAX, Emin=MIN_EMIN)
_NANO = Decimal("1e-9")


def _split(text: str) -> tuple[bool, str, str, str, str] | None:
    """(positive, number as written, integer digits, fraction digits, suffix) as apimachinery's
    parseQuantityString cuts a quantity; None where it refuses the form."""
    positive, pos, end = True, 0, len(text)
    if text[:1] in ("-", "+"):
        positive, pos = text[0] == "+", 1
    while pos < end and text[pos] == "0":  # leading zeros
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, text, text[start:], "", ""
    whole, fraction = text[start:pos] or "0", ""
    if text[pos] == ".":
        start = pos = pos + 1
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        fraction = text[start:pos]
        if pos >= end:
            return positive, text, whole, fraction, ""
    number, suffix_start = text[:pos], pos
    while pos < end and text[pos] in _SUFFIX_LETTERS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    return (positive, number, whole, fraction, text[suffix_start:]) if pos >= end else None


def _suffix(suffix: str) -> tuple[int, int, str] | None:
    """(base, exponent, format) of a suffix, as apimachinery's suffixer interprets it."""
    if suffix in _DECIMAL_EXPONENTS:
        return 10, _DECIMAL_EXPONENTS[suffix], "DecimalSI"
    if suffix in _BINARY_EXPONENTS:
        return 2, _BINARY_EXPONENTS[suffix], "BinarySI"
    digits = suffix[1:].lstrip("+-") if suffix[:1] in ("e", "E") else ""
    if len(suffix) > 1 and digits and set(digits) <= _DIGITS and len(suffix[1:]) - len(digits) <= 1:
        exponent = int(suffix[1:])
        if -_INT64 <= exponent < _INT64:
            return 10, (exponent + 2**31) % 2**32 - 2**31, "DecimalExponent"  # Go keeps it as an int32
    return None


def go_quantity(text: object) -> Decimal | None:
    """The value of `text` as Kubernetes' resource.ParseQuantity reads it (trimming nothing), or None where it
    refuses it. Written from apimachinery's parser: `"."` is 0, `1e100` is a quantity, `1K` and `1e` are not;
    a value finer than a nano is rounded up to one, as the parser does."""
    text = as_str(text)
    if not text:
        return None
    try:
        return _READ[text]
    except KeyError:
        value = _read(text)
        if len(_READ) < _READ_LIMIT:
            _READ[text] = value
        return value


_READ: dict[str, Decimal | None] = {}  # manifests repeat the same few quantities; a Decimal is immutable
_READ_LIMIT = 65536


def _read(text: str) -> Decimal | None:
    parts = _split(text)
    interpreted = _suffix(parts[4]) if parts is not None else None
    if interpreted is None:
        return None
    positive, number, whole, fraction, _ = parts
    base, exponent, form = interpreted
    if form == "BinarySI":
        precision = 15 - len(whole) - int(exponent * 3 / 10) - 1 if not fraction else -1
        scale = 0
    else:
        precision, scale = 18 - len(whole + fraction), exponent - len(fraction)
    if not (precision >= 0 and scale >= -9) and not any(c in _DIGITS for c in number):
        return None  # the slow path reads the number with inf.Dec, which needs a digit
    written = Decimal(whole + (f".{fraction}" if fraction else ""))
    value = written.scaleb(exponent, context=_WIDE) if base == 10 else written * 2**exponent
    if value.as_tuple().exponent < -9:
        value = value.quantize(_NANO, rounding=ROUND_UP, context=_WIDE)
    if form == "BinarySI" and value > _INT64 - 1:  # the parser caps a binary amount at Go's largest int64
        value = Decimal(_INT64 - 1)
    return value if positive else value.copy_negate()  # exact: unary minus rounds to 28 digits


def parse_quantity(text: object) -> Decimal | None:
    """`"100m"` -> 0.1, `"96Gi"` -> 103079215104, `"1e3"` -> 1000; None when it is not a quantity, or when its
    exponent is beyond any real resource (the arithmetic of plan and the rules stays bounded)."""
    value = go_quantity(text)
    if value is None or not value.is_finite() or (value and abs(value.adjusted()) > 60):
        return None
    return value


def quantity_bytes(text: object) -> int | None:
    """A memory or storage quantity in whole bytes (rounded up, as Kubernetes rounds a fraction of a byte)."""
    value = parse_quantity(text)
    return int(value.to_integral_value(rounding=ROUND_CEILING)) if value is not None else None


def format_bytes(count: int) -> str:
    """Bytes in the shortest exact Kubernetes form: 103079215104 -> `96Gi`, 2000 -> `2k`, 1500 -> `1500`.
    A binary suffix only below 2**63: Kubernetes caps a binary amount there, so a larger one is written in
    decimal."""
    if count == 0:
        return "0"
    for suffix, exponent in reversed(_BINARY_EXPONENTS.items()):
        if abs(count) < _INT64 and count % 2**exponent == 0:
            return f"{count // 2**exponent}{suffix}"
    for suffix in ("E", "P", "T", "G", "M", "k"):
        factor = 10 ** _DECIMAL_EXPONENTS[suffix]
        if count % factor == 0:
            return f"{count // factor}{suffix}"
    return str(count)


def is_quantity(text: object) -> bool:
    """Whether Kubernetes' ParseQuantity reads `text` (it trims nothing: `" 16Gi"` and `"16Gi "` are refused,
    and the operator drops them)."""
    return go_quantity(text) is not None


def canonical_quantity(text: str | None) -> str:
    """An exact, comparable form: `1`, `"1"` and `1000m` give the same text; what is no quantity stays as is."""
    if text is None:
        return ""
    value = parse_quantity(text)
    return text.strip() if value is None else format(value.normalize(), "f")


def format_cores(cores: Decimal) -> str:
    """CPU cores as a plain decimal: 16, 0.1, 38.1."""
    return f"{cores.normalize():f}"


def go_quantity_string(text: object) -> str | None:
    """`text` as apimachinery's Quantity.String() writes it once parsed, None where it is no quantity: the
    text itself where the parser keeps it as canonical (`1Ki`, `+1k`, `01k`), else the canonical form
    (`1024Ki` -> `1Mi`, `1000m` -> `1`, `0.001` -> `1m`, `1e3` stays `1e3`, and `1000` is `1k`)."""
    text = as_str(text)
    value = go_quantity(text)
    if value is None:
        return None
    if text == "0" or not value:
        return "0"
    positive, _number, whole, fraction, suffix = _split(text)
    _base, exponent, form = _suffix(suffix)
    digits = whole  # the parser's digits before the point: leading zeros skipped, "0" when none is left
    shifted = digits + fraction
    if form == "BinarySI":
        if exponent >= 0 and not fraction and exponent % 10 == 0 and int(shifted) & 7 \
                and 15 - len(digits) - int(exponent * 3 / 10) - 1 >= 0:
            return text
    else:
        scale = exponent - len(fraction)
        if 18 - len(shifted) >= 0 and scale >= -9 and scale % 3 == 0 and not shifted.endswith("000") \
                and shifted[0] != "0":
            return text
    if form == "BinarySI" and not -1024 < value < 1024 and value == value.to_integral_value():
        amount, power = int(value), 0
        while amount % 1024 == 0 and power < 6:
            amount, power = amount // 1024, power + 1
        return f"{amount}{('', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei')[power]}"
    sign, figures, power = value.normalize(context=_WIDE).as_tuple()
    amount = int("".join(map(str, figures))) * (-1 if sign else 1)
    shift = power % 3  # down to a multiple of 3, as Go's AsCanonicalBytes
    amount, power = amount * 10**shift, power - shift
    if form == "DecimalExponent":
        return f"{amount}e{power}" if power else str(amount)
    suffixes = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
    return f"{amount}{suffixes.get(power, '')}"
