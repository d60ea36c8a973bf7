"""Property-based check of the edit commands' promise on lines written their own way: an edit keeps every line
it does not change byte for byte, even where the file is not spelled as ruamel.yaml writes it back (extra
spaces in a flow collection, after a colon or before a comment, `True` for `true`, an `!!int` tag).

The oracle is differential. A file is first written as the round trip writes it (each document's own dump),
and the command run on that: the lines it changes there are the edit's lines. The same file is then spelled
otherwise, line for line (so its lines keep their numbers), without changing what any line means, and the
command run again. Then either the command refuses the file (exit 1, a note, the file untouched), or:

- the result means what the first result means (the same data), and
- every line outside the edit's lines is in the result, unchanged, in its place."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

import pytest
import yaml
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from dgdlint.cli import main
from dgdlint.edit.fixers import FIXERS
from dgdlint.edit.roundtrip import open_text
from dgdlint.edit.source import EditError
from refdata import ROOT

RULES = ROOT / "tests" / "rules"
SOURCES = sorted(p for rule in FIXERS for p in (RULES / rule / "fail").glob("*.yaml"))


def _canonical(text: str) -> str | None:
    """The file as the round trip writes each of its documents (None: one it cannot edit)."""
    try:
        edit = open_text("-", text)
    except EditError:
        return None
    parts = []
    for chunk, document in zip(edit.chunks, edit.documents, strict=True):
        if document is not None and (document.refusal is not None or document.anchors):
            return None
        parts.append(chunk.separator + (document.base if document is not None else chunk.body))
    return "".join(parts)


CANONICAL = [text for text in (_canonical(p.read_text(encoding="utf-8")) for p in SOURCES) if text]


def _outside_quotes(line: str):
    """(index, character) of each character of `line` outside quotes and before a comment."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1] == " "):
            return
        else:
            yield index, char


@st.composite
def respelled(draw, line: str, editable: bool) -> str:
    """`line` spelled another way that means the same: spaces after `,`, `{`, `[` and before `}`, `]` of a flow
    collection, after a key's colon, before a comment; outside the edit's lines, `True` for `true` and `!!int`
    on an integer too (the edit reads those lines' text)."""
    if line.lstrip().startswith("#") or not line.strip():
        return line
    out, inside = [], 0
    for index, char in _outside_quotes(line):
        if char in "{[":
            inside += 1
        elif char in "}]":
            inside -= 1
        spaces = " " * draw(st.sampled_from([0, 0, 1, 3]))
        if char in ",{[" and index + 1 < len(line) and inside:
            out.append((index + 1, spaces))
        elif char in "}]" and line[index - 1] not in "{[":
            out.append((index, spaces))
        elif char == ":" and line[index + 1:index + 2] == " " and not inside and line[index + 2:index + 3] != "":
            out.append((index + 1, spaces))
    comment = re.search(r" #", line)
    if comment and all(i != comment.start() + 1 for i, _ in _outside_quotes(line)) is False:
        out.append((comment.start(), " " * draw(st.sampled_from([0, 2]))))
    for index, spaces in sorted(out, reverse=True):
        line = line[:index] + spaces + line[index:]
    if not editable:
        line = re.sub(r": (true|false)$", lambda m: ": " + draw(st.sampled_from([m[1], m[1].title(), m[1].upper()])),
                      line)
        if draw(st.booleans()):
            line = re.sub(r"^(\s*[\w.-]+:) (\d+)$", r"\1 !!int \2", line)
    return line


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err and "internal error" not in captured.err
    assert code in (0, 1), captured.err[-2000:]
    return code, captured.err


def _changed_lines(before: str, after: str) -> set[int]:
    old, new = before.splitlines(), after.splitlines()
    changed = set()
    for tag, i1, i2, _j1, _j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            changed.update(range(i1, i2))
    return changed


def _data(text: str):
    return list(yaml.safe_load_all(text))


def assert_untouched_lines_kept(capsys, tmp_path, canonical: str, draw, argv: tuple[str, ...]) -> None:
    target = tmp_path / "file.yaml"
    target.write_text(canonical, encoding="utf-8")
    code, err = _run(capsys, *argv, str(target))
    first = target.read_text(encoding="utf-8")
    assume(code == 0 and first != canonical)
    edited = _changed_lines(canonical, first)
    lines = canonical.split("\n")
    odd = "\n".join(draw(respelled(line, number in edited)) for number, line in enumerate(lines))
    assume(odd != canonical)
    assert _data(odd) == _data(canonical), "the respelling changed what the file means"
    target.write_text(odd, encoding="utf-8")
    code, err = _run(capsys, *argv, str(target))
    result = target.read_text(encoding="utf-8")
    if code == 1:
        assert result == odd and "[edit-refused]" in err, err
        return
    assert _data(result) == _data(first), err
    touched = _changed_lines(odd, result)
    assert touched <= edited, [(n + 1, odd.split("\n")[n]) for n in sorted(touched - edited)]


SETTINGS = dict(deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking takes minutes
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                                     HealthCheck.filter_too_much])


@settings(max_examples=10, **SETTINGS)
@given(canonical=st.sampled_from(CANONICAL), data=st.data())
def test_fix_keeps_lines_spelled_their_own_way(capsys, tmp_path_factory, canonical, data):
    assert_untouched_lines_kept(capsys, tmp_path_factory.mktemp("fix"), canonical, data.draw, ("fix",))


@pytest.mark.slow
@settings(max_examples=150, **SETTINGS)
@given(canonical=st.sampled_from(CANONICAL), data=st.data())
def test_fix_keeps_lines_spelled_their_own_way_thorough(capsys, tmp_path_factory, canonical, data):
    assert_untouched_lines_kept(capsys, tmp_path_factory.mktemp("fix"), canonical, data.draw, ("fix",))


@pytest.mark.slow
@settings(max_examples=60, **SETTINGS)
@given(canonical=st.sampled_from(CANONICAL), data=st.data())
def test_convert_keeps_lines_spelled_their_own_way_thorough(capsys, tmp_path_factory, canonical, data):
    assert_untouched_lines_kept(capsys, tmp_path_factory.mktemp("convert"), canonical, data.draw,
                                ("convert", "--to", "v1beta1", "--write"))
