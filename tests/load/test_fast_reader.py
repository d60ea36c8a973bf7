"""The quick reader (load.fast) gives what documents.py gives, or declines.

Wherever load.fast answers, documents.py must read the same text to the same documents: same stream indexes,
values equal in type as well as in value (1 is not 1.0, True is not 1, key order kept), the same keys, a null
said wherever there is one, and no finding (load.fast declines what documents.py would report). Compared on
every YAML file of the tests, the chart's renders, upstream's manifests (where the reference data is beside
the project), generated texts full of scalars YAML readers disagree on, and mutants of real files."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.refdata import CORPUS, PRERELEASE, ROOT, require_reference

from dgdlint.load import LoadResult, fast, load_text, screen
from dgdlint.load.documents import build_documents
from dgdlint.load.resolve import _FIXED, STR, Refused, resolve_plain

TEST_FILES = sorted(path for path in (ROOT / "tests").rglob("*") if path.suffix in (".yaml", ".yml", ".json"))


def typed(value: object) -> str:
    """A value's text with its types: repr tells 1 from 1.0 and True from 1, and keeps key order."""
    return repr(value)


def agree(text: str) -> bool:
    """Whether load.fast answered; where it did, the answer is documents.py's (asserted). The screen's answer
    is the same with its quick looks at the text as with every search run (asserted)."""
    assert screen.declined(text) == screen.declined(text, quick=False), text
    quick = fast.read(text)
    if quick is None:
        return False
    slow = LoadResult()
    build_documents("x.yaml", text, slow)
    assert slow.findings == [], f"load.fast read a text documents.py reports: {slow.findings[0].message}"
    assert [(index, typed(value)) for index, value, *_ in quick] == \
        [(document.index, typed(document.value)) for document in slow.documents]
    for (_index, _value, has_null, whole_floats, keys), document in zip(quick, slow.documents, strict=True):
        assert keys == document.keys
        assert has_null or not document.has_null  # True where unsure; never False where there is a null
        assert whole_floats == document.whole_floats
    return True


def test_the_readers_agree_on_every_yaml_file_of_the_tests():
    read = [path for path in TEST_FILES if agree(path.read_text(encoding="utf-8", errors="replace"))]
    # Most fixtures are plain manifests: the quick reader must take them, or it saves nothing.
    assert len(read) > len(TEST_FILES) // 2, f"load.fast read {len(read)} of {len(TEST_FILES)} files"


def test_the_readers_agree_on_the_charts_renders():
    from dgdlint.tools.bench import rendered_documents

    read = {kind: [agree(text) for text in texts] for kind, texts in rendered_documents().items()}
    assert all(read["DynamoGraphDeployment"]) and all(read["PersistentVolumeClaim"])  # what large sets are made of


@pytest.mark.parametrize("folder", [CORPUS, PRERELEASE], ids=["upstream-examples", "cosmos3-prerelease"])
def test_the_readers_agree_on_upstream_manifests(folder):
    files = sorted(require_reference(folder).rglob("*.yaml"))
    assert files
    read = [path for path in files if agree(path.read_text(encoding="utf-8"))]
    assert read, "load.fast read none of upstream's manifests"


def test_dgdlints_own_data_files_read_alike_by_both_yaml_libraries():
    """datafiles.yaml_value reads them with load.fast, and PyYAML's reading of them must be the same. Each must
    be one load.fast takes: one it declines makes every check import PyYAML to read it (write such a file in
    block style, a flow collection on one line, no quoted words inside a plain scalar)."""
    import importlib.resources

    import yaml

    from dgdlint.datafiles import yaml_value

    folder = importlib.resources.files("dgdlint") / "data"
    names = [entry.name for entry in folder.iterdir() if entry.name.endswith(".yaml")]
    assert names
    for name in names:
        text = (folder / name).read_text(encoding="utf-8")
        assert fast.read(text) is not None, name
        assert typed(yaml_value(text)) == typed(yaml.load(text, Loader=yaml.CSafeLoader)), name
    matrix = (ROOT / "charts" / "cosmos3-reasoner" / "files" / "support-matrix.yaml").read_text(encoding="utf-8")
    assert fast.read(matrix) is not None
    assert typed(yaml_value(matrix)) == typed(yaml.load(matrix, Loader=yaml.CSafeLoader))


