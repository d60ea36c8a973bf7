"""autoscaler-target-unscalable against the real API server's discovery: the kind each fixture's autoscaler
aims at has a scale subresource (`<plural>/scale`) exactly when the rule passes it. The Dynamo kinds are
read from the CRDs applied to the server; a kind the server does not serve (another operator's) is one
the rule leaves alone."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import ApiError

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULE = "autoscaler-target-unscalable"
FIXTURES = sorted((Path(__file__).parents[1] / "rules" / RULE).glob("*/*.yaml"))


def _scalable(plane, api_version: str, kind: str) -> bool | None:
    """Whether the server serves `kind` with a scale subresource; None when it does not serve the kind."""
    base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
    try:
        resources = plane.request("GET", base)["resources"]
    except ApiError:
        return None
    plural = next((r["name"] for r in resources if r["kind"] == kind and "/" not in r["name"]), None)
    if plural is None:
        return None
    return any(r["name"] == f"{plural}/scale" for r in resources)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_rule_warns_exactly_when_the_target_kind_has_no_scale_subresource(path, control_plane):
    target = yaml.safe_load(path.read_text(encoding="utf-8"))["spec"]["scaleTargetRef"]
    scalable = _scalable(control_plane, target["apiVersion"], target["kind"])
    ours = [f for f in check_paths([str(path)]).findings if f.rule == RULE]
    if scalable is None:  # not served here: another operator's kind, which the rule does not judge
        assert ours == [] and path.parent.name == "pass"
        return
    assert (not scalable) == bool(ours) == (path.parent.name == "fail"), (target, scalable, ours)
