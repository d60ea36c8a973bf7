"""Pod hardening (issue 7, chart part): every pod and container the chart writes meets the Pod Security
Standard "restricted", runs as UID/GID 1000, and has a read-only root file system exactly where that is
known to work; the exceptions are values a user can relax, and the chart README documents each one."""

from __future__ import annotations

import pytest
from chart_support import CHART, render, render_error

# Both download modes: the gated one adds the workers' gate container.
GATED = {"download": {"mode": "gated"}, "model": {"profile": "4f1e0c2a9b7d"}}

RESTRICTED_VOLUME_KINDS = {"configMap", "emptyDir", "persistentVolumeClaim", "secret", "projected", "downwardAPI",
                           "csi", "ephemeral"}
HARDENED = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "runAsNonRoot": True,
            "seccompProfile": {"type": "RuntimeDefault"}}
# Container -> readOnlyRootFilesystem: true only where nothing but mounted volumes is written.
READ_ONLY_ROOT = {
    "Frontend/main": False,
    "ReasonerWorker/main": False,
    "ReasonerWorker/wait-for-model-download": True,
    "Job/download": False,
    "test-api/smoke": True,
    "test-streaming/smoke": True,
}


def pods(rendered) -> dict[str, tuple[dict, dict[str, dict], list[dict]]]:
    """Every pod the release writes: name -> (pod securityContext, {container: securityContext}, volumes)."""
    found = {}
    for name, component in rendered.components.items():
        containers = {"main": component["securityContext"] or {}}
        for init in component["pod"].get("initContainers", []):
            containers[init["name"]] = init.get("securityContext", {})
        # Volumes of the DGD's pods are claims and the operator's shared memory: nothing to check here.
        found[name] = (component["pod"].get("securityContext", {}), containers, [])
    job = rendered.job["spec"]["template"]["spec"]
    found["Job"] = (job.get("securityContext", {}),
                    {c["name"]: c.get("securityContext", {}) for c in job["containers"]},
                    job["volumes"])
    for pod in rendered.test_hooks:
        if pod["kind"] == "Pod":
            short = pod["metadata"]["name"].removeprefix("cosmos3-reasoner-")
            spec = pod["spec"]
            found[short] = (spec.get("securityContext", {}),
                            {c["name"]: c.get("securityContext", {}) for c in spec["containers"]}, spec["volumes"])
    return found


def restricted_violations(pod_context: dict, containers: dict[str, dict], volumes: list[dict]) -> list[str]:
    """What the Pod Security Standard "restricted" (Kubernetes 1.28+) would refuse in this pod."""
    problems = []
    for name, context in containers.items():
        if context.get("privileged"):
            problems.append(f"{name}: privileged")
        if context.get("allowPrivilegeEscalation") is not False:
            problems.append(f"{name}: allowPrivilegeEscalation is not false")
        capabilities = context.get("capabilities", {})
        if "ALL" not in capabilities.get("drop", []):
            problems.append(f"{name}: capabilities do not drop ALL")
        if set(capabilities.get("add", [])) - {"NET_BIND_SERVICE"}:
            problems.append(f"{name}: adds {capabilities['add']}")
        if not (context.get("runAsNonRoot") or pod_context.get("runAsNonRoot")):
            problems.append(f"{name}: runAsNonRoot unset")
        if 0 in (context.get("runAsUser"), pod_context.get("runAsUser")):
            problems.append(f"{name}: runs as UID 0")
        seccomp = (context.get("seccompProfile") or pod_context.get("seccompProfile") or {}).get("type")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            problems.append(f"{name}: seccomp profile {seccomp}")
    for volume in volumes:
        kinds = set(volume) - {"name"}
        if not kinds <= RESTRICTED_VOLUME_KINDS:
            problems.append(f"volume kind {kinds}")
    return problems


@pytest.mark.parametrize("api_version", ["v1alpha1", "v1beta1"])
@pytest.mark.parametrize("mode", ["regular", "streaming"])
def test_every_pod_and_container_meets_the_restricted_pod_security_standard(api_version, mode):
    found = pods(render({**GATED, "mode": mode, "operator": {"apiVersion": api_version}}))
    expected_pods = {"Frontend", "ReasonerWorker", "Job", "test-api"} | ({"test-streaming"} if mode == "streaming"
                                                                         else set())
    assert set(found) == expected_pods
    for name, (pod_context, containers, volumes) in found.items():
        assert restricted_violations(pod_context, containers, volumes) == [], name


