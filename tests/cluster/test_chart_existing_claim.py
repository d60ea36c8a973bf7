"""The model-cache claim that already exists, with the real Helm CLIs against the tier's API server: an
upgrade, or a re-install after `helm uninstall` kept the claim. A claim's storage class and access modes
never change, it never shrinks, and an unbound claim keeps its size; the API server refuses such an
update (the gated mode, where the claim is an ordinary release object Helm patches). In the hook mode the
claim is a hook Helm creates once and skips when it exists, so the same change would be dropped without a
word. The chart reads the claim (`lookup`) and fails with the claim's own value in both modes, before
anything is applied; each refusal here is checked against the server's own answer to that change.

No PersistentVolume controller runs: every claim stays Pending, as a WaitForFirstConsumer claim does until
a pod uses it. Growing a bound claim (which the server takes when the class allows expansion, and which the
chart lets through in the gated mode) needs a bound claim, and is left to a real cluster."""

from __future__ import annotations

import time

import pytest
from chart_support import CHART, VALUES_DIR
from cluster_support import CLUSTER
from controlplane import ApiError
from test_chart_install import GATED, helm, values_file

from realtools import require_tool

pytestmark = CLUSTER

RELEASE = "reasoner"
CLAIM = "reasoner-cosmos3-reasoner-model-cache"
PRESET = str(VALUES_DIR / "nano-fp8.yaml")
KEPT = {"cache": {"storageClass": "fast-a"}}  # what the first install (or the kept claim) was made with
CHANGES = [
    pytest.param({"storageClass": "fast-b"}, 'cache.storageClass "fast-b" differs from the existing claim '
                 f'{CLAIM}\'s storage class "fast-a"', id="storage-class"),
    pytest.param({"accessMode": "ReadWriteOnce"}, f"cache.accessMode ReadWriteOnce differs from the existing claim "
                 f"{CLAIM}'s access modes [ReadWriteMany]", id="access-mode"),
    pytest.param({"size": "100Gi"}, f"cache.size 100Gi is smaller than the existing claim {CLAIM}'s 200Gi",
                 id="shrink"),
    pytest.param({"size": "400Gi"}, f"cache.size 400Gi differs from the existing claim {CLAIM}'s 200Gi",
                 id="resize-unbound"),
]
SERVER_PATCH = {"storageClass": {"storageClassName": "fast-b"}, "accessMode": {"accessModes": ["ReadWriteOnce"]},
                "size": None}


def claim_path(namespace: str) -> str:
    return f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/{CLAIM}"


def server_refuses(plane, namespace: str, change: dict) -> str:
    """The API server's answer to the change as an update of the stored claim (dry run): its message."""
    (key, value), = change.items()
    spec = SERVER_PATCH[key] or {"resources": {"requests": {"storage": value}}}
    with pytest.raises(ApiError) as refused:
        plane.request("PATCH", f"{claim_path(namespace)}?dryRun=All", {"spec": spec},
                      content_type="application/merge-patch+json")
    assert refused.value.status == 422
    return str(refused.value)


def graph_version(plane, namespace: str) -> str:
    graph = plane.request("GET", f"/apis/nvidia.com/v1alpha1/namespaces/{namespace}/dynamographdeployments/"
                                 "reasoner-cosmos3-reasoner")
    return graph["metadata"]["resourceVersion"]


@pytest.mark.parametrize(("change", "says"), CHANGES)
def test_gated_mode_an_upgrade_that_changes_the_claim_fails_naming_it_where_the_server_refuses_it(
        control_plane, namespace, tmp_path, change, says):
    plane = control_plane
    first = values_file(tmp_path, {**GATED, **KEPT})
    helm(plane, "install", RELEASE, str(CHART), "-n", namespace, "-f", PRESET, "-f", first)
    before = graph_version(plane, namespace)
    refusal = server_refuses(plane, namespace, change)
    assert "spec is immutable" in refusal or "can not be less than previous value" in refusal, refusal

    changed = tmp_path / "changed.yaml"
    changed.write_text(f"cache: {{{', '.join(f'{k}: {v}' for k, v in change.items())}}}\n", encoding="utf-8")
    upgraded = helm(plane, "upgrade", RELEASE, str(CHART), "-n", namespace, "-f", PRESET, "-f", first,
                    "-f", str(changed), check=False)
    assert upgraded.returncode != 0 and says in upgraded.stderr, upgraded.stderr
    assert "spec is immutable" not in upgraded.stderr  # the chart's message, before anything was applied
    assert graph_version(plane, namespace) == before
    history = helm(plane, "history", RELEASE, "-n", namespace, "-o", "json").stdout
    assert history.count('"revision"') == 1


