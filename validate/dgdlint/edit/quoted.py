"""The original's lines as the dump writes them: a double-quoted string the file writes over several lines (a
`\\` ending a line, an escaped line break, or a line break folded into a space) is one line in ruamel's dump,
in its own spelling (`"b\\<break>  c"` is dumped `"bc"`), and so is a plain or single-quoted one whose blank
line is a line break of its value (dumped `"a\\nb"`). The lines that hold such a string are taken as one, its
text spelled as the dump spells it, so that they pair with the dump's one line."""

from __future__ import annotations

import io
from dataclasses import dataclass

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

try:  # the same C parser the loader uses
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader


@dataclass(frozen=True)
class Run:
    """Lines `start` to `stop` (past the last) of the original, which the dump writes as one; `text` is their
    text with spacing taken out, each double-quoted string over several lines spelled as the dump spells it."""

    start: int
    stop: int
    text: str


def squeezed(line: str) -> str:
    return "".join(line.split())


def runs(original: str, lines: list[str]) -> list[Run]:
    """Each line of `original` (split as `lines`) as a run of its own, but for the lines of a string over
    several lines that the dump writes on one, which make one run (with the lines of any such string that
    starts on the line where it ends)."""
    spans = _multiline_strings(original, lines)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    out: list[Run] = []
    number = 0
    while number < len(lines):
        chosen = [s for s in spans if s[0][0] == number]
        last = number
        while chosen and max(s[1][0] for s in chosen) > last:  # and any string starting where one ends
            last = max(s[1][0] for s in chosen)
            chosen += [s for s in spans if s[0][0] == last]
        text = original[starts[number]:starts[last + 1]]
        for start, end, spelled in sorted(chosen, reverse=True):  # spelled as the dump spells it, from the end
            at, to = starts[start[0]] + start[1] - starts[number], starts[end[0]] + end[1] - starts[number]
            text = text[:at] + spelled + text[to:]
        out.append(Run(number, last + 1, squeezed(text)))
        number = last + 1
    return out


def _multiline_strings(original: str, lines: list[str]) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """(start, end) as (line, column), and the dump's spelling, of each string over several lines that the dump
    writes on one: double-quoted, or holding a line break."""
    found = []
    try:
        for event in yaml.parse(original, Loader=_Loader):
            if not isinstance(event, yaml.ScalarEvent) or event.end_mark.line == event.start_mark.line or \
                    event.style not in ('"', "'", None, "") or (event.style != '"' and "\n" not in event.value):
                continue
            start, end = event.start_mark, event.end_mark
            quote = event.style or ""
            if lines[start.line][start.column:start.column + len(quote)] == quote and \
                    lines[end.line][end.column - len(quote):end.column] == quote:
                spelled = _dumped(event.value, quote)
                if "\n" not in spelled:
                    found.append(((start.line, start.column), (end.line, end.column), spelled))
    except yaml.YAMLError:  # the round trip read it, and so does libyaml: no string over lines, if ever not
        return []
    return found


def _dumped(value: str, quote: str) -> str:
    """`value` written as ruamel writes a string written with `quote` (lines are never folded)."""
    dumper = YAML(typ="rt")
    dumper.width = 1 << 20
    stream = io.StringIO()
    kind = {'"': DoubleQuotedScalarString, "'": SingleQuotedScalarString}.get(quote, str)
    dumper.dump({"k": kind(value)}, stream)
    return stream.getvalue()[len("k: "):].rstrip("\n")
