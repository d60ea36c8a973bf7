"""`--crd cluster` reads the Dynamo CRDs from the real API server (the current kube context): the schema
stage then finds what the bundled schemas find, CEL rules included, and nothing in a passing twin."""

from __future__ import annotations

import json

import pytest
from cluster_support import CLUSTER
from fixture_cases import FIXTURES

from dgdlint.cli import main as dgdlint

pytestmark = CLUSTER

CASES = ["unknown-field-v1beta1.yaml", "component-names-case-insensitive.yaml", "sidecar-without-image.yaml"]


def schema_findings(capsys, *arguments: str) -> tuple[int, list[tuple[str, str]]]:
    code = dgdlint(["check", "--format", "json", *arguments])
    report = json.loads(capsys.readouterr().out)
    return code, sorted((f["rule"], f["path"]) for f in report["findings"] if f["stage"] == "schema")


@pytest.mark.parametrize("name", CASES)
def test_the_schema_stage_reads_the_crds_from_the_cluster(control_plane, monkeypatch, capsys, name):
    monkeypatch.setenv("KUBECONFIG", str(control_plane.kubeconfig))
    failing = str(FIXTURES / "fail" / name)
    code, from_cluster = schema_findings(capsys, "--crd", "cluster", failing)
    assert code == 1 and from_cluster
    assert schema_findings(capsys, failing)[1] == from_cluster, "the bundled schemas say the same"
    assert schema_findings(capsys, "--crd", "cluster", str(FIXTURES / "pass" / name)) == (0, [])
