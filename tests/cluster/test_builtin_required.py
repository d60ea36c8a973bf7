"""The fields Kubernetes' JSON schemas mark required that the API server takes left out
(dgdlint.schema.builtin.SERVER_OPTIONAL): each left out of an object the server then takes, and dgdlint too;
and every required field the built-in bases hold (builtin_bases.BASES: the built-in objects of the rules'
passing fixtures; builtin_synth.SYNTHESIZED: objects made from the schemas to hold every definition the
kinds reach), each left out in turn, gets the same verdict from the server and from dgdlint.

Kubernetes' JSON schemas mark a field required where its Go field has no `omitempty`; the API server does
not read that mark for its own kinds (it decodes the object and runs its validation code, which may take
the zero value), so the mark is a claim to hold against the server, field by field."""

from __future__ import annotations

import pytest
import yaml
from admission_support import REMOVED
from builtin_bases import BASES, schema_nodes, sweep
from builtin_synth import SYNTHESIZED, UNPLACED, cluster_ready, reachable
from cluster_support import CLUSTER
from controlplane import refused_fields

from dgdlint.engine import check_texts
from dgdlint.schema import SchemaStage
from dgdlint.schema.builtin import SERVER_OPTIONAL

pytestmark = CLUSTER

# One object per entry, the field left out.
WITHOUT = {
    ("io.k8s.api.core.v1.SleepAction", "seconds"): """\
apiVersion: batch/v1
kind: Job
metadata:
  name: sleep-without-seconds
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: busybox:1.36.1
          lifecycle:
            preStop:
              sleep: {}
""",
    ("io.k8s.api.core.v1.ScaleIOPersistentVolumeSource", "secretRef"): """\
apiVersion: v1
kind: PersistentVolume
metadata:
  name: scaleio-without-secret-ref
spec:
  capacity:
    storage: 10Gi
  accessModes: [ReadWriteOnce]
  scaleIO:
    gateway: https://scaleio.example.com:443/api
    system: scaleio
    volumeName: data
""",
}


def test_every_relaxed_field_is_held_against_the_server():
    """By the sweep below, where a base holds it (a synthesized one holds every field reachable), else by an
    object of WITHOUT."""
    relaxed = {(name, field) for name, fields in SERVER_OPTIONAL.items() for field in fields}
    swept = {(name, field) for _base, document in BASES + SYNTHESIZED
             for name, _path, field in required_fields(document)}
    assert relaxed - swept <= set(WITHOUT) <= relaxed, (relaxed - swept, set(WITHOUT))


@pytest.mark.parametrize("case", sorted(WITHOUT), ids="/".join)
def test_the_api_server_and_dgdlint_take_the_object_without_the_field(control_plane, namespace, case):
    text = WITHOUT[case]
    assert refused_fields(control_plane, namespace, yaml.safe_load(text)) == []
    assert [f for f in check_texts({"o.yaml": text}, SchemaStage()).findings if f.severity == "error"] == []


def required_fields(document: dict) -> list[tuple[str, tuple, str]]:
    """(definition, path of the object holding the field, field) for every field `document` holds that
    Kubernetes' schema marks required (SERVER_OPTIONAL's included: dgdlint's copy of the schema has them
    relaxed), below its apiVersion and kind."""
    return [(name, path, field) for path, value, schema, name in schema_nodes(document) if isinstance(value, dict)
            for field in [*(schema.get("required") or []), *SERVER_OPTIONAL.get(name, ())]
            if field in value and path + (field,) not in (("apiVersion",), ("kind",))]


def test_the_sweep_sees_required_fields_of_many_definitions():
    seen = {name for _base, document in BASES for name, _path, _field in required_fields(document)}
    assert {"io.k8s.api.core.v1.Container", "io.k8s.api.core.v1.Sysctl"} <= seen, seen
    assert len(seen) > 15, seen


def test_every_required_field_of_the_bases_left_out_gets_one_verdict(control_plane, namespace):
    """Each (definition, field) once, in the first base that is taken as written and holds it: the fixtures'
    objects first, then the synthesized ones (builtin_synth.py), which hold every definition reachable from
    the kinds' schemas, so every required field is judged but those of a definition no object the server
    takes can hold (builtin_synth.UNPLACED). Below a field the server drops (a feature its default gates leave
    off) it takes any field left out, and so does dgdlint (SERVER_OPTIONAL)."""
    def left_out(document):
        for definition, holder, field in required_fields(document):
            yield (definition, field), f"{definition}.{field}", holder + (field,), REMOVED

    cluster_ready(control_plane, namespace)
    judged, disagreements = sweep(control_plane, namespace, left_out, BASES + SYNTHESIZED)
    required, _scalars = reachable()
    assert {(name, field) for name, field in required - judged if name not in UNPLACED} == set()
    assert not disagreements, "\n\n".join(disagreements)