# Scalars YAML readers disagree on (YAML 1.1 and 1.2 words, number forms of Go, Python and JSON, dates,
# base 60, infinities), and a few that need quoting.
_DOUBTFUL = ["inf", "-inf", "+Inf", "INF", "nan", "NaN", "Nan", "infinity", "-infinity", ".Nan",
             "yes", "Yes", "NO", "n", "Y", "on", "OFF", "true", "True", "FALSE", "null", "Null", "NULL", "~", "",
             "0", "-0", "+0", "00", "012", "0o17", "0O17", "0x1F", "0X1f", "0b101", "1_000", "1__0", "_1", "1e3",
             "1E3", "1e+3", "-1.5e-3", "1.", ".5", "-.5", "+.5", "1.0", "1.50", "+12", "9223372036854775807",
             "9223372036854775808", "18446744073709551616", "1e400", ".inf", "-.Inf", "+.INF", ".nan", ".NaN",
             "12:30", "1:20:30", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-13-40", "1.5.0", "96Gi",
             "0.0.0.0", "x", "a b", "-", "--port", ".", "..", "0.", "1e", "e3", "y es", "nvidia.com/gpu", "é",
             "#", "a#b", "@x", "`x", "%x", "x: y", "- x", "[x]", "{x}", "'q'", '"q"', "\\n", "a\\", "x ", " x",
             "yes\n", "line one\nline two", "\u00e9t\u00e9", "\U0001f600"]


def _plain_ok(text: str) -> bool:
    return text != "" and text == text.strip() and "\n" not in text and not text.startswith(
        ("#", "@", "`", "%", "- ", "-\t", "[", "{", "'", '"', "!", "&", "*", "|", ">", "?", ":")) and \
        ": " not in text and " #" not in text and not text.endswith(":") and text not in ("-", "?")


def _single(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _double(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


# Scalars as written: escapes of double-quoted scalars (YAML 1.1's and 1.2's), and scalars over two lines.
_WRITTEN = ['"\\ud800"', '"\\L\\L"', '"a\\\n\n    b"', '"a\n    \\ \n    b"', '"\\\\"  x',
            '"\\x41"', '"\\u00e9"', '"\\t"', '"\\/"', '"\\N"', '"\\_"', '"\\L"', '"\\P"', '"\\e"', '"\\0"',
            '"\\a"', '"\\U0001F600"', '"\\ "', '"a\\\n    b"', '"a\n    b"', "'a\n    b'", "'a\n\n    b'",
            "a\n    b", "a\n\n    b", "a\n    # b", '"1"\n    ', "x # y"]


@st.composite
def _scalar(draw) -> str:
    if draw(st.integers(0, 5)) == 0:
        return draw(st.sampled_from(_WRITTEN))
    text = draw(st.sampled_from(_DOUBTFUL) | st.text(st.sampled_from("ab01.:-_ eE+#x'\"\\"), max_size=6))
    styles = ["single", "double"] + (["plain"] if _plain_ok(text) else [])
    style = draw(st.sampled_from(styles))
    return text if style == "plain" else _single(text) if style == "single" else _double(text)


@st.composite
def _node(draw, indent: int, depth: int) -> str:
    """A block node's text after a key or a dash: ` scalar`, or a nested block on the next lines."""
    kind = draw(st.sampled_from(["scalar"] * 3 + (["map", "seq", "flow", "block"] if depth < 3 else ["block"])))
    pad = " " * indent
    if kind == "scalar":
        return " " + draw(_scalar())
    if kind == "flow":
        items = draw(st.lists(_scalar(), max_size=3))
        return " [" + ", ".join(items) + "]" if draw(st.booleans()) else \
            " {" + ", ".join(f"{_single(f'k{i}')}: {item}" for i, item in enumerate(items)) + "}"
    if kind == "block":
        indicator = draw(st.sampled_from(["|", ">", "|-", ">-", "|+", ">+", "|2", ">1-", "| #-", "|+ # c"]))
        lines = draw(st.lists(st.sampled_from(["text", "", "  more", "yes", "a: b", "# not a comment"]),
                              min_size=1, max_size=3))
        return f" {indicator}\n" + "\n".join(f"{pad}  {line}".rstrip() if line else "" for line in lines)
    if kind == "map":
        keys = draw(st.lists(st.sampled_from(["a", "b", "yes", "1", "1.0", "~", "'on'", '"x y"', "0x1F", "k"]),
                             min_size=1, max_size=3))
        return "\n" + "\n".join(f"{pad}  {key}:{draw(_node(indent + 2, depth + 1))}" for key in keys)
    items = draw(st.lists(_node(indent + 2, depth + 1), min_size=1, max_size=3))
    return "\n" + "\n".join(f"{pad}  -{item}" for item in items)


@st.composite
def _document(draw) -> str:
    keys = draw(st.lists(st.sampled_from(["apiVersion", "kind", "spec", "a", "n", "12", "x"]), min_size=1,
                         max_size=4))
    body = "\n".join(f"{key}:{draw(_node(0, 0))}" for key in keys) + "\n"
    if draw(st.booleans()):
        body = "---\n" + body + draw(st.sampled_from(["", "---\n", "...\n", "---\nb: 1\n", "# end\n"]))
    return body


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_document())
def test_the_readers_agree_on_generated_documents(text):
    agree(text)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_document())
