"""Integer formats as the API server enforces them: a value outside an int32 or int64 field's range is
refused (a built-in kind when the server decodes it into its Go type, a custom resource by its schema's
format), and dgdlint's schema stage refuses the same values at the same field."""

from __future__ import annotations

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import ApiError, resource_path

from dgdlint.engine import check_texts
from dgdlint.schema import SchemaStage

pytestmark = CLUSTER

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: j
spec:
  parallelism: {value}
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: busybox:1.36
"""
DGD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  backendFramework: vllm
  components:
    - name: Frontend
      type: frontend
      replicas: {value}
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
"""


def accepted(plane, namespace: str, text: str) -> bool:
    body = yaml.safe_load(text)
    body["metadata"]["namespace"] = namespace
    path = resource_path(plane, body["apiVersion"], body["kind"], namespace)
    try:
        plane.request("POST", f"{path}?dryRun=All&fieldValidation=Strict", body)
    except ApiError:
        return False
    return True


@pytest.mark.parametrize("template", [JOB, DGD], ids=["job-parallelism", "dgd-replicas"])
@pytest.mark.parametrize("value", [2**31 - 1, 2**31, 2**63 - 1, 2**63, 10**20])
def test_an_int32_field_is_refused_outside_its_range_by_both(control_plane, namespace, template, value):
    text = template.format(value=value)
    findings = [f for f in check_texts({"m.yaml": text}, SchemaStage([])).findings if f.stage == "schema"]
    assert accepted(control_plane, namespace, text) == (not findings), findings
    assert all(f.path in ("spec.parallelism", "spec.components[0].replicas") for f in findings)
