"""Property-based fuzzing of the commands that write files: `fix` (with and without --diff) and `convert`
(both ways, to stdout and --write). Mutations start from real files (the fixable rules' fail fixtures, the
commented edit cases and the rule fixtures' clean bases) and work on their text, where the round trip works:
comments, quoting, line endings, a byte-order mark, a value replaced, a line dropped or repeated, a construct
the round trip refuses. Whatever the input:

- the exit code is 0 or 1, never an internal error, and a refused edit (exit 1) leaves the file as it was;
- `fix --diff` writes nothing and agrees with `fix` on the exit code;
- what is written (or printed by `convert`) reads back as YAML, keeps every comment unless a warning says
  one was dropped, and never shows a secret in a note or a diff;
- a second `fix` changes nothing and fixes nothing; converting the result again changes nothing."""

from __future__ import annotations

import re
from collections import Counter

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dgdlint.cli import main
from dgdlint.edit.fixers import FIXERS
from dgdlint.edit.source import EditError
from refdata import ROOT

RULES = ROOT / "tests" / "rules"
SOURCES = sorted([*(p for rule in FIXERS for p in (RULES / rule / "fail").glob("*.yaml")),
                  *(ROOT / "tests" / "edit" / "cases").rglob("*.yaml"), *(RULES / "_base").glob("*.yaml")])
TEXTS = [p.read_text(encoding="utf-8") for p in SOURCES]
SECRET = "nvapi-FUZZ0SECRET0abcdefghijklmnopqrstuvwxyz0123456789"

values = st.sampled_from([
    "0", "1", '"1"', "'0'", "true", "null", "~", "", "edge", "nano", "none", "video", "all", "16Gi", "-1",
    "1e3", "0x1F", "nvidia.com/v1alpha1", "nvidia.com/v1beta1", "[]", "{}", "[a, b]", "{a: 1}", '"a # b"',
    "|\n  text", ">-\n  folded", "!!str 1", "!!int abc", "!!omap [{a: b}]", "&anchor x", "*anchor", SECRET,
    f'"{SECRET}"', "cosmos3-reasoner.backend.streaming", "python3 -m dynamo.vllm", "\"a\u2028b\"", "é€😀",
    '"esc\\\naped"', '"one\\n\\\ntwo"', '"blank\n\nline"', "plain\n\nline"])  # strings over lines
hostile = st.sampled_from(["\t", "<<: *a", "- ", "? ", "{", "]", "'", '"', "%YAML 1.2", "---", "...", "\x00",
                           "\x85", "\u2028", "\ufeff", "\r", "&a ", "*a", "!local ", "#", " #", "key: [x, # c\n y]"])
comment_text = st.text(alphabet=st.sampled_from(list("abc xyz-#:'\"é")), min_size=0, max_size=12)


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" "))]


@st.composite
def mutated_texts(draw, hostile_share: int = 4):
    text = draw(st.sampled_from(TEXTS))
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, max(0, len(lines) - 1)))
        line = lines[at] if lines else ""
        kind = draw(st.integers(0, 7 + hostile_share))
        if kind == 0:  # a full-line comment at the line's indentation
            lines.insert(at, f"{_indent(line)}# {draw(comment_text)}")
        elif kind == 1:  # an end-of-line comment
            lines[at] = f"{line}  # {draw(comment_text)}"
        elif kind in (2, 3) and re.match(r"^\s*(- )?[\w./-]+: ", line):  # a value replaced
            head = line.split(": ", 1)[0]
            lines[at] = f"{head}: {draw(values)}".replace("\n", "\n" + _indent(line) + "  ")
        elif kind == 4:
            del lines[at:at + 1]
        elif kind == 5:
            lines.insert(at, line)
        elif kind == 6:  # the NGC key written out where a worker's env is
            lines.insert(at, f"{_indent(line)}- name: NGC_API_KEY\n{_indent(line)}  value: {SECRET}")
        elif kind == 7:
            lines.insert(at, f"{_indent(line)}# {SECRET}")
        else:
            column = draw(st.integers(0, len(line)))
            lines[at] = line[:column] + draw(hostile) + line[column:]
    text = "\n".join(lines)
    ending = draw(st.sampled_from(["\n", "\n", "\n", "\r\n", "mixed", "\r"]))
    if ending == "mixed":
        text = "".join(part + ("\r\n" if number % 3 == 0 else "\n")
                       for number, part in enumerate(text.split("\n")))[:-1]
    elif ending != "\n":
        text = text.replace("\n", ending)
    if draw(st.booleans()) and draw(st.booleans()):
        text = "\ufeff" + text
    return text


