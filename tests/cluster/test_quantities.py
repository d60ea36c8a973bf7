"""Quantities in built-in kinds as the API server reads them: each text below goes to a real API server as a
Job's CPU request and a claim's storage request (server-side dry runs), and dgdlint must refuse exactly what
the server refuses. The server decodes the quantity with apimachinery's parser (trimming spaces, never
unescaping JSON), which dgdlint.quantity.go_quantity and schema/quantities.py follow."""

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
  name: quantity
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: busybox:1.36.1
          resources:
            requests:
              cpu: QUANTITY
"""
CLAIM = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: quantity
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: QUANTITY
"""
# As YAML scalars (JSON strings are YAML too): plain numbers, and texts the parser takes or refuses.
QUANTITIES = ["1", "1e3", "0.5", "100m", "96Gi", "1Ki", "1k", "1E", "1e+3", "1e-3", "1.", ".5", "+.5", "00012",
              "1e100", "1e-100", "9223372036854775807", "99999999999999999999999", '"."', '"Gi"', '"-"', '"+."',
              '"e3"', '" 1"', '"1 "', '"1\\u00a0"', '"1\\n"', '"1\\t"', '"1e"', '"1ki"', '"1K"', '"1.5.5"',
              '"0x10"', '"1_000"', '""', '"5e"', '"inf"', '"1E-3m"', '".e-10"', '"1e+"', '"\\u0661"']


def verdicts(plane, namespace: str, text: str) -> tuple[list[str], list[str]]:
    server = refused_fields(plane, namespace, text)
    ours = [f"{f.rule} {f.path}: {f.message}" for f in check_texts({"q.yaml": text}, SchemaStage()).findings
            if f.severity == "error"]
    return server, ours


@pytest.mark.parametrize("quantity", QUANTITIES)
def test_a_cpu_request_is_refused_exactly_where_the_api_server_refuses_it(control_plane, namespace, quantity):
    server, ours = verdicts(control_plane, namespace, JOB.replace("QUANTITY", quantity))
    assert bool(server) == bool(ours), (server, ours)


@pytest.mark.parametrize("quantity", QUANTITIES)
def test_a_claims_storage_request_is_refused_exactly_where_the_api_server_refuses_it(control_plane, namespace,
                                                                                     quantity):
    server, ours = verdicts(control_plane, namespace, CLAIM.replace("QUANTITY", quantity))
    assert bool(server) == bool(ours), (server, ours)  # a zero claim too (claim-spec-invalid)
