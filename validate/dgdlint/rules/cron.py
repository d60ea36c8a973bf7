"""A CronJob's own spec as the API server validates it on create (written from Kubernetes' batch validation,
v1.37, and the cron parser it uses, robfig/cron v3's standard parser): a schedule of five fields or a
descriptor, without TZ or CRON_TZ (the timeZone field says that); a time zone the server can load; counts
that are not negative; a known concurrency policy; a job template with no selector of its own. Each function
yields (path, problem)."""

from __future__ import annotations

import re
from functools import cache

from dgdlint.model import Workload, as_map, as_str
from dgdlint.rules.syntax import negative_count_problems
from dgdlint.scalars import GO_SPACE, go_trim_space

CONCURRENCY_POLICIES = ("Allow", "Forbid", "Replace")
# (lowest, highest, names) of minute, hour, day of month, month, day of week
_FIELDS = (("minute", 0, 59, {}), ("hour", 0, 23, {}), ("day of month", 1, 31, {}),
           ("month", 1, 12, {name: number for number, name in enumerate(
               ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}),
           ("day of week", 0, 6, {name: number for number, name in enumerate(
               ("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}))
_DESCRIPTORS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
_DURATION_UNITS = {"ns": 1, "us": 10**3, "µs": 10**3, "μs": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9,
                   "h": 3600 * 10**9}
_ZONE_PART = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")


def _number(text: str, names: dict) -> int:
    """robfig's parseIntOrName: a name (any case) or a non-negative decimal as Go's Atoi reads it."""
    if text.lower() in names:
        return names[text.lower()]
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ValueError(f"failed to parse int from {text}")
    number = int(text)
    if number < 0:
        raise ValueError(f"negative number ({number}) not allowed: {text}")
    return number


def _range_problem(expression: str, low: int, high: int, names: dict) -> str | None:
    """One comma-separated part of a field: `*` or `?`, a number or name, a range, each with an optional step."""
    parts = expression.split("/")
    bounds = parts[0].split("-")
    try:
        if bounds[0] in ("*", "?"):
            start, end = low, high
        else:
            if len(bounds) > 2:
                return f"too many hyphens: {expression}"
            start = _number(bounds[0], names)
            end = _number(bounds[1], names) if len(bounds) == 2 else start
        if len(parts) > 2:
            return f"too many slashes: {expression}"
        step = 1
        if len(parts) == 2:
            step = _number(parts[1], {})
            if len(bounds) == 1:
                end = high
    except ValueError as error:
        return str(error)
    if start < low:
        return f"beginning of range ({start}) below minimum ({low}): {expression}"
    if end > high:
        return f"end of range ({end}) above maximum ({high}): {expression}"
    if start > end:
        return f"beginning of range ({start}) beyond end of range ({end}): {expression}"
    if step == 0:
        return f"step of range should be a positive number: {expression}"
    return None


def _leading_int(text: str) -> tuple[int, str] | None:
    """Go's leadingInt: the digits `text` starts with (None past 2**63), and the rest."""
    value, read = 0, 0
    for read, char in enumerate(text):  # noqa: B007
        if not "0" <= char <= "9":
            break
        if value > 2**63 // 10:
            return None
        value = value * 10 + int(char)
        if value > 2**63:
            return None
    else:
        read = len(text)
    return value, text[read:]


def _leading_fraction(text: str) -> tuple[int, float, str]:
    """Go's leadingFraction: the digits after a point (those past 2**63 ignored), their scale, the rest."""
    value, scale, overflow, read = 0, 1.0, False, 0
    for read, char in enumerate(text):  # noqa: B007
        if not "0" <= char <= "9":
            break
        if overflow:
            continue
        if value > (2**63 - 1) // 10 or value * 10 + int(char) > 2**63:
            overflow = True
            continue
        value, scale = value * 10 + int(char), scale * 10
    else:
        read = len(text)
    return value, scale, text[read:]


def duration_problem(text: str) -> str | None:
    """Go's time.ParseDuration, step by step (`[-+]?([0-9]*(\\.[0-9]*)?[a-z]+)+`, or "0"; units ns, us, µs,
    μs, ms, s, m, h; whole nanoseconds in 64 bits, a negative one down to -2**63)."""
    negative = text[:1] == "-"
    rest = text[1:] if text[:1] in ("-", "+") else text
    if rest == "0":
        return None
    if not rest:
        return "invalid duration"
    total = 0
    while rest:
        if not (rest[0] == "." or "0" <= rest[0] <= "9"):
            return "invalid duration"
        whole = _leading_int(rest)
        if whole is None:
            return "invalid duration"
        value, after = whole
        before = after != rest
        fraction, scale, rest = 0, 1.0, after
        after_point = False
        if rest[:1] == ".":
            fraction, scale, remainder = _leading_fraction(rest[1:])
            after_point, rest = remainder != rest[1:], remainder
        if not before and not after_point:
            return "invalid duration"
        length = next((i for i, char in enumerate(rest) if char == "." or "0" <= char <= "9"), len(rest))
        if length == 0:
            return "missing unit in duration"
        unit, rest = rest[:length], rest[length:]
        if unit not in _DURATION_UNITS:
            return f"unknown unit {unit!r} in duration"
        factor = _DURATION_UNITS[unit]
        if value > 2**63 // factor:
            return "invalid duration"
        value *= factor
        if fraction > 0:
            value += int(float(fraction) * (float(factor) / scale))
            if value > 2**63:
                return "invalid duration"
        total = (total + value) % 2**64  # Go's uint64 sum wraps
        if total > 2**63:
            return "invalid duration"
    if not negative and total > 2**63 - 1:
        return "invalid duration"
    return None


def schedule_problem(schedule: str) -> str | None:
    """What robfig/cron's standard parser says of a schedule (None: it parses)."""
    if schedule.startswith(("TZ=", "CRON_TZ=")):  # a zone first: the parser reads the rest after it
        if " " not in schedule:
            return "a time zone with no schedule after it"
        zone, schedule = schedule[schedule.index("=") + 1:schedule.index(" ")], schedule[schedule.index(" "):]
        schedule = go_trim_space(schedule)
        if load_location_problem(zone):
            return f"provided bad location {zone}"
    if schedule.startswith("@"):
        if schedule in _DESCRIPTORS:
            return None
        if schedule.startswith("@every "):
            problem = duration_problem(schedule[len("@every "):])
            return f"failed to parse duration {schedule}: {problem}" if problem else None
        return f"unrecognized descriptor: {schedule}"
    fields = [field for field in re.split(f"[{re.escape(GO_SPACE)}]+", schedule) if field]
    if len(fields) != 5:
        return f"expected exactly 5 fields, found {len(fields)}"
    for text, (_name, low, high, names) in zip(fields, _FIELDS, strict=True):
        for expression in (part for part in text.split(",") if part):
            problem = _range_problem(expression, low, high, names)
            if problem:
                return problem
    return None


def load_location_problem(zone: str) -> str | None:
    """Go's time.LoadLocation: "" and UTC are UTC, Local the server's own; a name with '..' or starting with
    '/' or '\\' is refused; else it must be a zone of the time zone database. Looked up in the database
    Python has (the system's, or the tzdata package), as a file under it; with none, only the syntax is read."""
    if zone in ("", "UTC", "Local"):
        return None
    if ".." in zone or zone[0] in "/\\" or zone.endswith("/"):  # a trailing '/' opens no file
        return "no time zone name"
    known = _known_zones()  # empty: no database to look in
    if not known:
        return None
    # the file the name leads to, as Go opens it (Europe//Paris is Europe/Paris; a folder is no zone)
    path = "/".join(part for part in zone.split("/") if part not in ("", "."))
    return None if path in known or _zone_file(path) else "no time zone the server knows (names are case-sensitive)"


@cache
def _known_zones() -> frozenset[str]:
    """The zones of the database Python has, read once per run (a walk of its folder: milliseconds)."""
    import zoneinfo

    return frozenset(zoneinfo.available_timezones())


def _zone_file(path: str) -> bool:
    import zoneinfo

    try:
        zoneinfo.ZoneInfo(path)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):  # a folder (Europe) is no zone
        return False
    return True


def time_zone_problem(zone: str) -> str | None:
    """validateTimeZone: an IANA name the server can load, not Local, each part of the characters Kubernetes
    allows (so `Europe//Paris`, which Go would load, is refused here)."""
    if not zone:
        return "empty (leave it out, or name a time zone)"
    if any(part in (".", "..") or part.startswith("-") or not _ZONE_PART.fullmatch(part) for part in zone.split("/")):
        return "no time zone name"
    if zone.lower() == "local":
        return "name an explicit time zone (Local is the API server's own)"
    return load_location_problem(zone)


def cronjob_spec_problems(workload: Workload):
    if workload.obj.kind != "CronJob":
        return
    spec = as_map(workload.obj.value.get("spec"))
    schedule = spec.get("schedule")
    if isinstance(schedule, str):
        if not schedule:
            yield ("spec", "schedule"), "has an empty schedule"
        elif schedule_problem(schedule):
            yield ("spec", "schedule"), f"has schedule {schedule!r}, which the server's cron parser refuses: " \
                                        f"{schedule_problem(schedule)}"
        if "TZ" in schedule:
            yield ("spec", "schedule"), "has a time zone in its schedule (TZ or CRON_TZ), which the " \
                                        "server refuses; set spec.timeZone instead"
    zone = spec.get("timeZone")
    if isinstance(zone, str):
        problem = time_zone_problem(zone)
        if problem:
            yield ("spec", "timeZone"), f"has timeZone {zone!r}: {problem}"
    yield from negative_count_problems(spec, ("startingDeadlineSeconds", "successfulJobsHistoryLimit",
                                              "failedJobsHistoryLimit"), ("spec",))
    policy = as_str(spec.get("concurrencyPolicy"))
    if policy and policy not in CONCURRENCY_POLICIES:  # empty: the server defaults it to Allow
        yield ("spec", "concurrencyPolicy"), f"has concurrencyPolicy {policy!r}, not one of " \
                                             f"{', '.join(CONCURRENCY_POLICIES)}"
    job = as_map(as_map(spec.get("jobTemplate")).get("spec"))
    if job.get("selector") is not None:
        yield ("spec", "jobTemplate", "spec", "selector"), "has a job template with a selector of its own " \
                                                           "(the server generates each Job's)"
    if job.get("manualSelector") is True:
        yield ("spec", "jobTemplate", "spec", "manualSelector"), "has a job template with manualSelector: " \
                                                                 "true, which a job template does not take"
