"""autoscaler-spec-invalid (and object-metadata-invalid's HorizontalPodAutoscaler names) against the real API
server: every fixture is created as a server-side dry run, sent as YAML as kubectl sends the file, and the
server refuses exactly the fixtures the rule fails, at the fields the rule names.

The server names two fields the rule does not, because it validates the object it made of the one written:
it puts the refusal of scaling to zero at spec.metrics (the rule at minReplicas, whose 0 asks for an
Object or External metric: the metrics may be left out and defaulted to CPU), and an autoscaling/v1
targetCPUUtilizationPercentage at the CPU metric it converts it to."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import refused_fields

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULES = Path(__file__).parents[1] / "rules"
FIXTURES = sorted([*(RULES / "autoscaler-spec-invalid").glob("*/*.yaml"),
                   *(RULES / "object-metadata-invalid").glob("*/hpa-*.yaml")])
# What the server names -> what the rule names for it (see the module docstring).
SERVER_FIELDS = {"spec.metrics": "spec.minReplicas"}
V1_FIELDS = {"spec.metrics[0].resource.target.averageUtilization": "spec.targetCPUUtilizationPercentage"}


def related(theirs: str, ours: set[str], api_version: str) -> bool:
    theirs = SERVER_FIELDS.get(theirs, theirs)
    if api_version == "autoscaling/v1":
        theirs = V1_FIELDS.get(theirs, theirs)
    return any(theirs == path or theirs.startswith((path + ".", path + "[")) or path.startswith((theirs + ".",
                                                                                                theirs + "["))
               for path in ours)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_what_the_rule_fails(path, control_plane, namespace):
    text = path.read_text(encoding="utf-8")
    refused = refused_fields(control_plane, namespace, text)
    ours = {f.path for f in check_paths([str(path)]).findings if f.rule == path.parent.parent.name}
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    api_version = yaml.safe_load(text)["apiVersion"]
    assert all(related(field, ours, api_version) for field in refused), (refused, ours)
