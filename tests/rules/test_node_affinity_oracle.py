"""dgdlint's node affinity verdicts (rules/node_affinity.py) against the scheduler's own matching code,
k8s.io/component-helpers' nodeaffinity (GetRequiredNodeAffinity(pod).Match(node)), built by the Go toolchain
from the modules the kube-apiserver of `make tools` is built from.

Thousands of random node selectors and required node affinities, each asked of Go against the witness node
dgdlint gives when it says some node fits, and against many random valid nodes drawn from the values the pod
names (and integers spelt several ways, and values it does not name): a witness must match, and a pod dgdlint
says fits no node must match none of them; and node by node, dgdlint's reading of a real node (what `dgdlint
preflight` does with the cluster's nodes) must admit the pod exactly where Go matches. Skips without Go, or
when the modules cannot be had."""

from __future__ import annotations

import json
import random

import pytest

from dgdlint.model.pod import PodSettings
from dgdlint.rules.node_affinity import node_refusal, node_verdicts
from dgdlint.rules.syntax import label_value_problem
from go_oracle import ask, build_with_kubernetes

_MAIN = """package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// valid: whether the API server keeps a node of this name and these labels.
func valid(name string, labels map[string]string) bool {
	if len(validation.IsDNS1123Subdomain(name)) > 0 {
		return false
	}
	for key, value := range labels {
		if len(validation.IsQualifiedName(key)) > 0 || len(validation.IsValidLabelValue(value)) > 0 {
			return false
		}
	}
	return true
}

type query struct {
	Spec  v1.PodSpec `json:"spec"`
	Nodes []struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	} `json:"nodes"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<24), 1<<24)
	for in.Scan() {
		var text string
		var q query
		if json.Unmarshal(in.Bytes(), &text) != nil || json.Unmarshal([]byte(text), &q) != nil {
			fmt.Println("undecodable")
			continue
		}
		required := nodeaffinity.GetRequiredNodeAffinity(&v1.Pod{Spec: q.Spec})
		matched := make([]string, len(q.Nodes))
		for i, n := range q.Nodes {
			node := &v1.Node{}
			node.Name = n.Name
			node.Labels = n.Labels
			ok, _ := required.Match(node)
			matched[i] = map[bool]string{true: "match", false: "no match"}[ok]
			if !valid(n.Name, n.Labels) {
				matched[i] = "invalid node"
			}
		}
		out, _ := json.Marshal(matched)
		fmt.Println(string(out))
	}
}
"""


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    binary = build_with_kubernetes(tmp_path_factory.mktemp("nodeaffinity-oracle"), _MAIN,
                                   "the scheduler's node affinity code is the oracle of this test")
    return lambda queries: [json.loads(answer) for answer in ask(binary, [json.dumps(q) for q in queries])]


KEYS = ["nvidia.com/gpu.product", "nvidia.com/gpu.count", "zone", "kubernetes.io/arch"]
VALUES = ["NVIDIA-H100-80GB-HBM3", "NVIDIA-A100-SXM4-80GB", "amd64", "", "8", "08", "7", "x1", "0"]
ODD_VALUES = ["-1", "8.0", "a b", "+3", "9223372036854775807", "9223372036854775808"]
NAMES = ["gpu-node-1", "gpu-node-2", "Bad_Name"]


def _values(rng: random.Random, operator: str) -> list:
    if operator in ("Exists", "DoesNotExist"):
        return [] if rng.random() < 0.9 else [rng.choice(VALUES)]
    if operator in ("Gt", "Lt"):
        pool = ["7", "8", "0", "10", "-1"] + (ODD_VALUES if rng.random() < 0.2 else [])
        return [rng.choice(pool)] if rng.random() < 0.95 else [rng.choice(pool), rng.choice(pool)]
    pool = VALUES + (ODD_VALUES if rng.random() < 0.1 else [])
    return rng.sample(pool, rng.randint(1 if rng.random() < 0.97 else 0, 3))


def _expression(rng: random.Random) -> dict:
    operator = rng.choice(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"] + (["Equal"] if rng.random() < 0.03
                                                                                   else []))
    key = rng.choice(KEYS) if rng.random() < 0.98 else "bad key"
    return {"key": key, "operator": operator, "values": _values(rng, operator)}


def _field(rng: random.Random) -> dict:
    values = [rng.choice(NAMES)] if rng.random() < 0.95 else NAMES[:2]
    return {"key": "metadata.name" if rng.random() < 0.95 else "spec.unschedulable",
            "operator": rng.choice(["In", "NotIn"] if rng.random() < 0.97 else ["Exists"]), "values": values}