def test_the_readers_agree_on_many_generated_documents(text):
    agree(text)


_ALPHABET = list(":-[]{},#&*!|>'\"?%@`\n \\.0123456789abcxyzeE_+~") + \
    ["\n  ", ": ", "- ", "---\n", "...\n", "yes", "0x", "\t", "\r", "\x85", "\u2028", "\ufeff", "é", "\n # c", " # c"]


def _mutants(seed: int, count: int):
    rng = random.Random(seed)
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in TEST_FILES[::7]]
    for _ in range(count):
        text = list(rng.choice(texts))
        for _ in range(rng.randint(1, 6)):
            at = rng.randrange(len(text) + 1)
            roll = rng.random()
            if roll < 0.45 or not text:
                text.insert(at, rng.choice(_ALPHABET))
            elif roll < 0.75:
                del text[min(at, len(text) - 1)]
            else:
                text[min(at, len(text) - 1)] = rng.choice(_ALPHABET)
        yield "".join(text)


def test_the_readers_agree_on_mutants_of_real_files():
    read = sum(agree(text) for text in _mutants(20261204, 1500))
    assert read > 100, "load.fast took too few mutants for the comparison to mean anything"


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
def test_the_readers_agree_on_many_mutants(seed):
    for text in _mutants(seed, 5000):
        agree(text)


@settings(max_examples=3000, deadline=None)
@given(st.from_regex(r"[yYnNtTfFoO][0-9a-zA-Z_.+-]{0,6}", fullmatch=True) | st.sampled_from(sorted(_FIXED)))
def test_every_text_starting_with_a_letter_that_means_anything_is_doubted(word):
    """load.fast doubts, of the JSON strings starting with a letter, only resolve._FIXED's words: every other
    such text is a string to resolve.py, as quoted or plain."""
    try:
        tag = resolve_plain(word)[0]
    except Refused:
        tag = None
    assert (fast._DOUBTFUL.fullmatch(f'"{word}"') is not None) == (tag != STR)


def test_a_document_read_quickly_finds_its_positions_when_asked():
    text = "# a comment\n---\napiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: main\n"
    document = load_text("pod.yaml", text).documents[0]
    assert document.source is not None  # read by load.fast: no positions yet
    assert document.position(("spec", "containers", 0, "name")) == (7, 7)
    assert (document.line, document.column) == (3, 1)
    assert document.source is None


def test_rapidyaml_says_nothing_on_standard_error(capfd):
    assert fast.read("a: [b\n") is None
    assert fast.read("a: b\n c: d\n") is None
    assert capfd.readouterr().err == ""


