"""RBAC roles and bindings, LimitRanges and ResourceQuotas against the real API server: every fixture of the
rules that stand for its validation of them (rbac-spec-invalid, quota-spec-invalid), and
object-metadata-invalid's fixtures of these kinds, is created as a server-side dry run, sent as YAML as
kubectl sends the file (a cluster-scoped ClusterRole or ClusterRoleBinding without a namespace). The server
refuses exactly the fixtures the rule fails, at the fields the rule names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cluster_support import CLUSTER
from controlplane import refused_fields

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULES = Path(__file__).parents[1] / "rules"
_KINDS = ("role-", "clusterrole-", "rolebinding-", "clusterrolebinding-", "limitrange-", "resourcequota-")
OBJECTS = sorted([p for rule in ("rbac-spec-invalid", "quota-spec-invalid") for p in (RULES / rule).glob("*/*.yaml")]
                 + [p for p in (RULES / "object-metadata-invalid").glob("*/*.yaml") if p.name.startswith(_KINDS)])
_PART = re.compile(r"\['([^']*)'\]|\[([^\]]*)\]|\.?([^.\[]+)")


def parts(path: str) -> list[str]:
    """A field path as its steps: the server writes a map key in brackets (`spec.hard[requests.cpu]`), dgdlint
    after a dot or, when it holds a dot, quoted in brackets (`spec.hard['requests.cpu']`)."""
    return [quoted or bracketed or plain for quoted, bracketed, plain in _PART.findall(path)]


def _limit_copy(steps: list[str], ours: list[str]) -> bool:
    """A LimitRange's Container defaults are copies the server made of the limit's max, default or min (the
    v1 defaults): it names a problem of one resource in each copy, the rule once, at a written table of the
    same resource of the same limit."""
    return len(steps) == 5 == len(ours) and steps[:2] == ["spec", "limits"] and steps[3] in ("default",
        "defaultRequest") and (ours[:3], ours[4]) == (steps[:3], steps[4])


def related(theirs: str, ours: set[str]) -> bool:
    """The server names the field the rule names, or one inside or around it (a rule's whole scope list, an
    expression of a scope selector), or the copy its defaults made of it. It names a scope selector's
    scopeName, operator and values without the expression's index. With no name, it also refuses the name
    it made of a refused generateName."""
    if theirs == "metadata.name" and "metadata.generateName" in ours:
        return True
    mine = parts(theirs)
    for path in ours:
        steps = parts(path)
        if theirs.startswith("spec.scopeSelector.matchExpressions."):
            steps = [step for step in steps if not step.isdigit()]
        if steps[:len(mine)] == mine or mine[:len(steps)] == steps or _limit_copy(mine, steps):
            return True
    return False


@pytest.mark.parametrize("path", OBJECTS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_what_the_rule_fails(path, control_plane, namespace):
    refused = refused_fields(control_plane, namespace, path.read_text(encoding="utf-8"))
    ours = {f.path for f in check_paths([str(path)]).findings if f.rule == path.parent.parent.name}
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    assert all(related(field, ours) for field in refused), (refused, ours)
