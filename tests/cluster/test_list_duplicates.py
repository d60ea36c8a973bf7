"""Duplicates in a built-in object's list-map and set lists, on a real API server: a create (as `kubectl
apply` and Helm 3 send it) takes some of them (two container ports or pull secrets of one key, a finalizer or
host alias twice) and keeps one entry, and refuses others (two containers of one name, two Service ports of
one port and protocol); server-side apply (Helm 4, Flux, `kubectl apply --server-side`) refuses them all,
an entry that holds none of the list's keys where they have no default (it takes a left-out key as its default:
`{}` and `{name: ""}` are one pull secret), and a null entry. dgdlint fails each with kubernetes-list-duplicate,
at the second entry (the keyless or null one)."""

from __future__ import annotations

import copy

import pytest
import yaml
from admission_support import changed
from cluster_support import CLUSTER
from controlplane import ApiError, refused_fields

from dgdlint.engine import check_texts
from dgdlint.schema import SchemaStage

pytestmark = CLUSTER

JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "dup"},
       "spec": {"template": {"spec": {"restartPolicy": "Never",
                                      "containers": [{"name": "main", "image": "busybox:1.36.1"}]}}}}
POD = ("spec", "template", "spec")


def _with(path: tuple, value: object) -> dict:
    return changed(JOB, path, value)


CASES = {  # (the Job, where dgdlint reports the second entry, whether a create takes it)
    "ports": (_with(POD + ("containers", 0, "ports"), [{"containerPort": 80, "name": "a"},
                                                       {"containerPort": 80, "name": "b"}]),
              "spec.template.spec.containers[0].ports[1]", True),
    "pull-secrets": (_with(POD + ("imagePullSecrets",), [{"name": "ngc"}, {"name": "ngc"}]),
                     "spec.template.spec.imagePullSecrets[1]", True),
    "finalizers": (_with(("metadata", "finalizers"), ["example.com/a", "example.com/a"]),
                   "metadata.finalizers[1]", True),
    "host-aliases": (_with(POD + ("hostAliases",), [{"ip": "10.0.0.1", "hostnames": ["a"]},
                                                    {"ip": "10.0.0.1", "hostnames": ["b"]}]),
                     "spec.template.spec.hostAliases[1]", True),
    "containers": (_with(POD + ("containers",), [{"name": "main", "image": "busybox:1.36.1"},
                                                 {"name": "main", "image": "busybox:1.36.1"}]),
                   "spec.template.spec.containers[1]", False),
    # A Service's ports are keyed by port and protocol (TCP when left out), in its validation as in its list
    # keys: a create refuses the second too, so service-spec-invalid leaves them to this rule.
    "service-ports": ({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "dup"},
                       "spec": {"ports": [{"name": "a", "port": 8000},
                                          {"name": "b", "port": 8000, "protocol": "TCP"}]}},
                      "spec.ports[1]", False),
    # An entry with none of the list's keys: server-side apply cannot place it ("an element that omits all key
    # fields"), a create takes it. The one built-in list whose key is optional and has no default: a
    # ServiceAccount's secrets (a pod's imagePullSecrets entry takes the name "" by default: below).
    "secret-without-name": ({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "dup"},
                             "secrets": [{"namespace": "default"}]}, "secrets[0]", True),
    # A key left out is its default to server-side apply: a pull secret without a name is one named "".
    "pull-secret-named-and-not": (_with(POD + ("imagePullSecrets",), [{}, {"name": ""}]),
                                  "spec.template.spec.imagePullSecrets[1]", True),
    "pull-secrets-without-names": (_with(POD + ("imagePullSecrets",), [{}, {}]),
                                   "spec.template.spec.imagePullSecrets[1]", True),
    # A null entry of a keyed list: server-side apply refuses it ("may not have a null element"), a create
    # reads it as an empty entry.
    "pull-secret-null": (_with(POD + ("imagePullSecrets",), [None]), "spec.template.spec.imagePullSecrets[0]", True),
    "scheduling-gate-null": (_with(POD + ("schedulingGates",), [{"name": "example.com/wait"}, None]),
                             "spec.template.spec.schedulingGates[1]", False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_server_side_apply_refuses_what_dgdlint_fails(case, control_plane, namespace):
    job, where, created = CASES[case]
    result = check_texts({"job.yaml": yaml.safe_dump(job)}, SchemaStage())
    found = [(f.rule, f.severity, f.path) for f in result.findings if f.rule == "kubernetes-list-duplicate"]
    assert found == [("kubernetes-list-duplicate", "error", where)]
    assert (refused_fields(control_plane, namespace, job) == []) is created
    applied = dict(copy.deepcopy(job), metadata=dict(job["metadata"], name=f"dup-{case}", namespace=namespace))
    with pytest.raises(ApiError) as refused:
        control_plane.apply(applied)
    assert refused.value.status in (400, 422, 500), refused.value


def test_a_pull_secret_without_a_name_is_taken_both_ways(control_plane, namespace):
    """A pod's imagePullSecrets entry without its key, name: the server's OpenAPI gives a LocalObjectReference's
    name the default "", so server-side apply places it, and a create takes it; dgdlint passes it."""
    job = _with(POD + ("imagePullSecrets",), [{}])
    result = check_texts({"job.yaml": yaml.safe_dump(job)}, SchemaStage())
    assert [f.rule for f in result.findings if f.severity == "error"] == []
    assert refused_fields(control_plane, namespace, job) == []
    control_plane.apply(dict(copy.deepcopy(job), metadata=dict(job["metadata"], name="keyless", namespace=namespace)))
