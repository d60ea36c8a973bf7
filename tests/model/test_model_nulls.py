"""The model reads a null field as no field, as the API server stores it (it prunes nulls before any
webhook or controller reads the object); tests/cluster/test_null_pruning.py checks the server's side."""

from __future__ import annotations

from dgdlint.engine import check_texts

V1ALPHA1 = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  components: null
  services:
    Frontend:
      componentType: frontend
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
          env:
            - name: EMPTY
              value: null
"""


def test_a_null_components_field_leaves_a_v1alpha1_graph_its_services():
    [graph] = check_texts({"m.yaml": V1ALPHA1}).model.graphs
    assert graph.shape == "services"
    assert [component.name for component in graph.components] == ["Frontend"]


def test_a_null_env_value_is_the_empty_value():
    [graph] = check_texts({"m.yaml": V1ALPHA1}).model.graphs
    assert graph.components[0].main.env_value("EMPTY") == ""
    assert graph.components[0].main.env_var("EMPTY").value == ""
