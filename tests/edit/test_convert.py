"""`dgdlint convert --to v1beta1`: the operator's field mapping, in the user's own file."""

from __future__ import annotations

import os
import stat

import pytest
from edit_support import comments, run

SOURCE = """\
# The graph, as written for v1alpha1.
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: demo  # keep me
spec:
  envs:
    - name: GRAPH_WIDE
      value: "1"
  pvcs:
    - name: model-cache
      create: false
  services:
    # the frontend
    Frontend:
      componentType: frontend
      replicas: 1
      extraPodSpec:
        mainContainer:
          image: registry.example/frontend:1.0.0
    Worker:
      componentType: worker
      subComponentType: decode  # becomes the type
      replicas: 2
      envFromSecret: hf-token
      sharedMemory:
        size: 16Gi
      resources:
        requests:
          cpu: "8"
          gpu: "1"
          gpuType: nvidia.com/mig-1g.10gb
          custom:
            rdma/ib: "1"
      envs:
        - name: A
          value: from-service
        - name: B
          value: overridden
      volumeMounts:
        - name: model-cache
          mountPoint: /cache   # the model cache
      extraPodMetadata:
        labels:
          team: video
      extraPodSpec:
        nodeSelector:
          pool: gpu
        mainContainer:
          image: registry.example/worker:1.0.0
          env:
            - name: B
              value: from-main-container
"""

EXPECTED = """\
# The graph, as written for v1alpha1.
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: demo  # keep me
spec:
  env:
    - name: GRAPH_WIDE
      value: "1"
  components:
    # the frontend
    - name: Frontend
      type: frontend
      replicas: 1
      podTemplate:
        spec:
          containers:
            - name: main
              image: registry.example/frontend:1.0.0
    - name: Worker
      type: decode  # becomes the type
      replicas: 2
      podTemplate:
        metadata:
          labels:
            team: video
        spec:
          nodeSelector:
            pool: gpu
          containers:
            - name: main
              image: registry.example/worker:1.0.0
              env:
                - name: A
                  value: from-service
                - name: B
                  value: from-main-container
              envFrom:
                - secretRef:
                    name: hf-token
              resources:
                requests:
                  cpu: "8"
                  nvidia.com/mig-1g.10gb: "1"
                  rdma/ib: "1"
              volumeMounts:
                - name: model-cache
                  mountPath: /cache   # the model cache
          volumes:
            - name: model-cache
              persistentVolumeClaim:
                claimName: model-cache
      sharedMemorySize: 16Gi
"""


def test_a_v1alpha1_graph_becomes_the_v1beta1_graph_the_operator_would_store(capsys, tmp_path):
    source = tmp_path / "graph.yaml"
    source.write_text(SOURCE)
    code, out, err = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert (code, out) == (0, EXPECTED)
    assert f"{source}:52: info: B is set in envs and in mainContainer.env" in err


def test_every_comment_survives_and_a_comment_on_a_moved_key_moves_with_it(capsys, tmp_path):
    source = tmp_path / "graph.yaml"
    source.write_text(SOURCE)
    _, out, _ = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert sorted(comments(out)) == sorted(comments(SOURCE))
    assert "    # the frontend\n    - name: Frontend\n" in out
    assert "mountPath: /cache   # the model cache" in out


def test_a_pvc_with_create_true_becomes_a_persistent_volume_claim_object_and_stderr_says_so(capsys, tmp_path):
    source = tmp_path / "graph.yaml"
    source.write_text(SOURCE.replace("      create: false\n", "      create: true  # made by the operator\n"
                                     "      size: 200Gi\n      storageClass: nfs\n"
                                     "      volumeAccessMode: ReadWriteMany\n"))
    code, out, err = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0
    assert out.endswith("""\
---
# made by the operator
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: model-cache
spec:
  accessModes:
    - ReadWriteMany
  storageClassName: nfs
  resources:
    requests:
      storage: 200Gi
""")
    assert f"{source}:11: info: pvcs[0] (model-cache) has create: true: written as a PersistentVolumeClaim " \
           "object after the graph" in err


