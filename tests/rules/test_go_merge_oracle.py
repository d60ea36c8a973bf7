"""dgdlint's reading of the operator's probe merge against mergo itself, compiled by the Go toolchain: a v1alpha1
service's own probe with its extraPodSpec.mainContainer probe merged over it (mergeExtraPodSpecMainContainer:
mergo.Merge of two corev1.Container, WithOverride), on hundreds of probe pairs near the shapes users write.
go_merge.merged is what pod-spec-invalid and `dgdlint diff`'s pod view read a merged probe with.

Skips without Go, or when the Go module proxy cannot serve mergo (the Kubernetes modules are those of the
kube-apiserver `make tools` builds)."""

from __future__ import annotations

import json
import random

from dgdlint.go_merge import merged
from go_oracle import ask, build
from refdata import ROOT

_MAIN = """package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/imdario/mergo"
	corev1 "k8s.io/api/core/v1"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var text string
		var pair [2]corev1.Container
		if json.Unmarshal(in.Bytes(), &text) != nil || json.Unmarshal([]byte(text), &pair) != nil {
			fmt.Println("error")
			continue
		}
		base := pair[0]
		if err := mergo.Merge(&base, pair[1], mergo.WithOverride); err != nil {
			fmt.Println("error")
			continue
		}
		out, _ := json.Marshal(base.LivenessProbe)
		fmt.Println(string(out))
	}
}
"""

_PORTS = [8000, 9090, "http", "metrics"]
# The mergo the operator builds with: its conversion (api/v1alpha1/shared_spec_conversion.go) and pod builder
# (internal/dynamo/graph.go) import github.com/imdario/mergo, which the operator's go.mod pins at v0.3.16
# (ai-dynamo/dynamo deploy/operator/go.mod), not the renamed dario.cat/mergo v1.
MERGO = "github.com/imdario/mergo v0.3.16"


def _as_marshalled(value):
    """A probe as encoding/json writes the Go value, both sides read alike: scalars and lists of the zero value
    left out (omitempty; grpc's service, a pointer without it, written null), objects kept (a probe's objects
    are pointers, written when set, even empty)."""
    if isinstance(value, dict):
        kept = {key: _as_marshalled(item) for key, item in value.items()}
        return {key: item for key, item in kept.items()
                if isinstance(item, dict) or item not in (None, False, 0, "", [])}
    return value


def _handler(rng: random.Random) -> dict:
    kind = rng.choice(["httpGet", "tcpSocket", "exec", "grpc", None])
    if kind == "httpGet":
        action = {"port": rng.choice(_PORTS)}
        if rng.random() < 0.6:
            action["path"] = rng.choice(["/health", "/v1/health/ready", ""])
        if rng.random() < 0.3:
            action["scheme"] = rng.choice(["HTTP", "HTTPS"])
        return {kind: action}
    if kind == "tcpSocket":
        return {kind: {"port": rng.choice(_PORTS)}}
    if kind == "exec":
        return {kind: {"command": rng.choice([["cat", "/tmp/ready"], []])}}
    if kind == "grpc":
        return {kind: {"port": rng.choice([50051, 9090])}}
    return {}


def _probe(rng: random.Random) -> dict:
    probe = _handler(rng)
    for name in ("periodSeconds", "failureThreshold", "successThreshold", "initialDelaySeconds", "timeoutSeconds"):
        if rng.random() < 0.35:
            probe[name] = rng.choice([0, 1, 3, 10])
    return probe


def test_a_merged_probe_reads_as_mergo_merges_it(tmp_path):
    module = (ROOT / "tools" / "kube-apiserver" / "go.mod").read_text().replace(
        "module cosmos3-reasoner/tools/kube-apiserver", "module oracle", 1) + f"\nrequire {MERGO}\n"
    binary = build(tmp_path, _MAIN, "mergo's merge of a service's probe and its main container's",
                   go_mod=module, go_sum=ROOT / "tools" / "kube-apiserver" / "go.sum", flags=("-mod=mod", "-trimpath"),
                   env={"CGO_ENABLED": "0"})
    rng = random.Random(20261202)
    seeds = [({"httpGet": {"path": "/health", "port": "http"}}, {"httpGet": {"port": 8000}, "periodSeconds": 5}),
             ({"httpGet": {"path": "/health", "port": 9090}}, {"exec": {"command": ["cat", "/tmp/ready"]}}),
             ({"tcpSocket": {"port": 8000}, "periodSeconds": 10}, {"tcpSocket": {"port": "http"}})]
    pairs = seeds + [(_probe(rng), _probe(rng)) for _ in range(400)]
    texts = [json.dumps([{"livenessProbe": base}, {"livenessProbe": over}]) for base, over in pairs]
    answers = ask(binary, texts)
    differ = [(base, over, answer) for (base, over), answer in zip(pairs, answers, strict=True)
              if _as_marshalled(json.loads(answer)) != _as_marshalled(merged(base, over))]
    assert differ == []
