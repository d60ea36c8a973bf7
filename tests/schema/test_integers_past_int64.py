"""An integer past int64 in a DGD's integer and string fields (v1alpha1 and v1beta1) and in a Job's int32,
int64, string and quantity fields: dgdlint refuses and takes what the API server does, at that field. The
cases and the server's verdicts are tests/past_int64.py's (the cluster tier holds them to a real server)."""

from __future__ import annotations

import pytest

from dgdlint.engine import check_texts
from dgdlint.schema import SchemaStage
from past_int64 import (
    CASES,
    PLACES,
    QUANTITY_PAIRS,
    cpu_request_and_limit,
    manifest,
    server_number,
    server_takes,
    server_takes_pair,
)


@pytest.mark.parametrize("place, value", CASES, ids=[f"{p}={v}" for p, v in CASES])
def test_an_integer_past_int64_gets_the_api_server_s_verdict(place, value):
    findings = [f for f in check_texts({"m.yaml": manifest(place, value)}, SchemaStage([])).findings
                if f.severity == "error"]
    assert (not findings) == server_takes(place, value), [f"{f.rule} {f.path}: {f.message}" for f in findings]
    assert {f.path for f in findings} <= {PLACES[place][2]}


@pytest.mark.parametrize("request_, limit", QUANTITY_PAIRS)
def test_a_quantity_up_to_uint64_s_top_is_compared_by_its_digits(request_, limit):
    findings = [f for f in check_texts({"m.yaml": cpu_request_and_limit(request_, limit)}, SchemaStage([])).findings
                if f.severity == "error"]
    assert (not findings) == server_takes_pair(request_, limit), [f.message for f in findings]
    assert {f.rule for f in findings} <= {"container-resources-invalid"}


_INTEGER_PLACES = sorted(place for place, (_, kind, _) in PLACES.items() if kind in ("int32", "int64"))


@pytest.mark.parametrize("place", _INTEGER_PLACES)
@pytest.mark.parametrize("value", ["9223372036854775808", "99999999999999999999"])
def test_an_integer_field_past_int64_is_one_schema_finding_that_shows_the_number_sent(place, value):
    findings = [f for f in check_texts({"m.yaml": manifest(place, value)}, SchemaStage([])).findings
                if f.stage == "schema" and f.severity == "error"]
    assert len(findings) == 1, [f.message for f in findings]  # not also "violates maximum"
    sent = server_number(value)  # what the JSON carries: the digits, or past uint64 the rounded float
    digits = str(int(sent))
    assert "a whole number past the int64 range" in findings[0].message
    assert f"({digits})" in findings[0].message, findings[0].message
