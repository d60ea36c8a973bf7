"""`helm test` hooks: a ConfigMap carrying files/smoke.py byte for byte, one Pod per mode's checks, all
test hooks that Helm deletes on success; small bounded Pods without a GPU, hardened, on the NIM image."""

from __future__ import annotations

import pytest
from chart_support import CHART, NIM_IMAGE, VALUES_DIR, preset_files, render, render_error

from dgdlint.engine import check_texts
from dgdlint.render import RenderRequest, render_chart
from dgdlint.schema import SchemaStage

SMOKE_CLIENT = CHART / "files" / "smoke.py"
DELETE_POLICY = "before-hook-creation,hook-succeeded"


def pods(rendered) -> dict[str, dict]:
    return {pod["metadata"]["name"]: pod for pod in rendered.test_hooks if pod["kind"] == "Pod"}


def container(pod: dict) -> dict:
    (only,) = pod["spec"]["containers"]
    return only


def test_regular_mode_has_one_test_pod_that_checks_health_and_models():
    rendered = render()
    assert sorted((obj["kind"], obj["metadata"]["name"]) for obj in rendered.test_hooks) == [
        ("ConfigMap", "cosmos3-reasoner-smoke-client"), ("Pod", "cosmos3-reasoner-test-api")]
    args = container(pods(rendered)["cosmos3-reasoner-test-api"])["args"]
    assert args == ["--url", "http://cosmos3-reasoner-frontend.default.svc:8000", "--timeout", "60", "--wait", "0"]


def test_streaming_mode_adds_a_pod_for_the_session_round_trip_after_the_api_pod():
    rendered = render({"mode": "streaming"})
    by_name = pods(rendered)
    assert sorted(by_name) == ["cosmos3-reasoner-test-api", "cosmos3-reasoner-test-streaming"]
    assert "--streaming" not in container(by_name["cosmos3-reasoner-test-api"])["args"]
    assert container(by_name["cosmos3-reasoner-test-streaming"])["args"][-1] == "--streaming"
    weights = {obj["metadata"]["name"]: int(obj["metadata"]["annotations"]["helm.sh/hook-weight"])
               for obj in rendered.test_hooks}
    assert weights == {"cosmos3-reasoner-smoke-client": -5, "cosmos3-reasoner-test-api": 0,
                       "cosmos3-reasoner-test-streaming": 5}


@pytest.mark.parametrize("mode", ["regular", "streaming"])
def test_every_test_object_is_a_test_hook_deleted_before_a_rerun_and_on_success(mode):
    hooks = render({"mode": mode}).test_hooks
    assert hooks
    for obj in hooks:
        annotations = obj["metadata"]["annotations"]
        assert annotations["helm.sh/hook"] == "test"
        assert annotations["helm.sh/hook-delete-policy"] == DELETE_POLICY
        assert obj["metadata"]["labels"]["app.kubernetes.io/component"] == "test"


def test_the_configmap_carries_the_smoke_client_byte_for_byte():
    configmap = render().one("ConfigMap")
    assert configmap["data"] == {"smoke.py": SMOKE_CLIENT.read_text(encoding="utf-8")}
    assert SMOKE_CLIENT.read_bytes() == configmap["data"]["smoke.py"].encode("utf-8")


def test_the_pod_runs_the_mounted_client_with_the_nim_images_python():
    pod = pods(render())["cosmos3-reasoner-test-api"]
    main = container(pod)
    assert (main["image"], main["imagePullPolicy"]) == (NIM_IMAGE, "IfNotPresent")
    assert main["command"] == ["/opt/nim/.venv/bin/python", "-I", "-B", "/opt/cosmos3-smoke/smoke.py"]
    assert {"name": "smoke-client", "mountPath": "/opt/cosmos3-smoke", "readOnly": True} in main["volumeMounts"]
    volumes = {volume["name"]: volume for volume in pod["spec"]["volumes"]}
    assert volumes["smoke-client"]["configMap"] == {"name": "cosmos3-reasoner-smoke-client", "defaultMode": 0o444}
    assert pod["spec"]["imagePullSecrets"] == [{"name": "ngc-registry-secret"}]


@pytest.mark.parametrize("mode", ["regular", "streaming"])
def test_test_pods_are_small_bounded_and_ask_for_no_gpu(mode):
    for pod in pods(render({"mode": mode})).values():
        spec = pod["spec"]
        assert spec["restartPolicy"] == "Never"
        assert spec["activeDeadlineSeconds"] == 0 + 6 * 60 + 300
        resources = container(pod)["resources"]
        assert resources["requests"] == resources["limits"] == {"cpu": "100m", "memory": "128Mi"}
        assert not {"nodeSelector", "tolerations", "affinity"} & set(spec)
        assert "gpu" not in repr(pod).lower()


