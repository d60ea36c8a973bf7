"""Go's `time.Parse(time.RFC3339, text)`, as metav1.Time reads a time from JSON (a null aside), told as
whether it takes the text and why not.

Go tries a strict reader first (two-digit fields, `.` before a fraction, an offset of at most 23:59) and,
when that fails, the general layout reader, which is looser: an hour of one digit, `,` before a fraction,
an offset of up to 24:60. Both refuse a month, day, hour, minute or second out of range, a day the month
does not have (February 29th only in a leap year), the letters `t` and `z`, and any text after the offset."""

from __future__ import annotations

import calendar

_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _days_in(month: int, year: int) -> int:
    return 29 if month == 2 and calendar.isleap(year) else _DAYS[month - 1]


def _digits(text: str) -> bool:
    return text != "" and all("0" <= c <= "9" for c in text)


def _number(text: str, fixed: bool) -> tuple[int | None, str]:
    """Go's getnum: two digits, or one when not `fixed`; (None, text) when there is none."""
    if not _digits(text[:1]):
        return None, text
    if not _digits(text[1:2]):
        return (None, text) if fixed else (int(text[0]), text[1:])
    return int(text[:2]), text[2:]


def _strict(text: str) -> bool:
    """Go's fast RFC 3339 reader (parseRFC3339)."""
    if len(text) < 19 or not all(_digits(text[a:b]) for a, b in ((0, 4), (5, 7), (8, 10), (11, 13), (14, 16),
                                                                   (17, 19))):
        return False
    year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
    if not (1 <= month <= 12 and 1 <= day <= _days_in(month, year) and int(text[11:13]) <= 23
            and int(text[14:16]) <= 59 and int(text[17:19]) <= 59):
        return False
    if (text[4], text[7], text[10], text[13], text[16]) != ("-", "-", "T", ":", ":"):
        return False
    rest = text[19:]
    if len(rest) >= 2 and rest[0] == "." and _digits(rest[1]):
        end = 2
        while end < len(rest) and _digits(rest[end]):
            end += 1
        rest = rest[end:]
    if rest == "Z":
        return True
    return (len(rest) == 6 and rest[0] in "+-" and rest[3] == ":" and _digits(rest[1:3]) and _digits(rest[4:6])
            and int(rest[1:3]) <= 23 and int(rest[4:6]) <= 59)


def _general(text: str) -> str | None:
    """Go's layout reader on "2006-01-02T15:04:05Z07:00": None when it takes the text, else the problem."""
    if len(text) < 4 or not _digits(text[:4]):
        return "has no four-digit year"
    year, rest = int(text[:4]), text[4:]
    fields = {}
    for name, before, fixed, top in (("month", "-", True, 12), ("day", "-", True, 31), ("hour", "T", False, 23),
                                     ("minute", ":", True, 59), ("second", ":", True, 59)):
        if not rest.startswith(before):
            return f"has no {before!r} before the {name}"
        value, rest = _number(rest[1:], fixed)
        if value is None:
            return f"has no {name}"
        if value > top or (name in ("month", "day") and value < 1):
            return f"has {name} {value}, out of range"
        fields[name] = value
    if len(rest) >= 2 and rest[0] in ".," and _digits(rest[1]):
        end = 2
        while end < len(rest) and _digits(rest[end]):
            end += 1
        rest = rest[end:]
    if rest.startswith("Z"):
        rest = rest[1:]
    else:
        if len(rest) < 6 or rest[3] != ":" or not (_digits(rest[1:3]) and _digits(rest[4:6])):
            return "has no time zone (Z or +hh:mm)"
        if int(rest[1:3]) > 24 or int(rest[4:6]) > 60:
            return "has a time zone offset out of range"
        if rest[0] not in "+-":
            return "has no time zone (Z or +hh:mm)"
        rest = rest[6:]
    if rest:
        return f"has {rest!r} after the time zone"
    if fields["day"] > _days_in(fields["month"], year):
        return f"has day {fields['day']}, which month {fields['month']} of {year} does not have"
    return None


def rfc3339_problem(text: str) -> str | None:
    """Why Go's time.Parse(time.RFC3339, text) refuses `text`; None when it takes it."""
    if _strict(text):
        return None
    return _general(text)
