"""`dgdlint convert --to v1alpha1`: a v1beta1 graph back to the deprecated shape, where each field has a place."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from edit_support import comments, facts, run

from dgdlint.edit.convert import convert_file
from dgdlint.edit.roundtrip import open_text
from dgdlint.engine import check_texts
from refdata import CORPUS, ROOT, require_reference

SOURCE = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  env:
    - name: GRAPH_WIDE
      value: "1"
  components:
    # the worker
    - name: Worker
      type: prefill  # prefill pool
      replicas: 2
      sharedMemorySize: "0"
      compilationCache:
        pvcName: compile-cache
        mountPath: /cache/compile
      experimental:
        failover:
          mode: IntraPod
      podTemplate:
        metadata:
          labels:
            team: video
        spec:
          nodeSelector:
            pool: gpu
          containers:
            - name: main
              image: registry.example/worker:1.0.0  # pinned
              resources:
                limits:
                  nvidia.com/gpu: "1"
"""

EXPECTED = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  envs:
    - name: GRAPH_WIDE
      value: "1"
  pvcs:
    - name: compile-cache
      create: false
  services:
    # the worker
    Worker:
      componentType: worker  # prefill pool
      subComponentType: prefill
      replicas: 2
      sharedMemory:
        disabled: true
      volumeMounts:
        - name: compile-cache
          mountPoint: /cache/compile
          useAsCompilationCache: true
      failover:
        enabled: true
        mode: intraPod
      extraPodMetadata:
        labels:
          team: video
      extraPodSpec:
        nodeSelector:
          pool: gpu
        mainContainer:
          image: registry.example/worker:1.0.0  # pinned
          resources:
            limits:
              nvidia.com/gpu: "1"
"""


def test_a_v1beta1_graph_becomes_the_v1alpha1_graph_the_operator_would_serve(capsys, tmp_path):
    source = tmp_path / "graph.yaml"
    source.write_text(SOURCE)
    code, out, err = run(capsys, "convert", "--to", "v1alpha1", str(source))
    assert (code, out, err) == (0, EXPECTED, "")
    assert comments(out) == comments(SOURCE)


def test_to_v1alpha1_and_back_gives_the_v1beta1_graph_again(capsys, tmp_path):
    source = tmp_path / "graph.yaml"
    source.write_text(EXPECTED)
    code, out, _ = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0
    assert facts("a", out) == facts("b", SOURCE)


def _v1beta1_graph_files() -> list[Path]:
    require_reference(CORPUS)
    files = sorted(CORPUS.rglob("*.yaml")) + sorted((ROOT / "examples").glob("*.yaml"))
    return [p for p in files if "nvidia.com/v1beta1" in p.read_text()]


@pytest.mark.slow
def test_every_v1beta1_graph_of_the_corpus_converts_to_v1alpha1_and_back(crd_schema_stage):
    files = _v1beta1_graph_files()
    assert len(files) >= 20
    for path in files:
        text = path.read_text()
        edit = open_text(str(path), text)
        assert not [n for n in convert_file(edit, "v1alpha1") if n.severity == "error"], path
        old = edit.render()
        back = open_text(str(path), old)
        convert_file(back, "v1beta1")
        assert facts("back", back.render()) == facts("source", text), path
        before = check_texts({str(path): text}, crd_schema_stage).findings
        after = check_texts({str(path): old}, crd_schema_stage).findings
        assert [f.message for f in after if f.stage == "schema" and f.severity == "error"] == \
            [f.message for f in before if f.stage == "schema" and f.severity == "error"], path
        assert Counter((f.rule, f.severity) for f in after if f.stage == "rule") == \
            Counter((f.rule, f.severity) for f in before if f.stage == "rule"), path


def test_two_end_of_line_comments_that_land_on_one_key_are_both_kept(capsys, tmp_path):
    """`podTemplate:` and its `spec:` both become `extraPodSpec:`: one end of line for two comments, so the
    second goes on a line above instead of being lost without a word."""
    source = tmp_path / "graph.yaml"
    source.write_text("""\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  components:
    - name: Worker
      type: worker
      podTemplate:  # the pod
        spec:  # its spec
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0
""")
    code, out, err = run(capsys, "convert", "--to", "v1alpha1", str(source))
    assert (code, err) == (0, "")
    assert Counter(comments(out)) == Counter(["# the pod", "# its spec"])
    assert "      # the pod\n      extraPodSpec:  # its spec\n" in out


@pytest.mark.parametrize(("experimental", "kept_above"), [
    # Unwrapped: the comments of `experimental:` go with its first field.
    ("      # tried in staging\n      experimental:  # both features\n        gpuMemoryService: {}\n"
     "        failover:\n          mode: IntraPod\n",
     "      # tried in staging\n      gpuMemoryService:  # both features\n"),
    # Nothing has a place in v1alpha1: they stay above the component, as a dropped field's do.
    ("      # tried in staging\n      experimental:  # both features\n        grove:\n"
     "          forceScalingGroup: true\n",
     "    # tried in staging\n    # both features\n    Worker:\n"),
])
def test_the_comments_of_experimental_survive_its_unwrapping(capsys, tmp_path, experimental, kept_above):
    """Found by the fuzz test of convert: `experimental:` itself has no place in v1alpha1, and its own comments
    were lost without a word when its fields moved up into the service."""
    source = tmp_path / "graph.yaml"
    source.write_text("apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata:\n  name: demo\nspec:\n"
                      "  components:\n    - name: Worker\n      type: worker\n" + experimental, encoding="utf-8")
    _code, out, _err = run(capsys, "convert", "--to", "v1alpha1", str(source))
    assert Counter(comments(out)) == Counter(["# tried in staging", "# both features"])
    assert kept_above in out
