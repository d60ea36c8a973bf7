"""Scalars typed as Kubernetes' YAML reader types them (go-yaml v2 under sigs.k8s.io/yaml). The cluster tier
(tests/cluster/test_yaml_scalars.py) checks every case against a real API server; these tests pin the
behaviour users meet most and the properties that need no server."""

from __future__ import annotations

import struct

from hypothesis import given
from hypothesis import strategies as st

from dgdlint.load import load_text
from dgdlint.load.resolve import go_float32_text, resolve_plain


def value(text: str) -> object:
    loaded = load_text("x.yaml", f"a: {text}\n")
    assert not loaded.findings, loaded.findings
    return loaded.documents[0].value["a"]


def test_the_short_booleans_are_booleans_and_base_60_is_text():
    assert (value("y"), value("N"), value("off")) == (True, False, False)
    assert (value("12:30"), value("1:20.5")) == ("12:30", "1:20.5")


def test_go_number_forms_are_numbers_and_whole_ones_are_integers():
    assert (value("0o17"), value("0X1F"), value("09"), value("1e3"), value("1_000"), value("-.5")) == (
        15, 31, 9, 1000, 1000, -0.5)
    assert type(value("1.0")) is int and type(value("1e20")) is float


def test_an_infinite_value_and_a_null_key_are_refused_at_their_line():
    for text in ("a: 1\nb: .inf\n", "a: 1\n~: x\n", "a: 1\nb: !!null nvapi-secret\n"):
        [finding] = load_text("x.yaml", text).findings
        assert (finding.rule, finding.line) == ("yaml-syntax", 2)
        assert "nvapi" not in finding.message


def test_keys_are_written_as_kubernetes_writes_them_and_collide_as_it_does():
    assert list(load_text("x.yaml", "y: 1\n1e3: 2\n0x10: 3\n").documents[0].value) == ["true", "1000", "16"]
    [finding] = load_text("x.yaml", "yes: 1\n'true': 2\n").findings
    assert finding.rule == "yaml-duplicate-key"


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_every_int64_reads_back_as_itself(number):
    assert resolve_plain(str(number))[1] == number
    assert resolve_plain(hex(number).replace("0x", "0X"))[1] == number


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_a_float_key_is_the_shortest_text_of_its_float32(number):
    text = go_float32_text(number)
    assert struct.unpack("f", struct.pack("f", float(text)))[0] == number
    assert len(text.replace("-", "").replace(".", "").split("e")[0].strip("0")) <= 9


def test_long_digit_strings_stay_cheap_and_exact():
    assert resolve_plain("0" * 5000 + "7")[1] == 7
    assert resolve_plain("9" * 5000) == ("tag:yaml.org,2002:str", "9" * 5000)  # past float64: text, as in Go


def test_an_aliased_key_is_the_anchored_scalar_and_an_aliased_collection_is_no_key():
    loaded = load_text("x.yaml", "&k yes: 1\na: &n 12\nb: {*k : 2, *n : 3}\nc: *k\n")
    assert loaded.documents[0].value == {"true": 1, "a": 12, "b": {"true": 2, "12": 3}, "c": True}
    [finding] = load_text("x.yaml", "a: &m {k: v}\nb: {*m : 1}\n").findings
    assert (finding.rule, finding.line) == ("yaml-syntax", 2) and "scalar" in finding.message
