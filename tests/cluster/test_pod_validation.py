"""The rules that stand for the API server's pod validation (container-resources-invalid,
env-value-and-value-from), against the real API server: each Job fixture of the rule is created (a
server-side dry run), and each v1beta1 DGD fixture's pod template is created as the Pod the operator would
make of it; the server refuses exactly the fixtures the rule fails, in the container the rule names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER, operator_pod
from controlplane import refused_fields

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULES = ("container-resources-invalid", "env-value-and-value-from")
FIXTURES = sorted(p for rule in RULES for p in (Path(__file__).parents[1] / "rules" / rule).glob("*/*.yaml"))
CASES = [p for p in FIXTURES if p.name.startswith("job-") or p.name.endswith("-v1beta1.yaml")]


def as_created(document: dict) -> dict:
    """The object the server is asked to create: the workload itself, or the Pod the operator makes of a DGD."""
    return operator_pod(document) if document["kind"] == "DynamoGraphDeployment" else document


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_what_the_rule_fails(path, control_plane, namespace):
    refused = refused_fields(control_plane, namespace, as_created(yaml.safe_load(path.read_text(encoding="utf-8"))))
    ours = [f for f in check_paths([str(path)]).findings if f.rule == path.parent.parent.name]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    # the server names a field of the same container (a missing limit at `limits`, the rule at the request)
    def container(field: str) -> str:
        return field.rsplit("containers", 1)[1].split("]", 1)[0]

    assert {container(field) for field in refused} <= {container(f.path) for f in ours}, (refused, ours)


CLAIMS = sorted((Path(__file__).parents[1] / "rules" / "claim-spec-invalid").glob("*/claim-*.yaml"))
OPERATOR_CLAIMS = sorted((Path(__file__).parents[1] / "rules" / "claim-spec-invalid").glob("*/dgd-*.yaml"))


@pytest.mark.parametrize("path", CLAIMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_the_claims_claim_spec_invalid_fails(path, control_plane, namespace):
    refused = refused_fields(control_plane, namespace, yaml.safe_load(path.read_text(encoding="utf-8")))
    ours = [f for f in check_paths([str(path)]).findings if f.rule == "claim-spec-invalid"]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)


@pytest.mark.parametrize("path", OPERATOR_CLAIMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_claim_the_operator_makes_of_a_pvcs_entry_is_refused_where_the_rule_says(path, control_plane,
                                                                                    namespace):
    """The operator makes a claim of a v1alpha1 `pvcs` entry with `create: true`: its size as the storage
    request, its volumeAccessMode as the one access mode, its storageClass as the class."""
    [entry] = yaml.safe_load(path.read_text(encoding="utf-8"))["spec"]["pvcs"]
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": entry["name"]},
             "spec": {"accessModes": [entry["volumeAccessMode"]], "storageClassName": entry["storageClass"],
                      "resources": {"requests": {"storage": entry["size"]}}}}
    refused = refused_fields(control_plane, namespace, claim)
    ours = [f for f in check_paths([str(path)]).findings if f.rule == "claim-spec-invalid"]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)


WORKLOADS = sorted((Path(__file__).parents[1] / "rules" / "pod-spec-invalid").glob("*/*.yaml"))
BUILT_IN_WORKLOADS = [p for p in WORKLOADS if not p.name.startswith("dgd-")]


@pytest.mark.parametrize("path", BUILT_IN_WORKLOADS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_the_workloads_pod_spec_invalid_fails(path, control_plane, namespace):
    """Each Job or Deployment fixture of pod-spec-invalid is created (a server-side dry run): refused exactly
    where the rule fails it, on the field the rule names."""
    refused = refused_fields(control_plane, namespace, yaml.safe_load(path.read_text(encoding="utf-8")))
    ours = [f for f in check_paths([str(path)]).findings if f.rule == "pod-spec-invalid"]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    # each field the server names is one the rule names, inside one (a missing restartPolicy: at the spec),
    # or around one (an invalid selector is also refused as a whole, at spec.selector); a mount's subPath and
    # propagation it names without the mount's index
    def unindexed(path: str) -> str:
        return re.sub(r"\[\d+\]", "", path)

    assert all(any(field.startswith(f.path) or f.path.startswith(field + ".")
                   or unindexed(f.path) == unindexed(field) for f in ours) for field in refused), (refused, ours)


CONFIG_DATA = sorted((Path(__file__).parents[1] / "rules" / "config-data-invalid").glob("*/*.yaml"))


@pytest.mark.parametrize("path", CONFIG_DATA, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_the_secrets_and_config_maps_config_data_invalid_fails(
        path, control_plane, namespace):
    """Sent as YAML, as kubectl reads the file: the server decodes the base64 itself."""
    refused = refused_fields(control_plane, namespace, path.read_text(encoding="utf-8"))
    ours = [f for f in check_paths([str(path)]).findings if f.rule == "config-data-invalid"]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)


@pytest.mark.parametrize("path", [p for p in WORKLOADS if p.name.startswith("dgd-")],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_dgds_pod_is_refused_where_pod_spec_invalid_fails_its_template(path, control_plane, namespace):
    """A DGD's pod template, created as the Pod the operator would make of it."""
    refused = refused_fields(control_plane, namespace, as_created(yaml.safe_load(path.read_text(encoding="utf-8"))))
    ours = [f for f in check_paths([str(path)]).findings if f.rule == "pod-spec-invalid"]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
