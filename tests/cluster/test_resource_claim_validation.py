"""resource-claim-invalid and device-class-invalid against the real API server: each object of each fixture
is created as a server-side dry run, sent as YAML as kubectl sends a file (the server measures an opaque
config's parameters as the JSON it makes of them); the server refuses exactly the fixtures the rules fail,
and at the fields they name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import ApiError, refused_fields

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULES = Path(__file__).parents[1] / "rules"
FIXTURES = sorted(p for rule in ("resource-claim-invalid", "device-class-invalid")
                  for p in (RULES / rule).glob("*/*.yaml"))


def as_ours(field: str) -> str:
    """A field the server names, as dgdlint writes its path: a template's metadata field that may not be set
    is named by the Go field it reflects on (`uID` for uid)."""
    return field.replace("spec.metadata.uID", "spec.metadata.uid")


def as_theirs(path: str) -> str:
    """A path a rule names, as the server names it: a label or annotation by its map (the server names the
    map for a bad key or value)."""
    return re.sub(r"\.(labels|annotations)\[.*\]$", r".\1", path)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_what_the_rule_fails(path, control_plane, namespace):
    refused = set()
    for body in yaml.safe_load_all(path.read_text(encoding="utf-8")):
        if body:
            refused |= {as_ours(f) for f in refused_fields(control_plane, namespace, yaml.safe_dump(body))}
    named = {as_theirs(f.path) for f in check_paths([str(path)]).findings if f.rule == path.parent.parent.name}
    assert bool(refused) == (path.parent.name == "fail"), refused
    assert refused == named


# Selectors whose worst-case cost the server estimates above its limit (1,000,000; cel-go's estimator over
# the DRA environment's declared sizes): nested comprehensions over a device's maps, regular expressions over
# split strings. cel-expr-python has no cost estimator, so dgdlint leaves them to the server (README, "What
# only a live cluster checks"): the server refuses them, the rule says nothing.
OVER_COST = [
    "device.attributes.all(d, device.attributes[d].all(k, device.attributes.all(e, "
    "device.attributes[e].all(j, k != j))))",
    'device.driver.split(".").all(p, device.driver.split(".").all(q, p.contains(q)))',
]


@pytest.mark.parametrize("expression", OVER_COST)
def test_a_selector_over_the_cost_limit_is_left_to_the_server(expression, control_plane, namespace, tmp_path):
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "gpu"},
             "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                 "deviceClassName": "gpu.nvidia.com", "selectors": [{"cel": {"expression": expression}}]}}]}}}
    path = f"/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaims?dryRun=All"
    with pytest.raises(ApiError) as refused:
        control_plane.request("POST", path, claim)
    assert "too complex, exceeds cost limit" in str(refused.value)
    manifest = tmp_path / "claim.yaml"
    manifest.write_text(yaml.safe_dump(claim), encoding="utf-8")
    assert [f for f in check_paths([str(manifest)]).findings if f.rule == "resource-claim-invalid"] == []
