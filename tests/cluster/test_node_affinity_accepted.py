"""node-affinity-unsatisfiable reports pods the API server takes: each of its fixtures (the workload itself,
or the Pod the operator makes of a v1beta1 DGD) is created by the real API server as a server-side dry run,
fail and pass alike. Which node could take the pod is the scheduler's to say (there is none here): its own
matching code judges the rule's verdicts in tests/rules/test_node_affinity_oracle.py."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER, operator_pod
from controlplane import refused_fields

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULE = "node-affinity-unsatisfiable"
CASES = sorted((Path(__file__).parents[1] / "rules" / RULE).glob("*/*.yaml"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_takes_the_pods_the_rule_judges(path, control_plane, namespace):
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    created = operator_pod(document) if document["kind"] == "DynamoGraphDeployment" else document
    assert refused_fields(control_plane, namespace, created) == []
    ours = [f for f in check_paths([str(path)]).findings if f.rule == RULE]
    assert bool(ours) == (path.parent.name == "fail")
