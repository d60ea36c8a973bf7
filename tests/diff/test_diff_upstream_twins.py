"""No false report across API versions, checked against upstream: each v1alpha1 example at 357f3222 and its
v1beta1 twin at 2a6da14c (upstream's own hand conversion, ai-dynamo/dynamo #12375) are one graph.

`dgdlint diff` of each pair gives no diff or update error, and the pods the operator builds of each
component (dgdlint.diff.pods: the v1alpha1 side converted) read the same, except where upstream changed
the command in the same commit (tests/edit/upstream_differences.yaml lists those as `args`).

Needs ../shared/reference (skips with a message without it)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from dgdlint.cli import main
from dgdlint.diff.pods import pods_of
from dgdlint.diff.views import view_changes, worker_view
from dgdlint.hub_restore import converted_view
from dgdlint.load import load_paths
from dgdlint.model import build_model
from dgdlint.rules.catalogue import DIFF_RULES
from refdata import CORPUS, require_reference

V1ALPHA1_EXAMPLES = CORPUS / "v1alpha1-examples@357f3222"
DIFFERENCES = Path(__file__).parents[1] / "edit" / "upstream_differences.yaml"
# What upstream_differences.yaml calls a field, as the pod view names the aspect it belongs to.
ASPECTS = {"args": "command", "command": "command", "image": "image"}


def _twins() -> list[Path]:
    require_reference(V1ALPHA1_EXAMPLES)
    twins = sorted(V1ALPHA1_EXAMPLES.rglob("*.yaml"))
    assert len(twins) == 14
    return twins


def _relative(source: Path) -> str:
    return source.relative_to(V1ALPHA1_EXAMPLES).as_posix()


def test_diff_of_each_v1alpha1_example_against_its_v1beta1_twin_reports_no_error(capsys):
    reported = {}
    for source in _twins():
        code = main(["diff", str(source), str(CORPUS / _relative(source)), "--format", "json"])
        findings = json.loads(capsys.readouterr().out)["findings"]
        errors = [f"{f['rule']} {f['path']}" for f in findings if f["rule"] in DIFF_RULES and f["severity"] == "error"]
        if errors or code != 0:
            reported[_relative(source)] = (code, errors)
    assert reported == {}


def _pods(path: Path) -> dict:
    model = build_model(load_paths([str(path)]))
    assert len(model.graphs) == 1, path
    return pods_of(converted_view(model.graphs[0]))


def test_the_pods_of_each_v1alpha1_example_read_as_those_of_its_v1beta1_twin():
    listed = {(d["file"], d["component"], ASPECTS[d["field"]])
              for d in yaml.safe_load(DIFFERENCES.read_text()) if d["field"] in ASPECTS}
    found = set()
    for source in _twins():
        relative = _relative(source)
        old, new = _pods(source), _pods(CORPUS / relative)
        assert sorted(old) == sorted(new), relative
        for name, pod in old.items():
            for change in view_changes(worker_view(pod), worker_view(new[name]), (), ()):
                found.add((relative, name, change.aspect))
    assert sorted(found - listed) == []
    assert found, "upstream's changed commands are no longer seen: the comparison reads nothing"


def test_a_v1alpha1_shared_memory_reads_as_its_twins_size():
    # sharedMemory.size and sharedMemorySize: the views compare a value that is there on both sides
    relative = "examples/diffusers/deploy/agg.yaml"
    old, new = _pods(require_reference(V1ALPHA1_EXAMPLES / relative)), _pods(CORPUS / relative)
    sizes = {name: (pod.shared_memory[0], new[name].shared_memory[0]) for name, pod in old.items()}
    assert ("8Gi", "8Gi") in sizes.values()
