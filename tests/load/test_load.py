"""The loader keeps positions, and turns malformed YAML into parse findings, never exceptions."""

from __future__ import annotations

import pytest

from dgdlint.load import MAX_DEPTH, format_path, load_bytes, load_paths, load_text


def test_positions_name_the_line_and_column_of_every_field():
    text = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: main\n      image: x:1\n"
    document = load_text("pod.yaml", text).documents[0]
    assert document.position(("spec", "containers", 0, "image")) == (6, 7)
    assert document.position(("spec", "containers", 0)) == (5, 7)
    assert document.position(("spec",)) == (3, 1)


def test_a_missing_path_falls_back_to_its_nearest_ancestor():
    document = load_text("x.yaml", "a:\n  b: 1\n").documents[0]
    assert document.position(("a", "nope", 3)) == (1, 1)


def test_scalars_resolve_as_yaml_1_1_like_kubernetes():
    value = load_text("x.yaml", "a: 1\nb: '1'\nc: true\nd: null\ne: 1.5\nf: 2026-01-01\n").documents[0].value
    assert value == {"a": 1, "b": "1", "c": True, "d": None, "e": 1.5, "f": "2026-01-01"}


@pytest.mark.parametrize(("text", "has_null"), [
    ("a: 1\nb: [x, '']\n", False),
    ("a: 'null'\nb: '~'\n", False),
    ("a: null\n", True),
    ("a: ~\n", True),
    ("a:\n", True),
    ("a: [1, null]\n", True),
    ("a: &n\nb: *n\n", True),
    ("a: !!null ''\n", True),
])
def test_the_loader_says_whether_a_document_holds_a_null(text, has_null):
    """The schema stage copies a document without its nulls only when it has some: this flag decides."""
    assert load_text("x.yaml", text).documents[0].has_null is has_null


def test_the_non_specific_tag_keeps_a_scalar_as_text_as_kubernetes_yaml_library_does():
    value = load_text("x.yaml", "a: ! 123\nb: ! true\nc: !!int '7'\nd: 8\n").documents[0].value
    assert value == {"a": "123", "b": "true", "c": 7, "d": 8}


def test_a_plain_scalar_is_typed_the_same_wherever_it_repeats():
    text = "a: 1\nb: [1, '1', 1]\nc: {d: yes, e: 'yes', f: yes}\n"
    assert load_text("x.yaml", text).documents[0].value == {"a": 1, "b": [1, "1", 1],
                                                              "c": {"d": True, "e": "yes", "f": True}}


def test_duplicate_keys_are_a_finding_at_the_second_key():
    result = load_text("dup.yaml", "a: 1\nb: 2\na: 3\n")
    [finding] = result.findings
    assert (finding.rule, finding.line, finding.column, finding.path) == ("yaml-duplicate-key", 3, 1, "a")


def test_a_syntax_error_names_its_line_and_keeps_earlier_documents():
    result = load_text("bad.yaml", "a: 1\n---\nb: [1, 2\n")
    assert [d.value for d in result.documents] == [{"a": 1}]
    [finding] = result.findings
    assert finding.rule == "yaml-syntax" and finding.line == 4 and finding.stage == "parse"


def test_tabs_in_indentation_are_a_finding():
    [finding] = load_text("tab.yaml", "a:\n\tb: 1\n").findings
    assert finding.rule == "yaml-syntax" and finding.line == 2


def test_an_alias_bomb_is_refused_quickly():
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        levels.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    result = load_text("bomb.yaml", "\n".join(levels) + "\n")
    assert not result.documents
    assert result.findings[0].rule == "yaml-limits"


def test_a_recursive_alias_is_refused():
    assert load_text("rec.yaml", "a: &a [1, *a]\n").findings[0].rule == "yaml-limits"


def test_deep_nesting_is_a_finding_not_a_crash():
    result = load_text("deep.yaml", "[" * 100_000)
    assert result.findings and not result.documents
    nested = "a:\n" + "".join("  " * i + "b:\n" for i in range(1, MAX_DEPTH + 5)) + "  " * (MAX_DEPTH + 5) + "c: 1\n"
    assert load_text("deep2.yaml", nested).findings[0].rule in ("yaml-limits", "yaml-syntax")


def test_invalid_utf8_names_the_line_of_the_bad_byte():
    [finding] = load_bytes("bad.yaml", b"a: 1\nb: \xff\n").findings
    assert (finding.rule, finding.line, finding.column) == ("yaml-encoding", 2, 4)


def test_binary_input_is_a_finding():
    assert load_bytes("bin.yaml", b"\x00\x01\x02garbage").findings[0].rule == "yaml-encoding"


def test_a_bom_and_crlf_line_endings_still_load():
    result = load_bytes("win.yaml", b"\xef\xbb\xbfapiVersion: v1\r\nkind: Namespace\r\nmetadata:\r\n  name: x\r\n")
    assert not result.findings
    assert result.documents[0].value["metadata"] == {"name": "x"}
    assert result.documents[0].position(("metadata", "name")) == (4, 3)