LIST_HEAD = "apiVersion: v1\nkind: List\nitems:\n"
LIST_TAIL = 'metadata:\n  resourceVersion: ""\n'  # what `kubectl get -o yaml` puts after the items


def _as_item(text: str) -> str:
    """A document that starts with one comment line as an item of a list: the comment above the dash, the
    rest four columns in (the dash two), the way its own nested lists are indented."""
    comment, first, *rest = text.splitlines()
    return f"  {comment}\n  - {first}\n" + "".join(f"    {line}\n" if line else "\n" for line in rest)


def test_a_graph_in_a_list_is_converted_as_the_same_graph_in_a_document_is(capsys, tmp_path):
    """`kubectl get -o yaml` gives a `kind: List`: its graph item becomes what the document becomes (EXPECTED),
    at the item's indentation; the list around it is kept."""
    source = tmp_path / "list.yaml"
    source.write_text(LIST_HEAD + _as_item(SOURCE) + LIST_TAIL)
    code, out, err = run(capsys, "convert", "--to", "v1beta1", "--write", str(source))
    assert (code, out) == (0, "")
    assert source.read_text() == LIST_HEAD + _as_item(EXPECTED) + LIST_TAIL
    assert f"dgdlint: wrote {source}" in err
    # Each line of SOURCE is three lines further down, below the list's head: the note of line 52 is at 55.
    assert f"{source}:55: info: B is set in envs and in mainContainer.env" in err


def test_a_pvc_with_create_true_in_a_list_becomes_the_next_item(capsys, tmp_path):
    """In a document the claim is a document after the graph; in a list it is the item after the graph's
    item, the same object with the same comment, and the items after it keep their comments."""
    with_claim = SOURCE.replace("      create: false\n", "      create: true  # made by the operator\n"
                                "      size: 200Gi\n")
    document = tmp_path / "graph.yaml"
    document.write_text(with_claim)
    _, as_documents, _ = run(capsys, "convert", "--to", "v1beta1", str(document))
    graph, claim = as_documents.split("---\n")
    config_map = "# after the graph\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
    source = tmp_path / "list.yaml"
    source.write_text(LIST_HEAD + _as_item(with_claim) + _as_item(config_map) + LIST_TAIL)
    code, out, err = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0 and "error" not in err
    assert out == LIST_HEAD + _as_item(graph) + _as_item(claim) + _as_item(config_map) + LIST_TAIL


def test_a_graph_in_a_list_inside_a_list_is_converted_too(capsys, tmp_path):
    """kubectl flattens a list inside a list's items; so do the model and convert (the lists stay)."""
    def inside(items: str) -> str:  # the items as those of a List that is the outer List's first item
        return "  - apiVersion: v1\n    kind: List\n    items:\n" + "".join(
            f"  {line}\n" if line else "\n" for line in items.splitlines())

    source = tmp_path / "list.yaml"
    source.write_text(LIST_HEAD + inside(_as_item(SOURCE)) + LIST_TAIL)
    code, out, err = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0, err
    assert out == LIST_HEAD + inside(_as_item(EXPECTED)) + LIST_TAIL


def test_convert_back_reads_a_list_too(capsys, tmp_path):
    source = tmp_path / "list.yaml"
    source.write_text(LIST_HEAD + _as_item(EXPECTED) + LIST_TAIL)
    code, out, _ = run(capsys, "convert", "--to", "v1alpha1", str(source))
    assert code == 0 and "apiVersion: nvidia.com/v1alpha1" in out and "    services:\n" in out