def _spec(rng: random.Random) -> dict:
    spec: dict = {}
    if rng.random() < 0.6:
        spec["nodeSelector"] = {key: rng.choice(VALUES + (ODD_VALUES if rng.random() < 0.1 else []))
                                for key in rng.sample(KEYS, rng.randint(1, 2))}
    if rng.random() < 0.85:
        terms = []
        for _ in range(rng.randint(0 if rng.random() < 0.05 else 1, 3)):
            term: dict = {}
            if rng.random() < 0.95:
                term["matchExpressions"] = [_expression(rng) for _ in range(rng.randint(1, 4))]
            if rng.random() < 0.2:
                term["matchFields"] = [_field(rng) for _ in range(rng.randint(1, 2))]
            terms.append(term)
        if rng.random() < 0.15:
            terms.append(_tight(rng))
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                             {"nodeSelectorTerms": terms}}}
    return spec


def _named(spec: dict) -> tuple[list[str], list[int]]:
    """The label values a pod names, and the integers it compares with."""
    texts = list(spec.get("nodeSelector", {}).values())
    terms = spec.get("affinity", {}).get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution",
                                                                   {}).get("nodeSelectorTerms", [])
    numbers = []
    for term in terms:
        for expression in term.get("matchExpressions", []):
            texts += expression["values"]
            for value in expression["values"]:
                if value.lstrip("+-").isdigit():
                    numbers.append(int(value))
    return texts, numbers


def _label_value(rng: random.Random, texts: list[str], numbers: list[int]) -> str | None:
    """A node label value drawn near what the pod names (nodes hold valid ones only), or None for no label."""
    choice = rng.random()
    if choice < 0.2:
        return None
    if choice < 0.55 and numbers:
        return "0" * rng.choice([0, 0, 1, 2]) + str(max(0, rng.choice(numbers) + rng.randint(-2, 2)))
    if choice < 0.9 and texts:
        value = rng.choice(texts)
        return value if not label_value_problem(value) else "other"
    return rng.choice(VALUES + ["other", "11"])


def _random_nodes(rng: random.Random, spec: dict, count: int) -> list[dict]:
    texts, numbers = _named(spec)
    nodes = []
    for _ in range(count):
        labels = {key: value for key in KEYS if (value := _label_value(rng, texts, numbers)) is not None}
        nodes.append({"name": rng.choice(NAMES[:2] + ["node-x"]), "labels": labels})
    return nodes


def _tight(rng: random.Random) -> dict:
    """A term whose integer range is narrow and partly excluded by NotIn (spellings matter there)."""
    key, low = rng.choice(KEYS), rng.randint(0, 9)
    width = rng.randint(1, 3)
    excluded = [str(n) for n in range(low + 1, low + width + 1) if rng.random() < 0.8]
    excluded += ["0" + text for text in excluded if rng.random() < 0.3]
    expressions = [{"key": key, "operator": "Gt", "values": [str(low)]},
                   {"key": key, "operator": "Lt", "values": [str(low + width + 1)]}]
    if excluded:
        expressions.append({"key": key, "operator": "NotIn", "values": excluded})
    return {"matchExpressions": expressions}


def test_node_affinity_verdicts_are_the_schedulers(scheduler):
    rng = random.Random(20261202)
    queries, expectations = [], []
    fits_count = 0
    for _ in range(3000):
        spec = _spec(rng)
        verdicts = node_verdicts(PodSettings(None, ("spec",), spec))
        witnesses = [{"name": v.witness[1], "labels": v.witness[0]} for v in verdicts if v.witness is not None]
        fits = bool(witnesses)
        fits_count += fits
        queries.append({"spec": spec, "nodes": witnesses + _random_nodes(rng, spec, 40)})
        expectations.append((spec, fits, len(witnesses), [v.why for v in verdicts]))
    answers = scheduler(queries)
    admitted = 0
    for query, (spec, fits, witnesses, why), matched in zip(queries, expectations, answers, strict=True):
        assert "invalid node" not in matched[witnesses:]  # the test's own nodes are ones a cluster keeps
        if fits:
            assert set(matched[:witnesses]) == {"match"}, (spec, matched[:witnesses])
        else:
            assert "match" not in matched, (spec, why, matched)
        # node by node (preflight's reading of real nodes): admitted exactly where the scheduler matches
        pod = PodSettings(None, ("spec",), spec)
        for node, answer in zip(query["nodes"], matched, strict=True):
            refusal = node_refusal(pod, node["labels"], node["name"])
            assert (refusal == []) == (answer == "match"), (spec, node, refusal, answer)
            admitted += answer == "match"
    assert admitted > 10000, admitted
    # both answers are common, so neither side of the comparison is idle
    assert 600 < fits_count < 2700, fits_count