def _comment_lines(text: str) -> dict[int, list[str]] | None:
    """0-based line -> the comments on it (a full-line comment, or one at the end of a line), as the round trip
    reads them; None where the text is not YAML it can read."""
    from dgdlint.edit.source import Chunk, comment_layout, split_chunks

    text = re.sub(r"\r\n?", "\n", text.lstrip("\ufeff"))
    out: dict[int, list[str]] = {}
    try:
        for chunk in split_chunks(text):
            layout = comment_layout("-", Chunk("", chunk.body, 0))
            lines = chunk.body.splitlines()
            for number in layout.full_lines:
                if number < len(lines) and lines[number].strip():
                    out.setdefault(chunk.start + number, []).append(lines[number].strip())
            for number, (_column, comment) in layout.eol.items():
                out.setdefault(chunk.start + number, []).append(comment)
    except EditError:
        return None
    return out


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    output = captured.out + captured.err
    assert "internal error" not in output and "Traceback" not in output, output[-2000:]
    assert code in (0, 1), (code, captured.err[-2000:])
    return code, captured.out, captured.err


def _reads_back(text: str) -> None:
    """The text parses as YAML (composed, not constructed: a local tag such as `!local` is valid YAML that
    PyYAML's safe constructor has no type for), by libyaml, the parser dgdlint read the input with (and whose
    lineage Kubernetes' go-yaml shares): a line the edit keeps as written reads as it did. PyYAML's own
    Python parser is stricter in places: it refuses `[R? eadWriteMany]` (`? ` inside a plain scalar of a
    flow list), which libyaml takes."""
    list(yaml.compose_all(text.lstrip("\ufeff"), Loader=yaml.CSafeLoader))


def _comments_kept(before: str, after: str, err: str, path) -> None:
    """Every comment of `before` is in `after`, unless a dropped-comment note names the line of the key it
    belonged to (the comment at the end of that line, and the comment lines right above it)."""
    old, new = _comment_lines(before), _comment_lines(after)
    if old is None or new is None:
        return
    lost = Counter(c for cs in old.values() for c in cs) - Counter(c for cs in new.values() for c in cs)
    if not lost:
        return
    lines = re.sub(r"\r\n?", "\n", before.lstrip("\ufeff")).split("\n")
    covered = Counter()
    for line in {int(n) for n in re.findall(rf"^{re.escape(str(path))}:(\d+): warning: .*\[edit-comment-dropped\]$",
                                             err, re.MULTILINE)}:
        key = line - 1
        covered.update(c for c in old.get(key, []) if not lines[key].lstrip().startswith("#"))
        above = key - 1
        while above >= 0 and (not lines[above].strip() or lines[above].lstrip().startswith("#")):
            covered.update(old.get(above, []))
            above -= 1
    assert not lost - covered, (lost - covered, err)


def assert_fix_properties(capsys, tmp_path, text: str) -> None:
    target = tmp_path / "fuzz.yaml"
    target.write_bytes(text.encode("utf-8", "surrogatepass"))
    before = target.read_bytes()
    shown, diff, diff_err = _run(capsys, "fix", "--diff", str(target))
    assert target.read_bytes() == before, "fix --diff wrote the file"
    code, _out, err = _run(capsys, "fix", str(target))
    assert SECRET not in diff + diff_err + err
    after = target.read_bytes()
    # --diff fails where fix fails, and where fix changes the file (a fix was pending).
    assert shown == (1 if code == 1 or after != before else 0), (diff_err, err)
    assert "[fixed]" not in diff_err, diff_err
    if code == 1:
        assert after == before, "a refused fix changed the file"
        return
    if after == before:
        assert "[fixed]" not in err, err
        return
    written = after.decode("utf-8")
    _reads_back(written)
    _comments_kept(text, written, err, target)
    again, _out, again_err = _run(capsys, "fix", str(target))
    assert (again, target.read_bytes()) == (0, after), ("a second fix changed the file", again_err)
    assert "[fixed]" not in again_err, again_err


