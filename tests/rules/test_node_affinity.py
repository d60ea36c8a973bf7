"""node-affinity-unsatisfiable on long value lists: a message lists a few values of each and says how many
there are, and the candidates tried stay few (the scheduler's verdicts are checked in
test_node_affinity_oracle.py)."""

from __future__ import annotations

import yaml

from dgdlint.engine import check_texts
from dgdlint.model.graph import PodSettings
from dgdlint.rules.node_affinity import node_verdicts


def _job(expressions: list[dict]) -> dict:
    term = {"matchExpressions": expressions}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "download"},
            "spec": {"template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "download", "image": "busybox:1.36.1"}],
                "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                              {"nodeSelectorTerms": [term]}}}}}}}


def test_a_long_in_against_the_same_not_in_is_reported_with_a_few_of_its_values():
    values = [f"pool-{index}" for index in range(50000)]
    job = _job([{"key": "pool", "operator": "In", "values": values},
                {"key": "pool", "operator": "NotIn", "values": values}])
    findings = [f for f in check_texts({"job.yaml": yaml.safe_dump(job)}).findings
                if f.rule == "node-affinity-unsatisfiable"]
    assert len(findings) == 1
    shown = ", ".join(values[:8])
    assert f"In [{shown}, ... 50000 in all]" in findings[0].message
    assert len(findings[0].message) < 400


def test_a_long_not_in_over_integers_leaves_another_spelling():
    numbers = [str(n) for n in range(9, 20000)]
    job = _job([{"key": "count", "operator": "Gt", "values": ["8"]},
                {"key": "count", "operator": "NotIn", "values": numbers + ["0" + n for n in numbers]}])
    verdicts = node_verdicts(PodSettings(None, ("spec", "template", "spec"), job["spec"]["template"]["spec"]))
    labels, _name = verdicts[0].witness
    assert labels["count"] not in numbers and int(labels["count"]) > 8
