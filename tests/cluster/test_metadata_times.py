"""Times in object metadata as the API server reads them: each text below goes to a real API server as the
creationTimestamp of a Job, of its pod template and of a DynamoGraphDeployment (server-side dry runs), and
dgdlint must refuse exactly what the server refuses. The server decodes metav1.Time with Go's
time.Parse(time.RFC3339), before it validates anything, and ignores a time it can read (it sets its own);
dgdlint.go_time follows it (the built-in kinds' times are found by their type in the kind's schema, a custom
resource's by object-metadata-invalid). Found by the built-in admission fuzzer: `creationTimestamp: ""`, as
a tool that blanks it leaves it, passed."""

from __future__ import annotations

import pytest
from cluster_support import CLUSTER
from controlplane import refused_fields

from dgdlint.engine import check_texts
from dgdlint.schema import SchemaStage

pytestmark = CLUSTER

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: times
  creationTimestamp: OUTER
spec:
  template:
    metadata:
      creationTimestamp: INNER
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: busybox:1.36.1
"""
GRAPH = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: times
  creationTimestamp: OUTER
spec:
  components:
    - name: frontend
      type: frontend
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
"""
# As YAML scalars: what Go's RFC 3339 reader takes, and what it refuses.
TIMES = ["null", '"2026-12-02T08:00:00Z"', '"2026-12-02T08:00:00+01:00"', '"2026-12-02T08:00:00.123456789Z"',
         '"2026-12-02T8:00:00Z"', '"2026-12-02T08:00:00,5Z"', '""', '"2026-12-02"', '"2026-12-02 08:00:00Z"',
         '"2026-02-29T08:00:00Z"', '"2028-02-29T08:00:00Z"', '"2026-12-02t08:00:00z"', '"yesterday"',
         '"2026-12-02T08:00:00Z "', '"2026-13-02T08:00:00Z"']


def verdicts(plane, namespace: str, text: str) -> tuple[list[str], list[str]]:
    server = refused_fields(plane, namespace, text)
    ours = [f"{f.rule} {f.path}: {f.message}" for f in check_texts({"t.yaml": text}, SchemaStage()).findings
            if f.severity == "error" and f.stage in ("schema", "rule") and "time" in f.message]
    return server, ours


@pytest.mark.parametrize("time", TIMES)
def test_a_jobs_creation_timestamp_is_refused_exactly_where_the_api_server_refuses_it(control_plane, namespace,
                                                                                      time):
    server, ours = verdicts(control_plane, namespace, JOB.replace("OUTER", time).replace("INNER", "null"))
    assert bool(server) == bool(ours), (server, ours)


@pytest.mark.parametrize("time", TIMES)
def test_a_pod_templates_creation_timestamp_is_refused_exactly_where_the_api_server_refuses_it(
        control_plane, namespace, time):
    server, ours = verdicts(control_plane, namespace, JOB.replace("OUTER", "null").replace("INNER", time))
    assert bool(server) == bool(ours), (server, ours)


@pytest.mark.parametrize("time", TIMES)
def test_a_graphs_creation_timestamp_is_refused_exactly_where_the_api_server_refuses_it(control_plane, namespace,
                                                                                        time):
    server, ours = verdicts(control_plane, namespace, GRAPH.replace("OUTER", time))
    assert bool(server) == bool(ours), (server, ours)