@pytest.mark.parametrize(("text", "already"), [
    ("", ""),  # an empty file
    ("# only a comment\n", ""),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", ""),
    (LIST_HEAD + "  []\n", ""),  # wrong, but no graph in it
    (EXPECTED, " (1 is already nvidia.com/v1beta1)"),
])
def test_a_file_without_a_graph_to_convert_passes_through_and_stderr_says_so(capsys, tmp_path, text, already):
    source = tmp_path / "other.yaml"
    source.write_text(text)
    code, out, err = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0 and out.rstrip("\n") == text.rstrip("\n")
    assert err == f"dgdlint: nothing to convert: no nvidia.com/v1alpha1 DynamoGraphDeployment in {source}{already}\n"
    code, _, err = run(capsys, "convert", "--to", "v1beta1", "--write", str(source))
    assert code == 0 and "nothing to convert" in err and source.read_text() == text


def test_a_field_with_no_v1beta1_place_is_a_warning_never_a_silent_drop(capsys, tmp_path):
    source = tmp_path / "graph.yaml"
    source.write_text(SOURCE.replace("      replicas: 2\n", "      replicas: 2\n      dynamoNamespace: legacy\n"))
    code, out, err = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0 and "dynamoNamespace" not in out
    assert f"{source}:25: warning: Worker.dynamoNamespace has no place in v1beta1" in err
    assert "[convert-field-dropped]" in err


def test_objects_that_are_not_v1alpha1_graphs_pass_through_byte_for_byte(capsys, tmp_path):
    other = "apiVersion: v1\nkind: ConfigMap   # untouched\nmetadata: {name: x}\ndata:\n    k: 'v'\n"
    source = tmp_path / "mixed.yaml"
    source.write_text(other + "---\n" + SOURCE)
    code, out, _ = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0 and out == other + "---\n" + EXPECTED