@pytest.mark.parametrize("api_version", ["v1alpha1", "v1beta1"])
def test_every_pod_runs_as_uid_and_gid_1000_with_the_runtime_seccomp_filter(api_version):
    found = pods(render({**GATED, "mode": "streaming", "operator": {"apiVersion": api_version}}))
    for name, (pod_context, _, _) in found.items():
        assert (pod_context["runAsUser"], pod_context["runAsGroup"]) == (1000, 1000), name
        assert pod_context["runAsNonRoot"] is True, name
        assert pod_context["seccompProfile"] == {"type": "RuntimeDefault"}, name


@pytest.mark.parametrize("api_version", ["v1alpha1", "v1beta1"])
def test_every_container_is_hardened_and_read_only_exactly_where_known_to_work(api_version):
    found = pods(render({**GATED, "mode": "streaming", "operator": {"apiVersion": api_version}}))
    contexts = {f"{pod}/{name}": context for pod, (_, containers, _) in found.items()
                for name, context in containers.items()}
    assert set(contexts) == set(READ_ONLY_ROOT)
    for name, context in contexts.items():
        assert context == {**HARDENED, "readOnlyRootFilesystem": READ_ONLY_ROOT[name]}, name


def test_the_job_pod_and_the_worker_pod_share_one_security_context():
    rendered = render()
    assert rendered.job["spec"]["template"]["spec"]["securityContext"] == rendered.worker["pod"]["securityContext"] == {
        "fsGroup": 1000, "fsGroupChangePolicy": "OnRootMismatch", "runAsUser": 1000, "runAsGroup": 1000,
        "runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}


def test_each_hardening_setting_is_a_value_a_user_can_relax():
    rendered = render({"mode": "streaming", "model": GATED["model"],
                       "frontend": {"securityContext": {"readOnlyRootFilesystem": True}},
                       "worker": {"securityContext": {"capabilities": {"add": ["IPC_LOCK"]}},
                                  "podSecurityContext": {"runAsNonRoot": False}},
                       "download": {"mode": "gated", "securityContext": {"readOnlyRootFilesystem": True},
                                    "helperSecurityContext": {"seccompProfile": {"type": "Unconfined"}}},
                       "tests": {"podSecurityContext": {"runAsUser": 2000},
                                 "securityContext": {"allowPrivilegeEscalation": True}}})
    found = pods(rendered)
    assert found["Frontend"][1]["main"]["readOnlyRootFilesystem"] is True
    assert found["ReasonerWorker"][1]["main"]["capabilities"] == {"drop": ["ALL"], "add": ["IPC_LOCK"]}
    assert found["ReasonerWorker"][0]["runAsNonRoot"] is False
    assert found["Job"][0]["runAsNonRoot"] is False
    assert found["Job"][1]["download"]["readOnlyRootFilesystem"] is True
    assert found["ReasonerWorker"][1]["wait-for-model-download"]["seccompProfile"] == {"type": "Unconfined"}
    assert found["test-api"][0]["runAsUser"] == found["test-streaming"][0]["runAsUser"] == 2000
    assert found["test-api"][1]["smoke"]["allowPrivilegeEscalation"] is True


def test_an_emptied_security_context_renders_no_key_at_all():
    rendered = render({"worker": {"securityContext": None}, "frontend": {"securityContext": None}})
    assert rendered.worker["securityContext"] is None
    assert rendered.frontend["securityContext"] is None
    assert rendered.worker["mainContainerExtras"] == rendered.frontend["mainContainerExtras"] == []


@pytest.mark.parametrize(("values", "where"), [
    ({"worker": {"securityContext": {"allowPrivilegeEscalaton": False}}},
     "at '/worker/securityContext': additional properties 'allowPrivilegeEscalaton' not allowed"),
    ({"frontend": {"securityContext": {"capabilities": {"remove": ["ALL"]}}}},
     "at '/frontend/securityContext/capabilities': additional properties 'remove' not allowed"),
    ({"download": {"helperSecurityContext": {"seccompProfile": {"type": "Default"}}}},
     "at '/download/helperSecurityContext/seccompProfile/type'"),
    ({"tests": {"podSecurityContext": {"runAsUser": "1000"}}}, "at '/tests/podSecurityContext/runAsUser'"),
])
def test_security_context_values_are_closed_and_typed(values, where):
    assert where in render_error(values)


def test_the_chart_readme_documents_each_exception():
    readme = (CHART / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Pod hardening", 1)[1].split("\n## ", 1)[0]
    for container in ("wait-for-model-download", "smoke", "frontend `main`", "worker `main`",
                      "`download`"):
        assert container in section, container
    assert section.count("**no** (exception)") == 3
    for value in ("frontend.securityContext", "worker.securityContext", "download.securityContext",
                  "download.helperSecurityContext", "tests.securityContext", "tests.podSecurityContext"):
        assert value in section, value
