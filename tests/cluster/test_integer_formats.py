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
from past_int64 import CASES, QUANTITY_PAIRS, cpu_request_and_limit, manifest, server_takes, server_takes_pair

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



def accepted_as_yaml(plane, namespace: str, text: str) -> bool:
    """The server's verdict on the manifest sent as YAML, read as kubectl reads a file (sigs.k8s.io/yaml)."""
    head = yaml.safe_load(text)
    path = resource_path(plane, head["apiVersion"], head["kind"], namespace)
    try:
        plane.request("POST", f"{path}?dryRun=All&fieldValidation=Strict", text.encode(),
                      content_type="application/yaml")
    except ApiError:
        return False
    return True


@pytest.mark.parametrize("place, value", CASES, ids=[f"{p}={v}" for p, v in CASES])
def test_an_integer_past_int64_is_judged_as_the_api_server_judges_it(control_plane, namespace, place, value):
    """tests/past_int64.py's verdicts are the server's; dgdlint gives the same (tests/schema holds it there
    without a cluster, this asks the server)."""
    text = manifest(place, value)
    assert accepted_as_yaml(control_plane, namespace, text) == server_takes(place, value)
    findings = [f for f in check_texts({"m.yaml": text}, SchemaStage([])).findings if f.severity == "error"]
    assert (not findings) == server_takes(place, value), [f"{f.rule} {f.path}: {f.message}" for f in findings]


@pytest.mark.parametrize("request_, limit", QUANTITY_PAIRS)
def test_a_quantity_past_int64_is_compared_as_the_api_server_compares_it(control_plane, namespace, request_, limit):
    text = cpu_request_and_limit(request_, limit)
    assert accepted_as_yaml(control_plane, namespace, text) == server_takes_pair(request_, limit)
    findings = [f for f in check_texts({"m.yaml": text}, SchemaStage([])).findings if f.severity == "error"]
    assert (not findings) == server_takes_pair(request_, limit), [f.message for f in findings]