def test_test_pods_are_hardened():
    pod = pods(render())["cosmos3-reasoner-test-api"]
    spec = pod["spec"]
    assert spec["securityContext"] == {"runAsNonRoot": True, "runAsUser": 1000, "runAsGroup": 1000,
                                       "seccompProfile": {"type": "RuntimeDefault"}}
    assert container(pod)["securityContext"] == {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                                 "runAsNonRoot": True, "capabilities": {"drop": ["ALL"]},
                                                 "seccompProfile": {"type": "RuntimeDefault"}}
    assert spec["automountServiceAccountToken"] is False
    assert {"name": "tmp", "emptyDir": {"sizeLimit": "16Mi"}} in spec["volumes"]


def test_test_values_reach_the_pods():
    rendered = render({"mode": "streaming", "tests": {
        "image": {"repository": "registry.example/tools/python", "tag": "3.12-slim", "pullPolicy": "Always"},
        "python": "python3", "url": "http://gateway.example:8080/cosmos", "timeoutSeconds": 30, "waitSeconds": 120,
        "resources": {"requests": {"cpu": "200m", "memory": "64Mi"}, "limits": {"cpu": "200m", "memory": "64Mi"}}}},
        release="vision", namespace="media")
    for pod in pods(rendered).values():
        main = container(pod)
        assert (main["image"], main["imagePullPolicy"]) == ("registry.example/tools/python:3.12-slim", "Always")
        assert main["command"][0] == "python3"
        assert main["args"][:6] == ["--url", "http://gateway.example:8080/cosmos", "--timeout", "30", "--wait", "120"]
        assert main["resources"]["limits"] == {"cpu": "200m", "memory": "64Mi"}
        assert pod["spec"]["activeDeadlineSeconds"] == 120 + 6 * 30 + 300
        assert pod["metadata"]["namespace"] == "media"


def test_the_default_url_is_the_operators_frontend_service_of_this_release():
    rendered = render({"fullnameOverride": "pool-a"}, namespace="vision")
    args = container(pods(rendered)["pool-a-test-api"])["args"]
    assert args[:2] == ["--url", "http://pool-a-frontend.vision.svc:8000"]


def test_disabled_tests_render_no_hook_at_all():
    rendered = render({"mode": "streaming", "tests": {"enabled": False}})
    assert rendered.test_hooks == []
    assert not [obj for obj in rendered.objects if obj["kind"] in ("ConfigMap", "Pod")]


def test_a_test_image_tag_needs_a_repository():
    assert ("tests.image.tag or tests.image.digest is set but tests.image.repository is empty: name the repository "
            "too, or clear both to reuse the NIM image") in render_error({"tests": {"image": {"tag": "3.12"}}})


def test_a_test_image_is_pinned_like_every_image():
    message = render_error({"tests": {"image": {"repository": "python", "tag": "latest"}}})
    assert 'tests.image.tag "latest" is not allowed: pin a release tag' in message


@pytest.mark.parametrize(("values", "where"), [
    ({"tests": {"timeout": 5}}, "additional properties 'timeout' not allowed"),
    ({"tests": {"image": {"name": "python"}}}, "at '/tests/image': additional properties 'name' not allowed"),
    ({"tests": {"resources": {"limits": {"nvidia.com/gpu": 1}}}}, "at '/tests/resources/limits'"),
    ({"tests": {"timeoutSeconds": 0}}, "at '/tests/timeoutSeconds'"),
    ({"tests": {"waitSeconds": -1}}, "at '/tests/waitSeconds'"),
    ({"tests": {"url": "frontend:8000"}}, "at '/tests/url'"),
])
def test_test_values_are_closed_and_typed_in_the_schema(values, where):
    assert where in render_error(values)


@pytest.fixture(scope="module")
def kubernetes_schemas() -> SchemaStage:
    return SchemaStage([])  # Kubernetes' own schemas for Pod and ConfigMap


@pytest.mark.parametrize("preset", [p.name for p in preset_files()])
def test_every_preset_renders_its_test_pods_and_they_pass_dgdlint(preset, kubernetes_schemas):
    templates = render_chart(RenderRequest(CHART, values_files=[VALUES_DIR / preset]), engine="sdk")
    hooks = {t.source: t.text for t in templates if "/templates/tests/" in t.source}
    expected = 3 if "streaming" in preset else 2
    assert len(hooks) == expected
    findings = check_texts(hooks, kubernetes_schemas).findings
    assert [(f.severity, f.rule, f.message) for f in findings if f.severity != "info"] == []
