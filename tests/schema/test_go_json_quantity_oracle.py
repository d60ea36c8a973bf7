"""A quantity in a conversion record, read as Go reads it: resource.Quantity's own UnmarshalJSON takes the
bytes between the quotes as written (escapes undecoded), trims them with Go's TrimSpace and parses them. The
oracle is apimachinery itself (the release the API server of `make tools` is built from), on texts near the
ways a quantity is written, and odd ones: escapes, Unicode spaces Python trims and Go does not. Skips
without Go."""

from __future__ import annotations

import json
import random

import pytest

from dgdlint.go_json import Undecodable, decode, parse
from go_oracle import ask, build_with_kubernetes, near

_MAIN = """package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"
)

type Top struct {
	Size resource.Quantity `json:"size"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		text, err := strconv.Unquote(in.Text())
		if err != nil {
			panic(err)
		}
		var top Top
		if err := json.Unmarshal([]byte(text), &top); err != nil {
			fmt.Println("refused")
		} else {
			fmt.Println("taken")
		}
	}
}
"""

# The node the CRDs write for a resource.Quantity field.
QUANTITY = {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}],
            "pattern": r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+"
                       r"(\.[0-9]*)?)|(\.[0-9]+))))?$"}
SCHEMA = {"type": "object", "properties": {"size": QUANTITY}}

SEEDS = ['{"size": "1Gi"}', '{"size": " 2Gi "}', '{"size": 3}', '{"size": 1.5}', '{"size": 1e3}',
         '{"size": "\\u0031Gi"}', '{"size": "\\t1Gi"}', '{"size": "\\n4"}', '{"size": "500m"}',
         '{"size": "\u00a01Gi"}', '{"size": "\u001c1Gi"}', '{"size": "\u20281"}', '{"size": "\u3000 8"}',
         '{"size": "1Gi\\""}', '{"size": "+.5e-3"}', '{"size": "-1"}', '{"size": null}', '{"size": ""}',
         '{"size": true}', '{"size": [1]}', '{"size": {"a": 1}}', '{"size": "1\\/2"}', '{"size": -0}']
ALPHABET = '0123456789 .eEGiKm+-"\\tun\u00a0\u001c\u0085'


def dgdlint_takes(text: str) -> bool:
    try:
        decode(parse(text), SCHEMA)
    except (Undecodable, ValueError):
        return False
    return True


@pytest.fixture(scope="module")
def apimachinery(tmp_path_factory):
    binary = build_with_kubernetes(tmp_path_factory.mktemp("quantity-oracle"), _MAIN,
                                   "apimachinery's resource.Quantity is the oracle of this test")
    return lambda texts: [answer == "taken" for answer in ask(binary, texts)]


def test_go_decodes_a_quantity_exactly_where_dgdlint_does(apimachinery):
    texts = near(random.Random(20261203), SEEDS, ALPHABET, 3000)
    texts = [text for text in texts if _json_python_reads(text)]
    verdicts = apimachinery(texts)
    wrong = [(text, go) for text, go in zip(texts, verdicts, strict=True) if dgdlint_takes(text) != go]
    assert not wrong, wrong[:10]
    assert any(verdicts) and not all(verdicts)


def _json_python_reads(text: str) -> bool:
    """Texts both parsers read as JSON (where they differ, another test looks: test_go_json_oracle.py)."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