def test_write_replaces_the_file_in_place_keeping_its_mode(capsys, tmp_path):
    source = tmp_path / "graph.yaml"
    source.write_text(SOURCE)
    os.chmod(source, 0o640)
    code, out, err = run(capsys, "convert", "--to", "v1beta1", "--write", str(source))
    assert (code, out) == (0, "")
    assert source.read_text() == EXPECTED
    assert stat.S_IMODE(source.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["graph.yaml"]  # no temporary file left
    assert f"dgdlint: wrote {source}" in err


def test_write_on_several_files_writes_none_when_one_fails(capsys, tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text(SOURCE)
    bad = tmp_path / "bad.yaml"
    bad.write_text(SOURCE.replace("mountPoint: /cache", "useAsCompilationCache: false"))
    code, _, err = run(capsys, "convert", "--to", "v1beta1", "--write", str(good), str(bad))
    assert code == 1
    assert good.read_text() == SOURCE and bad.read_text() != EXPECTED
    assert f"{bad}:41: error: Worker: volumeMounts[0] (model-cache) has no mountPoint" in err
    assert "nothing written" in err


def test_a_file_that_does_not_parse_is_left_untouched_with_an_error_naming_it(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: nvidia.com/v1alpha1\nkind: [\n")
    code, out, err = run(capsys, "convert", "--to", "v1beta1", "--write", str(bad))
    assert code == 1 and out == ""
    assert err.startswith(f"{bad}:3: error: YAML syntax error")
    assert bad.read_text() == "apiVersion: nvidia.com/v1alpha1\nkind: [\n"


def test_a_missing_file_is_a_usage_error(capsys, tmp_path):
    assert run(capsys, "convert", "--to", "v1beta1", str(tmp_path / "nope.yaml"))[0] == 2


def test_the_comments_of_a_dropped_field_stay_above_its_component(capsys, tmp_path):
    source = tmp_path / "graph.yaml"
    source.write_text("""\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: x
spec:
  services:
    # the frontend
    Frontend:
      componentType: frontend
      # legacy namespace
      dynamoNamespace: old  # still here
      autoscaling:
        enabled: true  # never used
      replicas: 1
""")
    code, out, err = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0
    assert out.endswith("""\
  components:
  # the frontend
  # legacy namespace
  # still here
  # never used
  - name: Frontend
    type: frontend
    replicas: 1
""")
    assert err.count("[convert-field-dropped]") == 2


def test_diff_shows_the_conversion_writes_nothing_and_fails_while_a_file_would_change(capsys, tmp_path):
    """`convert --diff` behaves as `fix --diff` (and `ruff format --diff`): a unified diff of what --write would
    write on stdout, nothing written, exit 1 while a file would change and 0 once none would."""
    import difflib

    source = tmp_path / "graph.yaml"
    source.write_text(SOURCE)
    code, converted, _ = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0
    code, out, err = run(capsys, "convert", "--to", "v1beta1", "--diff", str(source))
    assert (code, source.read_text()) == (1, SOURCE)
    expected = difflib.unified_diff(SOURCE.splitlines(keepends=True), converted.splitlines(keepends=True),
                                    f"a/{source}", f"b/{source}")
    assert out == "".join(expected) and "+  components:\n" in out
    assert err.endswith("dgdlint: would convert 1 file; nothing written\n")
    assert run(capsys, "convert", "--to", "v1beta1", "--write", str(source))[0] == 0
    code, out, err = run(capsys, "convert", "--to", "v1beta1", "--diff", str(source))
    assert (code, out) == (0, "") and "nothing to convert" in err


def test_diff_and_write_together_are_a_usage_error(capsys, tmp_path):
    source = tmp_path / "graph.yaml"
    source.write_text(SOURCE)
    code, out, err = run(capsys, "convert", "--to", "v1beta1", "--diff", "--write", str(source))
    assert (code, out, source.read_text()) == (2, "", SOURCE)
    assert err == "dgdlint convert: error: --diff and --write cannot be used together (--diff writes nothing)\n"


@pytest.mark.parametrize("word", ["yes", "on", "Y", "True"])
def test_create_written_as_a_yaml_1_1_boolean_is_true_as_kubernetes_reads_it(capsys, tmp_path, word):
    """Kubernetes' YAML reader (go-yaml v2, YAML 1.1 booleans) and dgdlint's loader read `create: yes` as true:
    the operator creates the claim. The round trip's YAML 1.2 reader leaves `yes` a string, which convert took
    for false (no claim object, and `dgdlint diff` of the file against its conversion said the graph no longer
    created it). A quoted "yes" is a string to both, and creates nothing."""
    from dgdlint.load import LoadResult, load_text
    from dgdlint.model import build_model

    for written, creates in ((word, True), (f'"{word}"', False)):
        source = tmp_path / "graph.yaml"
        source.write_text(SOURCE.replace("      create: false\n", f"      create: {written}\n      size: 200Gi\n"))
        graph = build_model(load_text(str(source), source.read_text(), LoadResult())).graphs[0]
        assert (graph.obj.get(("spec", "pvcs", 0, "create")) is True) == creates  # what the loader reads
        code, out, err = run(capsys, "convert", "--to", "v1beta1", str(source))
        assert code == 0, err
        assert ("kind: PersistentVolumeClaim" in out) == creates, out
        assert ("has create: true: written as a PersistentVolumeClaim" in err) == creates, err


def test_diff_of_the_create_yes_fixture_against_its_conversion_keeps_the_claim(capsys, tmp_path):
    """The case reported: the file and what convert makes of it differ in no claim the operator manages."""
    from refdata import ROOT

    fixture = ROOT / "tests" / "rules" / "pvc-create-incomplete" / "fail" / "create-yes.yaml"
    code, out, err = run(capsys, "convert", "--to", "v1beta1", str(fixture))
    assert code == 0 and "kind: PersistentVolumeClaim" in out, err
    converted = tmp_path / "converted.yaml"
    converted.write_text(out)
    _code, out, err = run(capsys, "diff", str(fixture), str(converted))
    assert "diff-cache-changed" not in out + err, out + err
