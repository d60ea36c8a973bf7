"""The rules that stand for the API server's validation of disruption budgets, network policies and
ingresses (disruption-budget-invalid, network-policy-invalid, ingress-spec-invalid), against the real API
server: every fixture (and object-metadata-invalid's of these kinds) is created as a server-side dry run,
sent as YAML as kubectl sends the file, and the server refuses exactly the fixtures the rule fails, at the
fields the rule names. The Ingress the operator makes of a v1alpha1 component's `ingress` is created as
the operator writes it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import refused_fields

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULES = Path(__file__).parents[1] / "rules"
OBJECTS = sorted([p for rule in ("disruption-budget-invalid", "network-policy-invalid", "ingress-spec-invalid")
                  for p in (RULES / rule).glob("*/*.yaml") if not p.name.startswith("dgd-")]
                 + [p for pattern in ("networkpolicy-*.yaml", "ingress-*.yaml")
                    for p in (RULES / "object-metadata-invalid").glob(f"*/{pattern}")])
OPERATOR_INGRESSES = sorted((RULES / "ingress-spec-invalid").glob("*/dgd-*.yaml"))


def _related(theirs: str, ours: set[str]) -> bool:
    """The server names the field the rule names, or one inside or around it (a whole port, a path's type).
    It names the ingress class annotation without `metadata.`, and its key unquoted; a value it cannot
    decode, in its message."""
    decoded = re.search(r"Go struct field \w+\.(\S+) of type", theirs)  # refused before validation
    if decoded:
        theirs = decoded.group(1)
    if theirs.startswith("annotations."):
        theirs = f"metadata.annotations['{theirs.removeprefix('annotations.')}']"
    return any(theirs == path or theirs.startswith(path + ".") or path.startswith(theirs + ".")
               or theirs.startswith(path + "[") or path.startswith(theirs + "[") for path in ours)


@pytest.mark.parametrize("path", OBJECTS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_what_the_rule_fails(path, control_plane, namespace):
    refused = refused_fields(control_plane, namespace, path.read_text(encoding="utf-8"))
    ours = [f for f in check_paths([str(path)]).findings if f.rule == path.parent.parent.name]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    assert all(_related(field, {f.path for f in ours}) for field in refused), (refused, [f.path for f in ours])


def operator_ingress(component: str, ingress: dict) -> dict:
    """The Ingress the operator writes for a v1alpha1 component's enabled `ingress` with a controller class
    (GenerateComponentIngress): host `<hostPrefix><host>.<hostSuffix>` (the suffix `local` when left out),
    one Prefix path to the component's Service on port 8000, the class and TLS secret as given."""
    suffix = ingress["hostSuffix"] if ingress.get("hostSuffix") is not None else "local"
    host = f"{ingress.get('hostPrefix') or ''}{ingress['host']}.{suffix}"
    name = component.lower().replace(".", "-")
    backend = {"service": {"name": name, "port": {"number": 8000}}}
    spec: dict = {"ingressClassName": ingress["ingressControllerClassName"],
                  "rules": [{"host": host, "http": {"paths": [{"path": "/", "pathType": "Prefix",
                                                              "backend": backend}]}}]}
    if "tls" in ingress:
        spec["tls"] = [{"hosts": [host], "secretName": ingress["tls"].get("secretName", "")}]
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": name}, "spec": spec}


@pytest.mark.parametrize("path", OPERATOR_INGRESSES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_ingress_the_operator_makes_is_refused_where_the_rule_says(path, control_plane, namespace):
    documents = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    [graph] = [d for d in documents if d["kind"] == "DynamoGraphDeployment"]
    ingresses = {name: service["ingress"] for name, service in graph["spec"]["services"].items()
                 if (service.get("ingress") or {}).get("enabled")}
    assert ingresses, "the fixture enables an ingress"
    made = [operator_ingress(name, ingress) for name, ingress in ingresses.items()
            if ingress.get("ingressControllerClassName") is not None]  # else the operator makes none
    refused = [field for ingress in made for field in refused_fields(control_plane, namespace, ingress)]
    ours = [f for f in check_paths([str(path)]).findings if f.rule == "ingress-spec-invalid"]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
