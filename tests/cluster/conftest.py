"""The cluster tier (`pytest -m cluster`): one real API server per test session, with the Dynamo CRDs of
the newest operator release applied. Every test module here carries `pytestmark = CLUSTER` (cluster_support.py): marked
`cluster`, and kept on one xdist worker (group "cluster", `--dist loadgroup`), so a session starts one
control plane, not one per worker.

Which CRDs: the upstream ones from ../shared/reference/dynamo-crds when they are beside the repository
(as in CI). They are preferred because they are the independent oracle: the server then judges with
NVIDIA's own CRDs, not with what dgdlint made of them. On a fresh clone with nothing beside it, the CRDs
are rebuilt from the bundled schemas (the `dynamo_crds` fixture, tests/bundled_crds.py), so the tier still
runs: the server still evaluates the schemas, CEL rules and list keys itself, but from dgdlint's copy of
the CRD (formats, and the kinds schemas/ does not bundle, are missing)."""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

import pytest
import yaml
from controlplane import ApiError, ControlPlane

from realtools import require_tool

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "chart"))  # chart_support: the chart tests' renders and lookups
sys.path.insert(0, str(HERE.parent / "schema"))  # fixture_cases: the schema fixtures and disagreements


def crds_in(folder: Path) -> list[dict]:
    """The CRDs in `folder`, ready to create on a server with no operator."""
    documents = []
    for path in sorted(folder.glob("*.yaml")):
        documents += [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8"))
                      if d and d.get("kind") == "CustomResourceDefinition"]
    for crd in documents:
        # The operator converts v1alpha1 <-> v1beta1 in its webhook; with no operator here, the server
        # would fail every write that needs a conversion. Validation is per served version either way.
        if (crd["spec"].get("conversion") or {}).get("strategy") == "Webhook":
            crd["spec"]["conversion"] = {"strategy": "None"}
    return documents


def wait_established(plane: ControlPlane, names: list[str], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    pending = set(names)
    while pending and time.monotonic() < deadline:
        for name in sorted(pending):
            crd = plane.request("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
            conditions = {c["type"]: c["status"] for c in (crd.get("status") or {}).get("conditions") or []}
            if conditions.get("Established") == "True":
                pending.discard(name)
        time.sleep(0.3)
    if pending:
        raise RuntimeError(f"CRDs not established within {timeout:.0f} s: {sorted(pending)}")
    # discovery lags the Established condition a little
    while time.monotonic() < deadline:
        try:
            plane.request("GET", "/apis/nvidia.com/v1beta1")
            plane.request("GET", "/apis/nvidia.com/v1alpha1")
            return
        except ApiError:
            time.sleep(0.3)


@pytest.fixture(scope="session")
def control_plane(dynamo_crds):
    etcd, apiserver = require_tool("etcd"), require_tool("kube-apiserver")
    crds = crds_in(dynamo_crds.newest)
    plane = ControlPlane(etcd, apiserver)
    try:
        plane.start()
        for crd in crds:
            plane.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        wait_established(plane, [crd["metadata"]["name"] for crd in crds])
        yield plane
    finally:
        plane.stop()


_names = itertools.count(1)


@pytest.fixture
def namespace(control_plane) -> str:
    """A fresh namespace per test (no controller manager: a deleted one would never finish terminating)."""
    name = f"t{next(_names)}-{int(time.time() * 1000) % 100000}"
    control_plane.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                         "metadata": {"name": name}})
    return name

