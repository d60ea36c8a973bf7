"""volume-node-affinity-conflict reports sets the API server takes: every object of each of its fixtures (the
volumes, the claims, the workloads, and the Pod the operator makes of a DGD's component) is created by the
real API server as a server-side dry run, fail and pass alike, so the rule is what stops a failing one. Which
node could take the pod with its volumes is the scheduler's to say (there is none here): its own code judges
the rule's verdicts in tests/rules/test_volume_affinity_oracle.py."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER, operator_pod
from controlplane import refused_fields

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULE = "volume-node-affinity-conflict"
CASES = sorted((Path(__file__).parents[1] / "rules" / RULE).glob("*/*.yaml"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_takes_every_object_the_rule_judges(path, control_plane, namespace):
    documents = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    for document in documents:
        created = operator_pod(document) if document["kind"] == "DynamoGraphDeployment" else document
        assert refused_fields(control_plane, namespace, created) == [], (document["kind"], document["metadata"])
    ours = [f for f in check_paths([str(path)]).findings if f.rule == RULE]
    assert bool(ours) == (path.parent.name == "fail")
    assert {"PersistentVolume"} <= {d["kind"] for d in documents}
