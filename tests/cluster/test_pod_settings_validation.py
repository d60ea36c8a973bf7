"""scheduling-spec-invalid and security-context-invalid against the real API server: each Job fixture is
created (a server-side dry run, sent as YAML as kubectl sends the file) with the Pod its template makes,
each v1beta1 DGD fixture's pod template as the Pod the operator would make of it; the server refuses exactly
the fixtures the rule fails, at the setting the rule names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER, operator_pod
from controlplane import refused_fields

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULES = ("scheduling-spec-invalid", "security-context-invalid")
FIXTURES = sorted(p for rule in RULES for p in (Path(__file__).parents[1] / "rules" / rule).glob("*/*.yaml"))


def as_created(path: Path) -> list[dict | str]:
    """What the server is asked to create: a Job as written and the Pod made of its template (the server
    checks some settings only on the pod, with the pod's labels merged in); for a v1beta1 DGD the Pod the
    operator makes of its first component."""
    text = path.read_text(encoding="utf-8")
    document = yaml.safe_load(text)
    if document["kind"] == "DynamoGraphDeployment":
        return [operator_pod(document)]
    template = document["spec"]["template"]
    return [text, {"apiVersion": "v1", "kind": "Pod", "metadata": dict(template.get("metadata") or {}, name="download"),
                   "spec": template["spec"]}]


def _setting(field: str) -> str:
    """The setting a field belongs to: a toleration, an affinity term or requirement, a constraint (the
    server names a toleration's value at its operator, a node selector's value at the whole map)."""
    return field.rsplit(".", 1)[0] if field.rsplit(".", 1)[-1] in ("operator", "value", "values") else field


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_the_settings_the_rule_fails(path, control_plane, namespace):
    refused = [field for body in as_created(path) for field in refused_fields(control_plane, namespace, body)]
    ours = [f for f in check_paths([str(path)]).findings if f.rule == path.parent.parent.name]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    named = {_setting(f.path.split("spec.template.spec.", 1)[-1].split("podTemplate.spec.", 1)[-1]) for f in ours}
    for field in refused:
        # a merged matchLabelKeys entry is named by the server as its term's index and its own: `[0][1]`
        field = _setting(re.sub(r"(\[\d+\])\[\d+\]$", r"\1",
                                field.split("spec.template.spec.", 1)[-1].removeprefix("spec.")))
        assert any(field == ours or field.startswith(ours + ".") or ours.startswith(field + ".")
                   or field.startswith(ours + "[") or ours.startswith(field + "[") for ours in named), \
            (refused, sorted(named))
