"""dgdlint's reading of RFC 3339 times (go_time.py) against Go's own `time.Parse(time.RFC3339, ...)`, run by
the Go toolchain on the same texts: the texts Go takes must be the ones dgdlint takes. Skips without Go."""

from __future__ import annotations

import random

import pytest

from dgdlint.go_time import _strict, rfc3339_problem
from go_oracle import ask, build, mutate

_ORACLE = """package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"time"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		text, err := strconv.Unquote(in.Text())
		if err != nil {
			panic(err)
		}
		if _, err := time.Parse(time.RFC3339, text); err != nil {
			fmt.Println("refused")
		} else {
			fmt.Println("taken")
		}
	}
}
"""

CASES = [
    "2026-01-02T03:04:05Z", "2026-01-02T03:04:05.123456789Z", "2026-01-02T03:04:05+01:00",
    "2024-02-29T00:00:00Z", "2026-02-29T00:00:00Z", "2026-02-30T00:00:00Z", "2026-04-31T00:00:00Z",
    "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-32T00:00:00Z",
    "2026-01-02T24:00:00Z", "2026-01-02T23:60:00Z", "2026-01-02T23:59:60Z", "2026-01-02T3:04:05Z",
    "2026-01-02T03:04:05,5Z", "2026-01-02T03:04:05+24:00", "2026-01-02T03:04:05+23:60",
    "2026-01-02T03:04:05+25:00", "2026-01-02T03:04:05+23:61", "2026-01-02t03:04:05Z", "2026-01-02T03:04:05z",
    "2026-01-02 03:04:05Z", "2026-01-02T03:04:05", "2026-01-02T03:04:05ZZ", "2026-01-02T03:04:05.Z",
    "2026-1-02T03:04:05Z", "26-01-02T03:04:05Z", "2026-01-02T03:04Z", "2026-01-02T03:04:05+0100",
    "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
    "2026-01-02T03:04:05*01:00", "+026-01-02T03:04:05Z", "2026-01-02T03:04:05.1234567891234Z", "",
    "2026-01-02T003:04:05Z", "2026-01-02T03:04:05 Z", "2026-01-02T03:04:05-00:00", "２０２６-01-02T03:04:05Z",
]


def _mutants(count: int) -> list[str]:
    """Texts near the RFC 3339 shape: a valid time with characters replaced, inserted or removed."""
    rng = random.Random(20261202)
    alphabet = "0123456789-:T.Z+,tz 9"
    out = []
    for _ in range(count):
        text = list(f"{rng.randint(0, 9999):04d}-{rng.randint(0, 13):02d}-{rng.randint(0, 32):02d}T"
                    f"{rng.randint(0, 25):02d}:{rng.randint(0, 61):02d}:{rng.randint(0, 61):02d}"
                    + rng.choice(["Z", "", ".5Z", ",25Z", f"+{rng.randint(0, 25):02d}:{rng.randint(0, 61):02d}",
                                  f"-{rng.randint(0, 25):02d}:{rng.randint(0, 61):02d}"]))
        out.append(mutate(rng, "".join(text), alphabet, [0, 0, 1, 2]))
    return out


@pytest.fixture(scope="module")
def go_verdicts(tmp_path_factory):
    binary = build(tmp_path_factory.mktemp("go-time"), _ORACLE, "Go's time.Parse is the oracle of this test")
    return lambda texts: [answer == "taken" for answer in ask(binary, texts)]


def test_the_texts_go_takes_are_the_ones_dgdlint_takes(go_verdicts):
    texts = CASES + _mutants(4000)
    taken = go_verdicts(texts)
    assert len(taken) == len(texts)
    wrong = [(text, go) for text, go in zip(texts, taken, strict=True) if (rfc3339_problem(text) is None) != go]
    assert not wrong, wrong[:20]
    # the sample reaches both answers, and both of Go's readers
    assert any(taken) and not all(taken)
    assert any(go and not _strict(text) for text, go in zip(texts, taken, strict=True))
    assert go_verdicts(["2026-01-02T3:04:05Z", "2026-02-30T00:00:00Z"]) == [True, False]


@pytest.mark.parametrize(("text", "problem"), [
    ("2026-02-30T00:00:00Z", "has day 30, which month 2 of 2026 does not have"),
    ("2026-13-01T00:00:00Z", "has month 13, out of range"),
    ("2026-01-02T03:04:05", "has no time zone (Z or +hh:mm)"),
    ("2026-01-02T03:04:05Zx", "has 'x' after the time zone"),
])
def test_a_refusal_says_what_is_wrong(text, problem):
    assert rfc3339_problem(text) == problem
