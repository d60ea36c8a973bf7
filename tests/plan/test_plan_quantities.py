"""Kubernetes quantities as `plan` reads and prints them: suffixes, exponents, rounding, and the shortest
exact form back."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dgdlint.quantity import (
    canonical_quantity,
    format_bytes,
    format_cores,
    go_quantity,
    is_quantity,
    parse_quantity,
    quantity_bytes,
)

GI = 2**30


@pytest.mark.parametrize(("text", "value"), [
    ("16", Decimal(16)),
    (16, Decimal(16)),  # YAML gives an int when the quantity is unquoted
    (0.5, Decimal("0.5")),
    ("100m", Decimal("0.1")),
    ("1500m", Decimal("1.5")),
    ("250u", Decimal("0.00025")),
    ("3n", Decimal("3e-9")),
    (".5", Decimal("0.5")),
    ("1.", Decimal(1)),
    ("+2", Decimal(2)),
    ("2k", Decimal(2000)),
    ("1M", Decimal(10**6)),
    ("1G", Decimal(10**9)),
    ("1T", Decimal(10**12)),
    ("1P", Decimal(10**15)),
    ("1E", Decimal(10**18)),
    ("1Ki", Decimal(1024)),
    ("128Mi", Decimal(128 * 2**20)),
    ("96Gi", Decimal(96 * GI)),
    ("1.5Gi", Decimal(3 * GI // 2)),
    ("1Ti", Decimal(2**40)),
    ("1Pi", Decimal(2**50)),
    ("1Ei", Decimal(2**60)),
    ("1e3", Decimal(1000)),
    ("1E3", Decimal(1000)),
    ("12e-3", Decimal("0.012")),
])
def test_a_quantity_parses_to_its_value(text, value):
    assert parse_quantity(text) == value


@pytest.mark.parametrize("text", ["", "1K", "1KB", "1 Gi", " 8Gi ", "8Gi ", "8Gi\n", "1gi", "1e", "1e1.5",
                                  "abc", "1..2", "0x10", "1e999", None, [], {}, True,
                                  "\u0662", "\uff11", "1\u0660Gi", "1e\u0663"])  # digits Go's patterns do not take
def test_what_is_not_a_quantity_parses_to_none(text):
    assert parse_quantity(text) is None


def test_bytes_round_up_a_fraction_of_a_byte():
    assert quantity_bytes("1500m") == 2
    assert quantity_bytes("0.5Ki") == 512
    assert quantity_bytes("200Gi") == 200 * GI
    assert quantity_bytes("nope") is None


@pytest.mark.parametrize(("count", "text"), [
    (0, "0"), (1, "1"), (1500, "1500"), (1024, "1Ki"), (2000, "2k"), (96 * GI, "96Gi"),
    (208 * GI, "208Gi"), (3 * GI // 2, "1536Mi"), (10**9, "1G"), (2**40, "1Ti"),
])
def test_bytes_print_in_the_shortest_exact_form(count, text):
    assert format_bytes(count) == text


@pytest.mark.parametrize(("cores", "text"), [
    (Decimal(16), "16"), (Decimal("38.100"), "38.1"), (Decimal("0.1"), "0.1"), (Decimal(100), "100"),
    (Decimal(0), "0"),
])
def test_cores_print_as_a_plain_decimal(cores, text):
    assert format_cores(cores) == text


@given(st.integers(min_value=0, max_value=2**70))
def test_printed_bytes_parse_back_to_the_same_count(count):
    assert quantity_bytes(format_bytes(count)) == count


def test_a_binary_amount_is_capped_at_the_largest_int64_as_kubernetes_caps_it():
    assert quantity_bytes("8Ei") == quantity_bytes("16Ei") == 2**63 - 1
    assert quantity_bytes("8E") == 8 * 10**18 and format_bytes(2**63) == "9223372036854775808"


def test_one_parser_serves_the_admission_rule_and_diff():
    assert is_quantity("96Gi") and is_quantity("500m") and is_quantity("1e3")
    assert not is_quantity("96 GB") and not is_quantity("96gi") and not is_quantity(None)
    assert canonical_quantity("1") == canonical_quantity("1000m") == "1"
    assert canonical_quantity("96Gi") == str(96 * 2**30)
    assert canonical_quantity(" lots ") == "lots"


@pytest.mark.parametrize(("quantity", "count"), [
    ("1", 1), (1, 1), ("8", 8), ("1000m", 1), ("2000m", 2), ("1e1", 10), ("0", 0),
    ("1.5", 1),  # the API server refuses a fraction of an extended resource; counted down, never up
    ("INF", 0), ("1e400", 0), ("two", 0), (None, 0),
    (" 1", 0),  # Kubernetes' parser trims nothing, and the operator drops what it cannot parse
])
def test_a_gpu_count_is_read_as_the_quantity_kubernetes_reads(quantity, count):
    from dgdlint.model.objects import parse_count

    assert parse_count(quantity) == count


@pytest.mark.parametrize(("text", "value"), [(".", 0), ("Gi", 0), ("-", 0), ("e3", 0), ("1e-10", Decimal("1e-9")),
                                             ("1e100", Decimal("1e100")), ("1.Ki", 1024)])
def test_the_forms_apimachinery_reads_read_as_it_does(text, value):
    """Its parser reads a missing number as 0 and rounds below a nano up to one; the cluster tier checks
    these against a real API server (tests/cluster/test_quantities.py)."""
    assert go_quantity(text) == value and is_quantity(text)


@pytest.mark.parametrize("text", ["1K", "1ki", "1e", ".e-10", "1e+", "1E-3m", " 1", "1 ", "1\n", "0x10", "1_000"])
def test_the_forms_apimachinery_refuses_are_no_quantity(text):
    assert go_quantity(text) is None and not is_quantity(text)
