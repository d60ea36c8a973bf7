"""`--crd cluster` reads the Dynamo CRDs from the real API server (the current kube context): the schema
stage then finds what the bundled schemas find, CEL rules included, and nothing in a passing twin. And the
CRDs rebuilt from the bundled schemas (for a server with no upstream CRDs at hand) are valid CRDs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from cluster_support import CLUSTER
from fixture_cases import FIXTURES

from bundled_crds import crds, release
from dgdlint.schema.bundled import bundled_root, read_index

pytestmark = CLUSTER

RELEASES = [r.name for r in read_index(bundled_root())]
CASES = ["unknown-field-v1beta1.yaml", "component-names-case-insensitive.yaml", "sidecar-without-image.yaml"]


def schema_findings(kubeconfig, *arguments: str) -> tuple[int, list[tuple[str, str]]]:
    """`dgdlint check` as a user runs it, with KUBECONFIG naming the test cluster."""
    completed = subprocess.run([sys.executable, "-m", "dgdlint", "check", "--format", "json", *arguments],
                               capture_output=True, text=True, timeout=120, check=False,
                               env={**os.environ, "KUBECONFIG": str(kubeconfig)})
    assert completed.returncode in (0, 1), completed.stderr
    report = json.loads(completed.stdout)
    return completed.returncode, sorted((f["rule"], f["path"]) for f in report["findings"] if f["stage"] == "schema")


@pytest.mark.parametrize("name", CASES)
def test_the_schema_stage_reads_the_crds_from_the_cluster(control_plane, name):
    kubeconfig = control_plane.kubeconfig
    failing = str(FIXTURES / "fail" / name)
    code, from_cluster = schema_findings(kubeconfig, "--crd", "cluster", failing)
    assert code == 1 and from_cluster
    assert schema_findings(kubeconfig, failing)[1] == from_cluster, "the bundled schemas say the same"
    assert schema_findings(kubeconfig, "--crd", "cluster", str(FIXTURES / "pass" / name)) == (0, [])


@pytest.mark.parametrize("name", RELEASES)
def test_the_crds_rebuilt_from_each_bundled_release_are_ones_the_api_server_accepts(control_plane, name):
    """What the tier applies when the upstream CRDs are absent, checked here even when they are present:
    a dry-run create (under a group of its own, the real one being taken) passes the server's structural,
    CEL-cost and list-key checks of a CRD."""
    for crd in crds(release(name)):
        group = f"rebuilt-{name.replace('.', '-')}.example.com"
        crd["spec"]["group"] = group
        crd["metadata"]["name"] = f"{crd['spec']['names']['plural']}.{group}"
        created = control_plane.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All",
                                        crd)
        assert created["metadata"]["name"] == crd["metadata"]["name"]
