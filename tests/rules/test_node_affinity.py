"""node-affinity-unsatisfiable on long value lists: a message lists a few values of each and says how many
there are, and the candidates tried stay few (the scheduler's verdicts are checked in
test_node_affinity_oracle.py)."""

from __future__ import annotations

import yaml

from dgdlint.engine import check_texts
from dgdlint.model.pod import PodSettings
from dgdlint.preflight.placement import refusals
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


def test_many_contradicting_terms_are_explained_a_few_at_a_time():
    terms = [{"matchExpressions": [{"key": "pool", "operator": "In", "values": [f"a{n}"]}]} for n in range(2000)]
    job = _job([])
    spec = job["spec"]["template"]["spec"]
    spec["nodeSelector"] = {"pool": "zz"}
    spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] = terms
    findings = [f for f in check_texts({"job.yaml": yaml.safe_dump(job)}).findings
                if f.rule == "node-affinity-unsatisfiable"]
    assert len(findings) == 1 and len(findings[0].message) < 800
    assert findings[0].message.endswith("and 1996 more terms, none of which a node can meet either")
    node = {"metadata": {"name": "n1", "labels": {"pool": "zz"}}}
    (refusal,) = refusals(node, PodSettings(None, ("spec",), spec))
    assert refusal.endswith("; and 1996 more terms)") and len(refusal) < 800


def test_preflight_leaves_a_node_selector_value_that_is_no_string_to_the_schema():
    node = {"metadata": {"name": "n1", "labels": {"pool": "8"}}}
    for value in ({"x": 1}, [1], 8, None):
        pod = PodSettings(None, ("spec",), {"nodeSelector": {"pool": value, "zone": "b"}})
        assert refusals(node, pod) == ["no label zone=b"]
        assert node_verdicts(pod) == []


def test_a_gt_beyond_64_bits_is_said_to_be_so():
    job = _job([{"key": "count", "operator": "Gt", "values": ["9223372036854775808"]}])
    (verdict,) = node_verdicts(PodSettings(None, ("spec",), job["spec"]["template"]["spec"]))
    assert verdict.why.endswith("compares with an integer beyond 64 bits, so the scheduler never matches the term")
