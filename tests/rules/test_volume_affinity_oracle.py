"""volume-node-affinity-conflict's verdicts (rules/volume_affinity.py) against the scheduler's own code: the
NodeAffinity filter (k8s.io/component-helpers nodeaffinity, GetRequiredNodeAffinity(pod).Match(node)) and the
VolumeBinding filter's check of a bound volume (k8s.io/component-helpers storage/volume CheckNodeAffinity(pv,
node.Labels), which matches the volume's terms with scheduling/corev1's MatchNodeSelectorTerms against a node
made of the labels alone), built by the Go toolchain from the modules the kube-apiserver of `make tools` is
built from.

Thousands of random pods (node selectors, required node affinities) with one to three random volumes each:
where dgdlint gives a witness node, Go must admit the pod there with every volume; where it says no node
can take the pod with its volumes, or that a volume matches no node at all, Go must refuse every one of
many random valid nodes drawn from the values the pod and the volumes name; and node by node, dgdlint's
reading of a volume against a real node (what `dgdlint preflight` does with the cluster's volumes) must
refuse it exactly where Go does. Skips without Go, or when the
modules cannot be had."""

from __future__ import annotations

import json
import random

import pytest
from test_node_affinity_oracle import KEYS, NAMES, _expression, _random_nodes, _spec

from dgdlint.model import KObject
from dgdlint.model.pod import PodSettings
from dgdlint.rules.volume_affinity import joint_verdict, volume_refusal, volume_terms
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
	"k8s.io/component-helpers/storage/volume"
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
	Spec    v1.PodSpec            `json:"spec"`
	Volumes []v1.PersistentVolume `json:"volumes"`
	Nodes   []struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	} `json:"nodes"`
}

type answer struct {
	Valid   bool   `json:"valid"`
	Pod     bool   `json:"pod"`
	Volumes []bool `json:"volumes"`
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
		answers := make([]answer, len(q.Nodes))
		for i, n := range q.Nodes {
			node := &v1.Node{}
			node.Name = n.Name
			node.Labels = n.Labels
			ok, _ := required.Match(node)
			answers[i] = answer{Valid: valid(n.Name, n.Labels), Pod: ok}
			for j := range q.Volumes {
				fits := volume.CheckNodeAffinity(&q.Volumes[j], node.Labels) == nil
				answers[i].Volumes = append(answers[i].Volumes, fits)
			}
		}
		out, _ := json.Marshal(answers)
		fmt.Println(string(out))
	}
}
"""


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    binary = build_with_kubernetes(tmp_path_factory.mktemp("volume-affinity-oracle"), _MAIN,
                                   "the scheduler's node affinity and volume binding code is the oracle of this test")
    return lambda queries: [json.loads(answer) for answer in ask(binary, [json.dumps(q) for q in queries])]


def _volume_term(rng: random.Random) -> dict:
    term: dict = {}
    if rng.random() < 0.93:
        term["matchExpressions"] = [_expression(rng) for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.15:  # never checked against the nameless node, once parsed
        values = [rng.choice(NAMES[:2] + [""])] if rng.random() < 0.9 else NAMES[:2]
        term["matchFields"] = [{"key": "metadata.name", "operator": rng.choice(["In", "NotIn"] if rng.random() < 0.9
                                                                               else ["Exists"]), "values": values}]
    return term


def _volume(rng: random.Random, index: int) -> dict:
    terms = [_volume_term(rng) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.5:  # a zone the pod may also name: clashes and agreements both common
        terms = [{"matchExpressions": [{"key": rng.choice(KEYS), "operator": "In",
                                        "values": rng.sample(["NVIDIA-H100-80GB-HBM3", "amd64", "8", "7"],
                                                             rng.randint(1, 2))}]}]
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"pv-{index}"},
            "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": terms}}}}


def _all_terms(spec: dict, volumes: list[dict]) -> dict:
    """The pod's spec with the volumes' terms added to its own, for drawing node label values near both."""
    terms = list(spec.get("affinity", {}).get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution",
                                                                        {}).get("nodeSelectorTerms", []))
    for volume in volumes:
        terms += volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
    return {**spec, "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                                  {"nodeSelectorTerms": terms}}}}


def test_volume_affinity_verdicts_are_the_schedulers(scheduler):
    rng = random.Random(20261202)
    queries, expectations = [], []
    for _ in range(2500):
        spec = _spec(rng)
        volumes = [_volume(rng, index) for index in range(rng.randint(1, 3))]
        read = [volume_terms(KObject.read_from("oracle", volume)) for volume in volumes]
        unusable = [index for index, terms in enumerate(read) if not terms.terms]
        joint = None if unusable else joint_verdict(PodSettings(None, ("spec",), spec), read)
        witness = [{"name": joint.witness[1], "labels": joint.witness[0]}] if joint and joint.witness else []
        queries.append({"spec": spec, "volumes": volumes,
                        "nodes": witness + _random_nodes(rng, _all_terms(spec, volumes), 40)})
        expectations.append((unusable, joint))
    answers = scheduler(queries)
    outcomes = {"unusable": 0, "fits": 0, "conflict": 0, "undecided": 0}
    admitted = refused = 0
    for query, (unusable, joint), nodes in zip(queries, expectations, answers, strict=True):
        assert all(node["valid"] for node in nodes), query  # the test's own nodes are ones a cluster keeps
        both = [node["pod"] and all(node["volumes"]) for node in nodes]
        # node by node (preflight's reading of the cluster's volumes): refused exactly where Go refuses
        for index, volume in enumerate(query["volumes"]):
            read = KObject.read_from("oracle", volume)
            for node, sent in zip(nodes, query["nodes"], strict=True):
                refusal = volume_refusal(read, sent["labels"])
                assert (refusal == []) == node["volumes"][index], (volume, sent, refusal)
                refused += bool(refusal)
        admitted += sum(both)
        if unusable:
            outcomes["unusable"] += 1
            assert not any(node["volumes"][index] for node in nodes for index in unusable), query
        elif joint is None:
            outcomes["undecided"] += 1  # the pod alone fits no node: node-affinity-unsatisfiable's
            assert not any(node["pod"] for node in nodes), query
        elif joint.witness is not None:
            outcomes["fits"] += 1
            assert both[0], (query, joint)
        else:
            outcomes["conflict"] += 1
            assert not any(both), (query, joint.why)
    # every outcome is common, so no side of the comparison is idle
    assert all(count > 150 for count in outcomes.values()), outcomes
    assert admitted > 2000 and refused > 20000, (admitted, refused)
