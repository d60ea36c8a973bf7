"""Label selectors read as Kubernetes reads them (rules/selectors.py): a selector whose operator cannot be
read is not said to miss its pod template's labels (the schema names the missing operator)."""

from __future__ import annotations

from dgdlint.engine import check_texts
from dgdlint.schema import SchemaStage

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchExpressions:
      - {key: app, values: [x]}
  template:
    metadata:
      labels: {app: x}
    spec:
      containers:
        - name: web
          image: busybox:1.36.1
"""


def test_a_selector_without_an_operator_is_reported_by_the_schema_not_as_a_mismatch():
    findings = check_texts({"web.yaml": DEPLOYMENT}, SchemaStage()).findings
    assert [(f.rule, f.path) for f in findings if f.severity == "error"] == \
        [("kubernetes-schema", "spec.selector.matchExpressions[0]")]
