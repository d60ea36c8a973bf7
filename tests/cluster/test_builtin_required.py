"""The fields Kubernetes' JSON schemas mark required that the API server takes left out
(dgdlint.schema.builtin.SERVER_OPTIONAL): each left out of an object the server then takes, and dgdlint too."""

from __future__ import annotations

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import refused_fields

from dgdlint.engine import check_texts
from dgdlint.schema import SchemaStage
from dgdlint.schema.builtin import SERVER_OPTIONAL

pytestmark = CLUSTER

# One object per entry, the field left out.
WITHOUT = {
    ("io.k8s.api.core.v1.SleepAction", "seconds"): """\
apiVersion: batch/v1
kind: Job
metadata:
  name: sleep-without-seconds
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: busybox:1.36.1
          lifecycle:
            preStop:
              sleep: {}
""",
}


def test_every_relaxed_field_has_its_case():
    assert set(WITHOUT) == {(name, field) for name, fields in SERVER_OPTIONAL.items() for field in fields}


@pytest.mark.parametrize("case", sorted(WITHOUT), ids="/".join)
def test_the_api_server_and_dgdlint_take_the_object_without_the_field(control_plane, namespace, case):
    text = WITHOUT[case]
    assert refused_fields(control_plane, namespace, yaml.safe_load(text)) == []
    assert [f for f in check_texts({"o.yaml": text}, SchemaStage()).findings if f.severity == "error"] == []