def test_directories_are_walked_and_symlink_loops_visited_once(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.yaml").write_text("a: 1\n")
    (tmp_path / "a" / "notes.txt").write_text("ignored")
    (tmp_path / "a" / "loop").symlink_to(tmp_path)
    result = load_paths([str(tmp_path)])
    assert [d.value for d in result.documents] == [{"a": 1}]


def test_an_unreadable_file_is_a_finding(tmp_path):
    target = tmp_path / "secret.yaml"
    target.write_text("a: 1\n")
    target.chmod(0)
    try:
        result = load_paths([str(target)])
    finally:
        target.chmod(0o600)
    import os

    if os.geteuid() == 0:
        pytest.skip("root reads any file")
    assert result.findings[0].rule == "file-unreadable"


def test_a_file_over_the_size_limit_is_a_finding_without_reading_it(tmp_path):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as handle:
        handle.truncate(200 * 1024 * 1024)
    result = load_paths([str(big)])
    assert result.findings[0].rule == "yaml-limits" and not result.documents


def test_a_file_longer_than_its_size_said_is_read_whole(tmp_path, monkeypatch):
    """A file is read for the bytes its size says, then to the limit where it holds more (it grew since, or its
    size says nothing, as in /proc)."""
    import os

    import dgdlint.load.files as files

    grown = tmp_path / "grown.yaml"
    grown.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: grown\ndata:\n  a: b\n")
    real_stat = os.stat
    monkeypatch.setattr(files.os, "stat", lambda path, *a, **k: os.stat_result(
        (*real_stat(path, *a, **k)[:6], 3, *real_stat(path, *a, **k)[7:])))
    result = load_paths([str(grown)])
    assert not result.findings and result.documents[0].value["data"] == {"a": "b"}


def test_format_path_is_the_field_path_users_read():
    assert format_path(("spec", "services", "Worker", "envs", 3, "value")) == "spec.services.Worker.envs[3].value"
    assert format_path(("metadata", "labels", "nvidia.com/x")) == "metadata.labels['nvidia.com/x']"


@pytest.mark.parametrize(("text", "value"), [
    ("a: 9223372036854775807\n", 2**63 - 1),
    ("a: 9223372036854775808\n", 2**63),
    ("a: -9223372036854775809\n", float(-(2**63) - 1)),
    ("a: 100000000000000000000\n", 1e20),
    ("a: !!int 18446744073709551615\n", 2**64 - 1),
])
def test_an_integer_past_int64_is_read_as_kubernetes_reads_it(text, value):
    """Kubernetes' YAML reader (go-yaml) holds an integer up to uint64's top as one, and kubectl's JSON carries
    its digits (a built-in quantity reads them exactly); one below int64's bottom or past uint64 is a float.
    Custom resources take an int past int64 for a float (the schema stage's `integer` check); the cluster tier
    holds both to the API server (tests/cluster/test_integer_formats.py)."""
    loaded = load_text("x.yaml", text).documents[0].value["a"]
    assert loaded == value and type(loaded) is type(value)


@pytest.mark.parametrize("text", ["a: !!bool maybe\n", "a: !!int abc\n", "a: !!float nvapi-SECRET\n", "a: !!int ''\n",
                                  "a: [1, !!int 1.5]\n", "a: !!null maybe\n", "a: !!int 100000000000000000000\n",
                                  "a: !!timestamp 2001-02-30\n", "a: !!binary maybe?\n"])
def test_a_value_its_explicit_tag_cannot_hold_is_refused_without_repeating_it(text):
    result = load_text("x.yaml", text)
    [finding] = result.findings
    assert (finding.rule, finding.severity, finding.line) == ("yaml-syntax", "error", 1)
    assert "tagged !!" in finding.message and "SECRET" not in finding.message and "maybe" not in finding.message
    assert result.documents == []


@pytest.mark.parametrize(("text", "value"), [("a: !!int '12'\n", 12), ("a: !!bool 'yes'\n", True),
                                             ("a: !!float '1'\n", 1.0), ("a: !!null ''\n", None),
                                             ("a: !!bool y\n", True), ("a: !!binary aGk=\n", "hi"),
                                             ("a: !!timestamp 2001-12-14\n", "2001-12-14")])
def test_a_value_that_fits_its_explicit_tag_takes_its_type(text, value):
    assert load_text("x.yaml", text).documents[0].value["a"] == value


MERGES = """\
base: &base {a: 1, b: 2}
other: &other {b: 3, c: 4}
after:
  <<: *base
  b: own
before:
  b: own
  <<: *base
both:
  <<: [*base, *other]
inline:
  <<: {d: 5}
  e: 6
quoted:
  "<<": *base
"""


def test_merge_keys_merge_as_kubernetes_yaml_reader_does():
    """In document order, as sigs.k8s.io/yaml (go-yaml v2) reads them (its YAMLToJSON, run on these cases,
    gives the same): a merge sets its mappings' keys over the keys written before it, keys written after it
    win, and of a list of mappings the first wins."""
    document = load_text("m.yaml", MERGES).documents[0]
    value = document.value
    assert value["after"] == {"a": 1, "b": "own"}
    assert value["before"] == {"b": 2, "a": 1}
    assert value["both"] == {"a": 1, "b": 2, "c": 4}
    assert value["inline"] == {"d": 5, "e": 6}
    assert value["quoted"] == {"<<": {"a": 1, "b": 2}}  # a quoted `<<` is an ordinary key
    assert document.position(("after", "a")) == (4, 3)  # a merged key is placed at its `<<`
    assert document.position(("after", "b")) == (5, 3)  # a key written after it keeps its place
    assert document.position(("before", "b")) == (8, 3)  # one the merge overwrote is placed at the `<<`


@pytest.mark.parametrize("text", ["a: {<<: 5}\n", "a: {<<: [{b: 1}, 2]}\n", "x: &x [1]\na: {<<: *x}\n"])
def test_a_merge_of_anything_but_mappings_is_refused(text):
    [finding] = load_text("m.yaml", text).findings
    assert finding.rule == "yaml-syntax" and "merge key" in finding.message