def assert_convert_properties(capsys, tmp_path, text: str, to: str) -> None:
    target = tmp_path / "fuzz.yaml"
    target.write_bytes(text.encode("utf-8", "surrogatepass"))
    before = target.read_bytes()
    code, out, err = _run(capsys, "convert", "--to", to, str(target))
    assert SECRET not in err
    written, _o, write_err = _run(capsys, "convert", "--to", to, "--write", str(target))
    assert written == code, (err, write_err)
    if code == 1:
        assert target.read_bytes() == before and out == "", "a refused convert wrote"
        return
    _reads_back(out)
    _comments_kept(text, out, err, target)
    if target.read_bytes() != before:
        kept = target.read_bytes().decode("utf-8")
        assert out in (kept, kept + "\n"), "--write and stdout differ"
        again, again_out, again_err = _run(capsys, "convert", "--to", to, str(target))
        assert (again, again_out) == (0, out), ("converting the result again changed it", again_err)
        back = "v1alpha1" if to == "v1beta1" else "v1beta1"
        _run(capsys, "convert", "--to", back, str(target))


FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.function_scoped_fixture])
THOROUGH = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                           HealthCheck.function_scoped_fixture,
                                                                           HealthCheck.filter_too_much])


@FAST
@given(text=mutated_texts())
def test_fix_of_a_mutated_file_keeps_its_promises(capsys, tmp_path_factory, text):
    assert_fix_properties(capsys, tmp_path_factory.mktemp("fix"), text)


@FAST
@given(text=mutated_texts(), to=st.sampled_from(["v1beta1", "v1alpha1"]))
def test_convert_of_a_mutated_file_keeps_its_promises(capsys, tmp_path_factory, text, to):
    assert_convert_properties(capsys, tmp_path_factory.mktemp("convert"), text, to)


@pytest.mark.slow
@THOROUGH
@given(text=mutated_texts(hostile_share=2))
def test_fix_of_a_mutated_file_keeps_its_promises_thorough(capsys, tmp_path_factory, text):
    assert_fix_properties(capsys, tmp_path_factory.mktemp("fix"), text)


@pytest.mark.slow
@THOROUGH
@given(text=mutated_texts(hostile_share=2), to=st.sampled_from(["v1beta1", "v1alpha1"]))
def test_convert_of_a_mutated_file_keeps_its_promises_thorough(capsys, tmp_path_factory, text, to):
    assert_convert_properties(capsys, tmp_path_factory.mktemp("convert"), text, to)


def test_a_fix_keeps_a_line_libyaml_takes_and_pyyaml_refuses(capsys, tmp_path):
    """Found by the thorough fix fuzzer in CI: a flow list holding `R? eadWriteMany`, which libyaml (dgdlint's
    parser, and Kubernetes' go-yaml's lineage) reads as one string and PyYAML's Python parser refuses. The
    fix elsewhere in the file keeps that line as written, and the file reads back as it read."""
    case = ROOT / "tests" / "edit" / "cases" / "review-r4" / "two-frontends-with-gpus.yaml"
    text = case.read_text(encoding="utf-8").replace("[ReadWriteMany]", "[R? eadWriteMany]", 1)
    assert "[R? eadWriteMany]" in text
    assert_fix_properties(capsys, tmp_path, text)
    written = (tmp_path / "fuzz.yaml").read_text(encoding="utf-8")
    assert written != text and "  accessModes: [R? eadWriteMany]\n" in written
