"""imagePullPolicy as the API server defaults it (SetDefaults_Container), which `dgdlint diff` compares a
container's written or unwritten policy by (diff.views.pull_policy): each image is sent in a Pod, a
server-side dry run, and the policy the server stores is the oracle."""

from __future__ import annotations

import pytest
from cluster_support import CLUSTER

from dgdlint.diff.views import pull_policy
from dgdlint.model import container_of

pytestmark = CLUSTER

DIGEST = "sha256:" + "a" * 64
IMAGES = ["busybox", "busybox:latest", "busybox:1.36", f"busybox@{DIGEST}", f"busybox:latest@{DIGEST}",
          f"busybox:1.36@{DIGEST}", "registry.example:5000/busybox", "registry.example:5000/busybox:latest",
          "registry.example:5000/team/busybox:v2", "nvcr.io/nim/nvidia/cosmos3:2.1.0"]


@pytest.mark.parametrize("image", IMAGES)
@pytest.mark.parametrize("written", [None, "Never"])
def test_the_pull_policy_is_the_one_the_api_server_gives(control_plane, namespace, image, written):
    container = {"name": "c", "image": image, **({"imagePullPolicy": written} if written else {})}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": namespace},
           "spec": {"containers": [container]}}
    stored = control_plane.request("POST", f"/api/v1/namespaces/{namespace}/pods?dryRun=All", pod)
    ours = pull_policy(container_of(None, container, ("spec", "containers", 0)))
    assert ours == stored["spec"]["containers"][0]["imagePullPolicy"]
