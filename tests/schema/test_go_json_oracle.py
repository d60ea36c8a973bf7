"""dgdlint's reading of JSON into a Go type (go_json.py, how the operator decodes its conversion records)
against Go's own encoding/json, run by the Go toolchain on the same texts: a Go struct with the field kinds
the records hold (32- and 64-bit integers, bools, strings, []byte, float64, lists, maps, nested structs,
raw JSON) and the schema controller-gen would write for it. For thousands of texts near that shape, Go
decodes exactly the texts dgdlint says it decodes. Skips without Go."""

from __future__ import annotations

import json
import random

import pytest

from dgdlint.go_json import BYTES, INT32_MAX, TooDeep, Undecodable, decode, parse
from go_oracle import ask, build

_ORACLE = """package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
)

type Inner struct {
	Name  *string `json:"name,omitempty"`
	Count int32   `json:"count"`
}

type Top struct {
	Replicas    int32             `json:"replicas"`
	Big         int64             `json:"big"`
	Flag        bool              `json:"flag"`
	Text        string            `json:"text"`
	Raw         []byte            `json:"raw"`
	Ratio       float64           `json:"ratio"`
	Items       []Inner           `json:"items"`
	Services    map[string]*Inner `json:"services"`
	Nested      *Inner            `json:"nested"`
	Free        json.RawMessage   `json:"free"`
	ServiceName string            `json:"serviceName"`
	Kind        string            `json:"kind"`
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

_INT32 = {"type": "integer", "maximum": INT32_MAX, "minimum": -INT32_MAX - 1}
_INNER = {"type": "object", "properties": {"name": {"type": "string"}, "count": _INT32}}
# The schema controller-gen writes for Top (an int64 has no bounds in it; json.RawMessage keeps anything).
SCHEMA = {"type": "object", "properties": {
    "replicas": _INT32, "big": {"type": "integer", "format": "int64"}, "flag": {"type": "boolean"},
    "text": {"type": "string"}, "raw": BYTES, "ratio": {"type": "number"},
    "items": {"type": "array", "items": _INNER}, "services": {"type": "object", "additionalProperties": _INNER},
    "nested": _INNER, "free": {"x-kubernetes-preserve-unknown-fields": True},
    "serviceName": {"type": "string"}, "kind": {"type": "string"}}}

_KEYS = ["replicas", "REPLICAS", "Replicas", "big", "flag", "text", "raw", "ratio", "items", "services",
         "nested", "free", "serviceName", "servicename", "SERVICENAME", "\u017ferviceName", "\u212aind", "kind",
         "KIND", "unknown", "ratio", "spec"]
_NUMBERS = ["0", "-0", "1", "-1", "2147483647", "2147483648", "-2147483648", "-2147483649",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "1.0", "1.5", "1e3", "1E400", "-1e-400", "255", "256", "12345678901234567890123"]
_STRINGS = ['""', '"a"', '"aGVsbG8="', '"aGVsbG8"', '"aGVs\\nbG8="', '"aGVs\\rbG8="', '"!!!!"', '"YQ=="',
            '"YR=="', '"Y Q=="', '"\\u00e9"', '"2147483647"']


def _value(rng: random.Random, depth: int) -> str:
    choice = rng.randrange(10 if depth < 3 else 6)
    if choice < 2:
        return rng.choice(_NUMBERS)
    if choice < 4:
        return rng.choice(_STRINGS)
    if choice == 4:
        return rng.choice(["true", "false", "null"])
    if choice == 5:
        return "[" + ",".join(rng.choice(_NUMBERS[:10] + ["255", "256", "-1"]) for _ in range(rng.randrange(3))) + "]"
    if choice in (6, 7):
        return _object(rng, depth + 1, ["name", "count", "Count", "NAME", "other"])
    return "[" + ",".join(_value(rng, depth + 1) for _ in range(rng.randrange(3))) + "]"


def _object(rng: random.Random, depth: int, keys: list[str]) -> str:
    members = [f"{json.dumps(rng.choice(keys))}:{_value(rng, depth)}" for _ in range(rng.randrange(4))]
    return "{" + ",".join(members) + "}"


def _texts(count: int) -> list[str]:
    rng = random.Random(20261202)
    out = ['{}', 'null', '[]', '1', '"x"', '{"replicas": 1, "replicas": "x"}', '{"nested": {"count": 1},'
           ' "nested": {"name": "a"}}', '{"raw": [0, 255]}', '{"raw": [256]}', '{"raw": [null, -0]}', '{"raw": [null]}',
           '{"\u212aind": 1}',
           '{"\u017ferviceName": 1}', '{"services": {"a": null, "b": {"count": 1.5}}}', '{"free": NaN}']
    for _ in range(count):
        members = []
        for _ in range(rng.randrange(1, 4)):
            key = rng.choice(_KEYS)
            fitting = _FITTING.get(_KEYS_FOLDED.get(key, ""))
            value = rng.choice(fitting) if fitting and rng.random() < 0.6 else _value(rng, 0)
            members.append(f"{json.dumps(key)}:{value}")
        out.append("{" + ",".join(members) + "}")
    return out


# Values of the right kind for each field, so that about half the texts decode.
_FITTING = {"replicas": ["7", "-2147483648", "null"], "big": ["9223372036854775807", "-3"], "flag": ["true"],
            "text": ['"a"', '""'], "raw": ['"YQ=="', "[1, 2]", '"aGVs\\nbG8="'], "ratio": ["1.5", "1e3", "-0"],
            "items": ['[{"count": 1}]', "[]"], "services": ['{"a": {"name": "x"}}', '{"a": null}'],
            "nested": ['{"count": 2}', '{"NAME": "n"}'], "free": ["[1, {}]", '"x"'], "servicename": ['"s"'],
            "kind": ['"k"'], "unknown": ["1"], "spec": ['{"x": 1}']}
_KEYS_FOLDED = {key: key.lower().replace("\u017f", "s").replace("\u212a", "k") for key in _KEYS}


def dgdlint_takes(text: str) -> bool:
    try:
        decode(parse(text), SCHEMA)
    except (Undecodable, ValueError, TooDeep):
        return False
    return True


@pytest.fixture(scope="module")
def go_verdicts(tmp_path_factory):
    binary = build(tmp_path_factory.mktemp("go-json"), _ORACLE, "Go's encoding/json is the oracle of this test")
    return lambda texts: [answer == "taken" for answer in ask(binary, texts)]


def test_the_texts_go_decodes_are_the_ones_dgdlint_decodes(go_verdicts):
    texts = _texts(3000)
    taken = go_verdicts(texts)
    assert len(taken) == len(texts)
    wrong = [(text, go) for text, go in zip(texts, taken, strict=True) if dgdlint_takes(text) != go]
    assert not wrong, wrong[:20]
    assert 0.2 < sum(taken) / len(taken) < 0.8  # the sample is not one-sided