def test_gated_mode_an_upgrade_that_keeps_the_claim_passes(control_plane, namespace, tmp_path):
    """Other values change, the claim's do not (its size may be written another way)."""
    plane = control_plane
    first = values_file(tmp_path, {**GATED, **KEPT})
    helm(plane, "install", RELEASE, str(CHART), "-n", namespace, "-f", PRESET, "-f", first)
    helm(plane, "upgrade", RELEASE, str(CHART), "-n", namespace, "-f", str(VALUES_DIR / "super-fp8.yaml"),
         "-f", first)
    same = values_file(tmp_path, {**GATED, "cache": {**KEPT["cache"], "size": 214748364800}})
    helm(plane, "upgrade", RELEASE, str(CHART), "-n", namespace, "-f", PRESET, "-f", same)
    assert plane.request("GET", claim_path(namespace))["spec"]["storageClassName"] == "fast-a"


def kept_claim(plane, namespace: str, release: str = RELEASE) -> None:
    """The claim as `helm uninstall` leaves it in the hook mode: made by the claim hook of `release`."""
    plane.request("POST", f"/api/v1/namespaces/{namespace}/persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": CLAIM, "labels": {"app.kubernetes.io/managed-by": "Helm"},
                     "annotations": {"meta.helm.sh/release-name": release, "meta.helm.sh/release-namespace": namespace,
                                     "helm.sh/resource-policy": "keep"}},
        "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "fast-a",
                 "resources": {"requests": {"storage": "200Gi"}}}})


def dry_run_install(plane, namespace: str, tmp_path, binary: str, cache: dict):
    values = values_file(tmp_path, {"cache": {**KEPT["cache"], **cache}})
    return helm(plane, "install", RELEASE, str(CHART), "-n", namespace, "-f", PRESET, "-f", values,
                "--dry-run=server", check=False, binary=binary)


@pytest.mark.parametrize("binary", ["helm", "helm4"])
@pytest.mark.parametrize("cache", [{}, {"storageClass": ""}, {"size": 214748364800}], ids=["same", "any-class",
                                                                                          "same-size-in-bytes"])
def test_hook_mode_a_reinstall_over_the_kept_claim_uses_it_when_the_values_agree(control_plane, namespace, tmp_path,
                                                                                 binary, cache):
    require_tool(binary)
    kept_claim(control_plane, namespace)
    rendered = dry_run_install(control_plane, namespace, tmp_path, binary, cache)
    assert rendered.returncode == 0, rendered.stderr
    assert "kind: PersistentVolumeClaim" not in rendered.stdout  # found, so the claim hook is left out
    assert f"claimName: {CLAIM}" in rendered.stdout


@pytest.mark.parametrize("binary", ["helm", "helm4"])
@pytest.mark.parametrize(("change", "says"), CHANGES)
def test_hook_mode_a_change_helm_would_drop_fails_naming_the_claim(control_plane, namespace, tmp_path, binary, change,
                                                                    says):
    """Helm never updates the kept claim (a hook it skips when the claim exists): without the check, the
    new class, mode or size would silently not happen."""
    require_tool(binary)
    kept_claim(control_plane, namespace)
    server_refuses(control_plane, namespace, change)
    rendered = dry_run_install(control_plane, namespace, tmp_path, binary, change)
    assert rendered.returncode != 0 and says in rendered.stderr, rendered.stderr


def test_a_claim_another_release_made_is_not_taken_over_silently(control_plane, namespace, tmp_path):
    kept_claim(control_plane, namespace, release="other")
    rendered = dry_run_install(control_plane, namespace, tmp_path, "helm", {})
    assert rendered.returncode != 0
    assert f"the existing claim {CLAIM} belongs to release other" in rendered.stderr, rendered.stderr


def test_a_hostile_exponent_in_cache_size_is_read_at_once(control_plane, namespace, tmp_path):
    """cache.size 1e999999999 (the values schema takes any exponent) compared with the kept claim: the chart
    reads at most 10^40 of it, so Helm answers at once (it looped an exponent's count of times)."""
    require_tool("helm")
    kept_claim(control_plane, namespace)
    started = time.monotonic()
    rendered = dry_run_install(control_plane, namespace, tmp_path, "helm", {"size": "1e999999999"})
    assert rendered.returncode != 0 and f"cache.size 1e999999999 differs from the existing claim {CLAIM}'s 200Gi" \
        in rendered.stderr, rendered.stderr
    assert time.monotonic() - started < 60
