"""The dgdlint commands the documentation shows that read a cluster (`--crd cluster`, `dgdlint
preflight`) run as shown against the tier's API server, the kube context being its kubeconfig: exit 0 or
1 (findings), never a usage error or a traceback (tests/test_docs_commands.py runs the others)."""

from __future__ import annotations

import re

import pytest
from cluster_support import CLUSTER

from test_docs_commands import CLUSTER_COMMANDS, run_as_shown

pytestmark = CLUSTER


def test_the_docs_show_commands_that_read_a_cluster():
    assert any("preflight " in command for _, command in CLUSTER_COMMANDS)
    assert any("--crd cluster" in command for _, command in CLUSTER_COMMANDS)


@pytest.mark.parametrize("doc, command", CLUSTER_COMMANDS, ids=[f"{d}: {c[:60]}" for d, c in CLUSTER_COMMANDS])
def test_a_shown_cluster_command_runs_as_shown_against_the_api_server(control_plane, doc, command):
    output = run_as_shown(doc, command, {"KUBECONFIG": str(control_plane.kubeconfig)})
    if "preflight " in command:
        assert f"preflight against {control_plane.url}, namespace default" in output, output
        assert "ok   api       DynamoGraphDeployment: served:" in output, output
    else:
        assert re.search(r"in \d+ files \(\d+ objects; schema checked against the CRDs given\)", output), output
