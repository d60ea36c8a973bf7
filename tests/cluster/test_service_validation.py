"""service-spec-invalid against the real API server: every fixture's Services are created for real (and deleted
again), and the server refuses exactly the fixtures the rule fails, at the fields it names. Not a dry run: in
a dry run the node port allocator takes any port, so only a real create refuses a node port outside the
cluster's range (30000-32767 here, the default; a second server started with its own range checks
--service-node-port-range). The server's service range is 10.0.0.0/24 (controlplane.py),
which holds the fixtures' cluster IPs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import ApiError, ControlPlane

from dgdlint.engine import check_paths
from dgdlint.release import parse_node_port_range
from dgdlint.schema import SchemaStage
from realtools import require_tool

pytestmark = CLUSTER

RULES = Path(__file__).parents[1] / "rules"
FIXTURES = sorted((RULES / "service-spec-invalid").glob("*/*.yaml"))


def created_or_refused(plane: ControlPlane, namespace: str, service: dict) -> list[str]:
    """The fields the server names in refusing to create `service` (its message when it names none), or []
    when it creates it; a created Service is deleted at once, freeing its cluster IP and node ports."""
    path = f"/api/v1/namespaces/{namespace}/services"
    try:
        made = plane.request("POST", path + "?fieldValidation=Strict",
                             dict(service, metadata=dict(service["metadata"], namespace=namespace)))
    except ApiError as error:
        causes = [cause.get("field", "") for cause in error.body.get("details", {}).get("causes", [])]
        return [cause for cause in causes if cause] or [error.body.get("message", "") or str(error.body)]
    plane.request("DELETE", f"{path}/{made['metadata']['name']}")
    return []


def related(theirs: str, ours: set[str]) -> bool:
    """The server names the field the rule names, or one inside or around it, once its own spellings are
    read: it names loadBalancerSourceRanges with a capital L and annotation keys unquoted; it validates
    clusterIPs after copying a lone clusterIP into them; it refuses a health check node port it cannot
    allocate with an internal error that names no field, only in its message."""
    if "HealthCheck NodePort" in theirs:
        theirs = "spec.healthCheckNodePort"
    theirs = theirs.replace("spec.LoadBalancerSourceRanges", "spec.loadBalancerSourceRanges")
    ours = {path.replace("['", "[").replace("']", "]") for path in ours}
    if theirs.startswith("spec.clusterIPs") and "spec.clusterIP" in ours:
        return True
    return any(theirs == path or theirs.startswith((path + ".", path + "[")) or path.startswith((theirs + ".",
                                                                                                theirs + "["))
               for path in ours)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_what_the_rule_fails(path, control_plane, namespace):
    services = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    refused = [field for service in services for field in created_or_refused(control_plane, namespace, service)]
    ours = {f.path for f in check_paths([str(path)]).findings if f.rule == "service-spec-invalid"}
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    assert all(related(field, ours) for field in refused), (refused, ours)


RANGE = "20000+2767"  # 20000-22767, in the flag's plus notation


@pytest.fixture(scope="module")
def custom_range_plane():
    """A second API server, started with its own --service-node-port-range."""
    plane = ControlPlane(require_tool("etcd"), require_tool("kube-apiserver"),
                         extra_args=["--service-node-port-range", RANGE])
    try:
        yield plane.start()
    finally:
        plane.stop()


@pytest.mark.parametrize("port", [19999, 20000, 22767, 22768, 30000])
def test_the_range_given_to_dgdlint_is_the_cluster_s(port, custom_range_plane, tmp_path):
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": f"frontend-{port}"},
               "spec": {"type": "NodePort", "selector": {"app": "frontend"},
                        "ports": [{"port": 8000, "nodePort": port}]}}
    path = tmp_path / "service.yaml"
    path.write_text(yaml.safe_dump(service))
    stage = SchemaStage(node_ports=parse_node_port_range(RANGE))
    ours = [f for f in check_paths([str(path)], stage).findings if f.rule == "service-spec-invalid"]
    refused = created_or_refused(custom_range_plane, "default", service)
    assert bool(refused) == bool(ours), (refused, ours)
    assert all(f.path == "spec.ports[0].nodePort" for f in ours) and all("nodePort" in r for r in refused)