def test_what_the_quick_reader_leaves_to_documents_py():
    for text in ["a: yes\n", "a: 012\n", "a: ~\n", "a: .inf\n", "yes: 1\n", "1.0: x\n", "a: &x 1\nb: *x\n",
                 "a: !!str 1\n", "<<: {a: 1}\n", "a:\tb\n", "a: b\r\n", "%YAML 1.1\n---\na: 1\n", "a: b\na: c\n",
                 "? a\n: b\n", "a: " + "[" * 70 + "]" * 70 + "\n",
                 # quoted, but written by rapidyaml as it writes the plain form, which resolve.py types otherwise
                 "a: '012'\n", "b: \"yes\"\n", "c: '~'\n",
                 # what rapidyaml takes and libyaml refuses
                 "a: ]x\n", "a: {b:, c}\n", "- [a]  - b\n", "a: |x\n  y\n", ": x\n", "- 'a'  - b\n",
                 "a:\n  b: 1\n  ...\n", "a:\n  b:\n  - x\n # c\n   c: 1\n", "a: |\n  x",
                 "k" * 1100 + ": v\n",
                 # written by rapidyaml as `.inf` and `.nan`, keys quoted or not
                 "inf: x\n", "'nan': x\n", "a: -infinity\n", "a: nan\n", "a: .NaN\n",
                 # found by a review that generated and mutated 1.5 million texts: surrogate escapes, escaped line
                 # breaks and spaces, `\L` and `\P`, block headers with an indentation digit or a comment, a node
                 # on the `---` line, a quoted key over two lines, a key past 1024 characters with its spaces,
                 # a closing quote after a backslash with more on the line
                 'a: "\\ud800"\n', 'a: "\\U0000DFFF"\n', '- "a\\\n\n  b"\n', 'k: "a\n  \\ \n  b"\n',
                 'k: "a\\n\\L\\La"\n',
                 "a: |+1\n  \n", "a: ''\nb: |1\n  \n", "a: | #-\n  x\n", "--- |\nx\n", "--- ]\n", "--- {a #c}\n",
                 "a: 'b\n  c': d\n", 'a:\n  "b\n   c": d\n', "a" + " " * 1024 + ": v\n", "- '\\'  - b\n",
                 # ... and by a second one (11.5 million texts): a quoted key over two lines whose last line holds
                 # a `#` or another quote, and a document that is a quoted scalar with a tag right after it
                 '- "a\n  #": b\n', "- 'a\n  b''c': d\n", 'x:\n  "a\n  b\'c": d\n', '- "a\n  \\"": b\n',
                 "''!x\n", "'it''s'!x\n"]:
        assert fast.read(text) is None, text
        assert agree(text) is False
    # The plain forms of these are JSON numbers and literals to rapidyaml: a JSON string is a quoted scalar.
    for text in ["a: 8000\nb: '8000'\n", "a: true\nb: 'true'\n", "a: '1.5.0'\nb: \"0.5\"\nc: 'null'\n",
                 "a: [ReadWriteOnce]\nb: {cpu: \"1\"}\nc: []\n"]:
        assert agree(text), text


def test_a_clean_set_reads_no_positions(tmp_path):
    """A check of files without findings never reads a position: a rule that places something it does not
    report (an anchor for a related location, say) costs every file a second reading."""
    from dgdlint.engine import check_loaded
    from dgdlint.load import load_paths
    from dgdlint.schema import SchemaStage
    from dgdlint.tools.bench import rendered_documents, write_files

    write_files(tmp_path, rendered_documents()["DynamoGraphDeployment"], 40)  # as `make bench` writes them
    loaded = load_paths([str(tmp_path)], jobs=1)
    assert len(loaded.documents) == 40 and all(document.source is not None for document in loaded.documents)
    result = check_loaded(loaded, SchemaStage([]))
    assert result.findings == []
    unread = [document.file for document in loaded.documents if document.source is None]
    assert unread == [], f"positions read for {unread}"
