"""priority-class-invalid, namespace-spec-invalid and storage-class-invalid against the real API server:
each fixture's last object is created as a server-side dry run after the ones before it were created for
real (a second default priority class is refused by the Priority admission plugin, which reads the classes
stored), and the server refuses exactly the fixtures the rules fail, at the fields they name."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import ApiError, refused_fields, resource_path

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULES = Path(__file__).parents[1] / "rules"
FIXTURES = sorted(p for rule in ("priority-class-invalid", "namespace-spec-invalid", "storage-class-invalid")
                  for p in (RULES / rule).glob("*/*.yaml"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_what_the_rules_fail(path, control_plane, namespace):
    *before, last = [body for body in yaml.safe_load_all(path.read_text(encoding="utf-8")) if body]
    created = []
    try:
        for body in before:
            control_plane.request("POST", resource_path(control_plane, body["apiVersion"], body["kind"], None), body)
            created.append(body)
        refused = refused_fields(control_plane, namespace, last)
        deadline = time.monotonic() + 10
        while before and not refused and time.monotonic() < deadline:  # the plugin reads its informer's copy
            time.sleep(0.5)
            refused = refused_fields(control_plane, namespace, last)
    finally:
        for body in created:
            try:
                control_plane.request("DELETE", resource_path(control_plane, body["apiVersion"], body["kind"],
                                                              None, body["metadata"]["name"]))
            except ApiError:
                pass
    ours = [f for f in check_paths([str(path)]).findings if f.rule == path.parent.parent.name]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    named = {f.path for f in ours}
    for field in refused:
        assert field in named or any(field.startswith((p + "[", p + ".")) or p.startswith(field + "[")
                                     for p in named) \
            or ("already marked as default" in field and "globalDefault" in named), (field, named)
