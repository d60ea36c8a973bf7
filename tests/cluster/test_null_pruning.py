"""Nulls as the API server stores them: a null map entry or field of a custom resource is dropped before
validation and before any webhook sees the object, while an empty string is kept. dgdlint's schema stage
prunes nulls the same way, and the model reads a null pod annotation as no annotation (the operator's
webhook, reading the stored object, finds none): checked here against a real API server."""

from __future__ import annotations

import yaml
from cluster_support import CLUSTER
from controlplane import resource_path

from dgdlint.engine import check_texts
from dgdlint.schema import prune_nulls
from dgdlint.webhook_model import GPU_POWER_LIMIT, graph_views

pytestmark = CLUSTER

DGD = f"""\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: nulls
spec:
  backendFramework: vllm
  components:
    - name: Frontend
      type: frontend
      replicas: 1
      podTemplate:
        metadata:
          annotations:
            {GPU_POWER_LIMIT}: null
            kept: ""
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
              workingDir: null
              env:
                - name: EMPTY
                  value: null
"""


def stored(plane, namespace: str, text: str) -> dict:
    """The object as the server would store it (a server-side dry-run create, strict field validation)."""
    body = yaml.safe_load(text)
    body["metadata"]["namespace"] = namespace
    path = resource_path(plane, body["apiVersion"], body["kind"], namespace)
    return plane.request("POST", path + "?dryRun=All&fieldValidation=Strict", body)


def test_null_entries_are_dropped_and_empty_strings_kept_as_dgdlint_prunes_them(control_plane, namespace):
    component = stored(control_plane, namespace, DGD)["spec"]["components"][0]
    written = yaml.safe_load(DGD)["spec"]["components"][0]
    assert component["podTemplate"]["metadata"] == prune_nulls(written["podTemplate"]["metadata"])
    assert component["podTemplate"]["metadata"]["annotations"] == {"kept": ""}
    container = component["podTemplate"]["spec"]["containers"][0]
    assert "workingDir" not in container
    assert container["env"] == [{"name": "EMPTY"}]


def test_the_model_reads_a_null_env_value_as_the_empty_value_the_server_keeps(control_plane, namespace):
    [entry] = stored(control_plane, namespace, DGD)["spec"]["components"][0]["podTemplate"]["spec"]["containers"][0][
        "env"]
    [graph] = check_texts({"m.yaml": DGD}).model.graphs
    assert entry.get("value", "") == graph.components[0].main.env_value("EMPTY") == ""


def test_the_model_reads_a_null_power_limit_as_none_and_an_empty_one_as_set(control_plane, namespace):
    annotations = stored(control_plane, namespace, DGD)["spec"]["components"][0]["podTemplate"]["metadata"][
        "annotations"]
    [view] = graph_views(check_texts({"m.yaml": DGD}).model)
    assert GPU_POWER_LIMIT not in annotations
    assert view.components[0].power_limit is None
    empty = DGD.replace(f"{GPU_POWER_LIMIT}: null", f'{GPU_POWER_LIMIT}: ""')
    annotations = stored(control_plane, namespace, empty)["spec"]["components"][0]["podTemplate"]["metadata"][
        "annotations"]
    [view] = graph_views(check_texts({"m.yaml": empty}).model)
    assert annotations[GPU_POWER_LIMIT] == view.components[0].power_limit.text == ""
