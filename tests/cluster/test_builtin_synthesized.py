"""The synthesized built-in bases (builtin_synth.py) are objects the API server takes, and dgdlint too: the
sweeps (test_builtin_required.py, test_builtin_sweep.py) judge a change only in a base both take as written,
so a base either refuses would leave its definition's fields unjudged. A base the server refuses that dgdlint
takes is a miss of dgdlint; one both refuse is a seed to mend (synth_seeds.yaml)."""

from __future__ import annotations

import json

from builtin_bases import dgdlint_refuses, placed, server_refuses
from builtin_synth import SYNTHESIZED, UNPLACED, places, reachable
from cluster_support import CLUSTER

pytestmark = CLUSTER


def test_every_reachable_definition_has_a_place_but_the_unplaced():
    required, scalars = reachable()
    assert {name for name, _field in required | scalars} <= set(places())
    assert not set(UNPLACED) & set(places())
    assert len(SYNTHESIZED) > 200, len(SYNTHESIZED)


def test_every_synthesized_base_is_taken_by_the_api_server_and_dgdlint(control_plane, namespace):
    refused = []
    for label, document in SYNTHESIZED:
        found = placed(control_plane, namespace, document)
        assert found is not None, f"{label}: the server serves no {document['apiVersion']} {document['kind']}"
        server, ours = server_refuses(control_plane, *found), dgdlint_refuses(found[0])
        if server or ours:
            refused.append(f"{label}:\n{json.dumps(found[0], indent=1)}\nserver: {server or 'accepted'}\n"
                           f"dgdlint: {ours or 'accepted'}")
    assert not refused, "\n\n".join(refused)


def test_an_unplaced_definition_is_refused_by_both(control_plane, namespace):
    """What makes a definition unplaceable is a refusal dgdlint must share: an ephemeral container in a pod
    template."""
    job = next(document for label, document in SYNTHESIZED if label == "synthesized io.k8s.api.core.v1.PodSpec")
    job = json.loads(json.dumps(job))
    job["spec"]["template"]["spec"]["ephemeralContainers"] = [{"name": "debug", "image": "busybox:1.36.1"}]
    found = placed(control_plane, namespace, job)
    assert "ephemeral containers not allowed in pod template" in server_refuses(control_plane, *found)
    assert any("ephemeralContainers" in finding for finding in dgdlint_refuses(found[0]))
