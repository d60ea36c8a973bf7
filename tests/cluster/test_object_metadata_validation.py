"""object-metadata-invalid against the real API server for built-in kinds: each Job, Pod, claim or Service
fixture of the rule is created (a server-side dry run) and refused exactly where the rule fails it, on the
fields the rule names. (A DGD's fixtures go through the admission differential; a NetworkPolicy's and an
Ingress's through test_network_validation.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import refused_fields

from dgdlint.engine import check_paths

pytestmark = CLUSTER

FIXTURES = sorted(p for p in (Path(__file__).parents[1] / "rules" / "object-metadata-invalid").glob("*/*.yaml")
                  if p.name.startswith(("job-", "pod-", "claim-", "service-", "serviceaccount-", "namespace-",
                                        "priorityclass-", "storageclass-", "resourceclaimtemplate-",
                                        "deviceclass-")))


def related(theirs: str, ours: set[str]) -> bool:
    """The server names the field the rule names, or one inside or around it (an owner reference as a whole).
    With no name, it also refuses the name it generated from a generateName the rule refuses; a Namespace's
    name too long for a label is also refused in the kubernetes.io/metadata.name label the server adds."""
    if theirs == "metadata.name" and "metadata.generateName" in ours:
        return True
    if theirs == "metadata.labels" and "metadata.name" in ours:  # a Namespace's name, copied into the
        return True                                               # kubernetes.io/metadata.name label
    return any(theirs == path or theirs.startswith((path + ".", path + "[")) or path.startswith((theirs + ".",
                                                                                                theirs + "["))
               for path in ours)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_what_object_metadata_invalid_fails(path, control_plane, namespace):
    refused = refused_fields(control_plane, namespace, yaml.safe_load(path.read_text(encoding="utf-8")))
    ours = {f.path for f in check_paths([str(path)]).findings if f.rule == "object-metadata-invalid"}
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    assert all(related(field, ours) for field in refused), (refused, ours)


NAMESPACE_FIXTURES = sorted((Path(__file__).parents[1] / "rules" / "object-metadata-invalid").glob(
    "*/configmap-namespace-*.yaml"))


@pytest.mark.parametrize("path", NAMESPACE_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_object_is_created_in_the_namespace_it_names_only_when_that_is_a_dns_label(path, control_plane):
    """Sent as kubectl sends it, to the namespace it names: the server refuses a namespace that is no DNS
    label (no namespace can have that name); one that is, once it exists, takes the object."""
    from controlplane import ApiError, resource_path

    body = yaml.safe_load(path.read_text(encoding="utf-8"))
    name = body["metadata"]["namespace"]
    ours = {f.path for f in check_paths([str(path)]).findings if f.rule == "object-metadata-invalid"}
    try:  # the namespace is made first: one whose name is no DNS label cannot be
        control_plane.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                             "metadata": {"name": name}})
    except ApiError as error:
        assert error.status == 422 and path.parent.name == "fail", error
    try:
        control_plane.request("POST", resource_path(control_plane, "v1", "ConfigMap", name) + "?dryRun=All", body)
        refused = None
    except ApiError as error:
        refused = error
    assert (refused is not None) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    assert refused is None or ours == {"metadata.namespace"}
