"""Which container is a component's main one: only the one named `main` (v1beta1), as the operator's pod builder
merges that one into its main container and keeps every other as a sidecar (internal/dynamo/graph.go
GenerateBasePodSpec; the webhook reads that one's image, webhook/validation/shared_helpers.go
runtimeVersionImageAndPath). A pod whose only container has another name has no main container as written:
the model's `main` is then empty, and `dgdlint diff` compares that container as a sidecar."""

from __future__ import annotations

from pathlib import Path

import pytest

from dgdlint.diff.pods import pods_of
from dgdlint.diff.views import view_changes, worker_view
from dgdlint.hub_restore import converted_view
from dgdlint.load import load_paths
from dgdlint.model import build_model

V1BETA1 = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  backendFramework: vllm
  components:
    - name: worker
      type: worker
      podTemplate:
        spec:
          containers:
            - name: {name}
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0
              command: [python3, -m, dynamo.vllm]
              env:
                - {{name: OWN, value: "1"}}
"""

# A v1alpha1 service whose record's pod template holds one container, not named main: ConvertTo drops the
# main container it generated for the service (dropGeneratedMainContainer), so the hub pod has `proxy` alone.
RECORD = '{"spec":{"components":[{"name":"Planner","podTemplate":{"spec":{"containers":[{"name":"proxy",' \
    '"image":"busybox:1.36"}]}}}]}}'
V1ALPHA1_MAIN_DROPPED = f"""\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: demo
  annotations:
    nvidia.com/dgd-spec: '{RECORD}'
spec:
  services:
    Planner:
      componentType: planner
      replicas: 1
"""


def _model(tmp_path: Path, text: str, name: str = "dgd.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return build_model(load_paths([str(path)]))


@pytest.mark.parametrize("name, main, sidecars", [("main", "main", []), ("vllm", "", ["vllm"])])
def test_only_the_container_named_main_is_main(tmp_path, name, main, sidecars):
    component = _model(tmp_path, V1BETA1.format(name=name)).graphs[0].components[0]
    assert component.main.name == main
    assert [c.name for c in component.sidecars] == sidecars
    # the container's own env and command go with it; an empty main has neither
    assert (component.main.env_value("OWN"), component.main.command) == \
        (("1", ["python3", "-m", "dynamo.vllm"]) if name == "main" else (None, []))


def test_diff_compares_a_lone_container_not_named_main_as_a_sidecar(tmp_path):
    old = pods_of(converted_view(_model(tmp_path, V1BETA1.format(name="main"), "old.yaml").graphs[0]))["worker"]
    new = pods_of(converted_view(_model(tmp_path, V1BETA1.format(name="vllm"), "new.yaml").graphs[0]))["worker"]
    assert new.main.name == "" and [c.name for c in new.containers] == ["vllm"]
    aspects = {change.aspect for change in view_changes(worker_view(old), worker_view(new), (), ())}
    # renamed, it is no longer what the operator merges into main: main loses the image, command and env
    assert {"image", "command", "env OWN", "container vllm: image", "container vllm: env OWN"} <= aspects


def test_diff_keeps_the_lone_container_of_a_dropped_main_a_sidecar(tmp_path):
    view = converted_view(_model(tmp_path, V1ALPHA1_MAIN_DROPPED).graphs[0])
    pod = pods_of(view)["Planner"]
    assert (pod.main.name, pod.main.image) == ("", None)
    assert [(c.name, c.image) for c in pod.containers] == [("proxy", "busybox:1.36")]
