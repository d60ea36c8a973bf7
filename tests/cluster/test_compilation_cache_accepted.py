"""compilation-cache-invalid reports what the API server takes: every document of each of its fixtures,
fail and pass alike, is created by the real API server (server-side dry run, strict field validation), so
on a failing one it is the operator's pod builder, after admission, that refuses (no operator runs here:
graph.go applyCompilationCache and applyCompilationCacheVolume are what the rule reads). A second pod
volume of the cache's name, which the pod builder refuses too, the server refuses itself (volumes is a
list keyed by name): the rule leaves that to the schema stage."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import refused_fields

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULE = "compilation-cache-invalid"
FIXTURES = Path(__file__).parents[1] / "rules" / RULE
CASES = sorted(FIXTURES.glob("*/*.yaml"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_takes_what_the_rule_judges(path, control_plane, namespace):
    documents = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    assert any(d["kind"] == "DynamoGraphDeployment" for d in documents)
    for document in documents:
        assert refused_fields(control_plane, namespace, document) == [], document["kind"]
    ours = [f for f in check_paths([str(path)]).findings if f.rule == RULE]
    assert bool(ours) == (path.parent.name == "fail")


def test_the_api_server_refuses_a_second_volume_of_the_cache_s_name(control_plane, namespace):
    dgd = yaml.safe_load((FIXTURES / "pass" / "cache-volume-writable-claim-v1beta1.yaml").read_text(encoding="utf-8"))
    volumes = dgd["spec"]["components"][0]["podTemplate"]["spec"]["volumes"]
    volumes.append(copy.deepcopy(volumes[0]))
    refused = refused_fields(control_plane, namespace, dgd)
    assert any("volumes[1]" in field for field in refused), refused
