"""resource-claim-invalid against the real API server: each object of each fixture is created as a
server-side dry run, sent as YAML as kubectl sends a file (the server measures an opaque config's
parameters as the JSON it makes of them); the server refuses exactly the fixtures the rule fails, and at
the fields it names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import refused_fields

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULE = "resource-claim-invalid"
FIXTURES = sorted((Path(__file__).parents[1] / "rules" / RULE).glob("*/*.yaml"))


def as_ours(field: str) -> str:
    """A field the server names, as dgdlint writes its path."""
    return re.sub(r"\[(\d+)\]", r"[\1]", field)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_what_the_rule_fails(path, control_plane, namespace):
    refused = set()
    for body in yaml.safe_load_all(path.read_text(encoding="utf-8")):
        if body:
            refused |= {as_ours(f) for f in refused_fields(control_plane, namespace, yaml.safe_dump(body))}
    named = {f.path for f in check_paths([str(path)]).findings if f.rule == RULE}
    assert bool(refused) == (path.parent.name == "fail"), refused
    assert refused == named
