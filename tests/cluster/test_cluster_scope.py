"""The kinds dgdlint takes for cluster-wide (model/objects.py CLUSTER_SCOPED, where a written namespace is
ignored) are the ones the real API server serves outside namespaces, read from its discovery."""

from __future__ import annotations

from cluster_support import CLUSTER

from dgdlint.model.objects import CLUSTER_SCOPED

pytestmark = CLUSTER


def _served(plane) -> dict[tuple[str, str], bool]:
    """(group, kind) -> namespaced, for every kind the server serves."""
    served = {("", r["kind"]): r["namespaced"] for r in plane.request("GET", "/api/v1")["resources"]
              if "/" not in r["name"]}
    for group in plane.request("GET", "/apis")["groups"]:
        for version in group["versions"]:
            for resource in plane.request("GET", f"/apis/{version['groupVersion']}")["resources"]:
                if "/" not in resource["name"]:
                    served.setdefault((group["name"], resource["kind"]), resource["namespaced"])
    return served


def test_every_kind_taken_as_cluster_wide_is_served_outside_namespaces(control_plane):
    served = _served(control_plane)
    listed = {(group, kind) for group, kinds in CLUSTER_SCOPED.items() for kind in kinds}
    assert sorted(key for key in listed if key not in served) == []
    assert sorted(key for key in listed if served[key]) == []
    assert served[("", "ConfigMap")] and served[("batch", "Job")]  # namespaced kinds read as such
