"""The model-download Job, the gate that holds workers until it has finished, and the cache claim."""

from __future__ import annotations

import re

import pytest
import yaml
from chart_support import CACHE_PATH, NIM_IMAGE, env_dict, marker_key, render

from dgdlint.engine import check_texts

SECRET_REF = {"secretKeyRef": {"name": "ngc-api-secret", "key": "NGC_API_KEY"}}
SMALL = {"cpu": "100m", "memory": "128Mi"}


def pod(rendered) -> dict:
    return rendered.job["spec"]["template"]["spec"]


def job_name(values: dict | None = None) -> str:
    return render(values).job["metadata"]["name"]


def test_the_download_job_is_the_only_job_and_no_object_but_the_helm_test_ones_is_a_hook():
    rendered = render()
    assert [obj["kind"] for obj in rendered.objects].count("Job") == 1
    for obj in rendered.objects:
        if obj in rendered.test_hooks:
            continue
        assert not [key for key in obj["metadata"].get("annotations", {}) if key.startswith("helm.sh/hook")]


def test_job_is_bounded_and_never_restarts_its_pod():
    job = render().job
    assert job["apiVersion"] == "batch/v1"
    assert re.fullmatch(r"cosmos3-reasoner-download-[0-9a-f]{8}", job["metadata"]["name"])
    assert job["metadata"]["labels"]["app.kubernetes.io/component"] == "model-download"
    assert (job["spec"]["backoffLimit"], job["spec"]["activeDeadlineSeconds"], job["spec"]["ttlSecondsAfterFinished"]) \
        == (2, 7200, 86400)
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"


def test_job_bounds_follow_values_and_a_null_ttl_keeps_the_finished_job():
    job = render({"download": {"backoffLimit": 0, "activeDeadlineSeconds": 600, "ttlSecondsAfterFinished": None}}).job
    assert (job["spec"]["backoffLimit"], job["spec"]["activeDeadlineSeconds"]) == (0, 600)
    assert "ttlSecondsAfterFinished" not in job["spec"]


def test_download_container_runs_the_documented_default_command_with_the_workers_model_env():
    rendered = render()
    (download,) = pod(rendered)["initContainers"]
    assert download["name"] == "download"
    assert download["image"] == NIM_IMAGE
    assert download["command"] == ["/bin/bash", "-lc"]
    assert download["args"] == ["set -euo pipefail\ndownload-to-cache\n"]
    assert download["env"] == [
        {"name": "NIM_CACHE_PATH", "value": CACHE_PATH},
        {"name": "NGC_API_KEY", "valueFrom": SECRET_REF},
        {"name": "NIM_MODEL_TYPE", "value": "reasoner"},
        {"name": "NIM_MODEL_VARIANT", "value": "nano"},
        {"name": "NIM_PRECISION", "value": "fp8"},
        {"name": "NIM_TAGS_SELECTOR", "value": "n_gpus=1,nim_tp=1,nim_dp=1"},
    ]
    assert download["resources"] == {"requests": {"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "1"},
                                     "limits": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}}
    assert download["volumeMounts"] == [{"name": "model-cache", "mountPath": CACHE_PATH}]


def test_download_command_args_and_extra_env_are_values():
    (download,) = pod(render({"download": {
        "command": ["/bin/sh", "-c"], "args": ["download-to-cache --profiles abc"],
        "extraEnv": [{"name": "NGC_API_KEY", "valueFrom": {"secretKeyRef": {"name": "ngc-dl", "key": "key"}}},
                     {"name": "HTTPS_PROXY", "value": "http://proxy:3128"}],
    }}))["initContainers"]
    assert download["command"] == ["/bin/sh", "-c"]
    assert download["args"] == ["download-to-cache --profiles abc"]
    assert [e["name"] for e in download["env"]] == [
        "NIM_CACHE_PATH", "NGC_API_KEY", "NIM_MODEL_TYPE", "NIM_MODEL_VARIANT", "NIM_PRECISION", "NIM_TAGS_SELECTOR",
        "HTTPS_PROXY"]
    assert download["env"][1] == {"name": "NGC_API_KEY",
                                  "valueFrom": {"secretKeyRef": {"name": "ngc-dl", "key": "key"}}}
    assert download["env"][-1] == {"name": "HTTPS_PROXY", "value": "http://proxy:3128"}


def test_job_gpu_selectors_and_pod_settings_equal_the_workers():
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "nvidia.com/gpu.product", "operator": "In", "values": ["NVIDIA-H100"]}]}]}}}
    for api_version in ("v1alpha1", "v1beta1"):
        rendered = render({"operator": {"apiVersion": api_version}, "model": {"variant": "super", "precision": "bf16"},
                           "worker": {"nodeSelector": {"pool": "h100"}, "affinity": affinity,
                                      "gpuResourceName": "nvidia.com/gpu.shared",
                                      "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "vlm",
                                                       "effect": "NoSchedule"}]}})
        job_pod, worker = pod(rendered), rendered.worker
        for key in ("nodeSelector", "tolerations", "affinity", "securityContext", "imagePullSecrets"):
            assert job_pod[key] == worker["pod"][key], key
        (download,) = job_pod["initContainers"]
        for kind in ("requests", "limits"):
            assert download["resources"][kind]["nvidia.com/gpu.shared"] == \
                worker["resources"][kind]["nvidia.com/gpu.shared"] == "2"


def test_job_mounts_the_claim_the_workers_mount():
    for values in ({}, {"cache": {"name": "team-cache"}}, {"cache": {"create": False, "name": "shared"}}):
        for api_version in ("v1alpha1", "v1beta1"):
            rendered = render({**values, "operator": {"apiVersion": api_version}})
            ((claim, path),) = rendered.worker["cacheMounts"]
            assert pod(rendered)["volumes"] == [{"name": "model-cache", "persistentVolumeClaim": {"claimName": claim}}]
            assert path == CACHE_PATH


def test_download_pod_carries_its_own_labels_annotations_and_priority_class():
    rendered = render({"download": {"podLabels": {"team": "ml"}, "podAnnotations": {"note": "x"},
                                    "priorityClassName": "model-download"}})
    template = rendered.job["spec"]["template"]
    assert template["metadata"]["labels"] == {"app.kubernetes.io/name": "cosmos3-reasoner",
                                              "app.kubernetes.io/instance": "cosmos3-reasoner",
                                              "app.kubernetes.io/component": "model-download", "team": "ml"}
    assert template["metadata"]["annotations"] == {"note": "x"}
    assert template["spec"]["priorityClassName"] == "model-download"


def test_a_service_account_with_pull_secrets_stands_in_for_image_pull_secrets_outside_the_dgd():
    values = {"imagePullSecrets": [], "download": {"serviceAccountName": "nim-puller"}, "mode": "streaming"}
    rendered = render(values)
    assert pod(rendered)["serviceAccountName"] == "nim-puller"
    assert "imagePullSecrets" not in pod(rendered)
    test_pods = [obj for obj in rendered.test_hooks if obj["kind"] == "Pod"]
    assert len(test_pods) == 2
    assert [p["spec"].get("serviceAccountName") for p in test_pods] == ["nim-puller", "nim-puller"]
    # The operator names the DGD pods' service account and discovers their pull secrets.
    for component in rendered.components.values():
        assert "serviceAccountName" not in component["pod"] and "serviceAccountName" not in str(component["podExtras"])
    texts = {f"{index}.yaml": yaml.safe_dump(obj) for index, obj in enumerate(rendered.objects)}
    findings = check_texts(texts).findings
    assert [(f.severity, f.rule, f.message) for f in findings if f.severity in ("error", "warning")] == []


def test_no_service_account_is_named_unless_asked():
    rendered = render()
    assert "serviceAccountName" not in pod(rendered)
    assert all("serviceAccountName" not in obj["spec"] for obj in rendered.test_hooks if obj["kind"] == "Pod")


@pytest.mark.parametrize("change", [
    {"image": {"tag": "2.1.1"}},
    {"image": {"digest": "sha256:" + "1" * 64}},
    {"model": {"precision": "bf16"}},
    {"download": {"args": ["download-to-cache --all"]}},
    {"download": {"resources": {"limits": {"memory": "32Gi"}}}},
    {"worker": {"tolerations": []}},
    {"download": {"serviceAccountName": "nim-puller"}},
])
def test_job_name_changes_whenever_its_pod_template_changes(change):
    assert job_name(change) != job_name()


@pytest.mark.parametrize("unrelated", [
    {"worker": {"replicas": 4}},
    {"frontend": {"replicas": 2}},
    {"mode": "streaming"},
    {"download": {"backoffLimit": 5}},
])
def test_job_name_stays_when_its_pod_template_does_not_change(unrelated):
    assert job_name(unrelated) == job_name()


def test_mark_complete_writes_the_marker_the_worker_gate_waits_for():
    for values in ({}, {"model": {"variant": "super", "precision": "bf16"}, "image": {"tag": "2.1.1"}}):
        rendered = render(values)
        variant = values.get("model", {}).get("variant", "nano")
        precision = values.get("model", {}).get("precision", "fp8")
        gpus = 2 if variant == "super" else 1
        image = "nvcr.io/nim/nvidia/cosmos3:" + values.get("image", {}).get("tag", "2.1.0")
        tags = f"n_gpus={gpus},nim_tp={gpus},nim_dp=1"
        marker = f"{CACHE_PATH}/.cosmos3-download/{marker_key(image, variant, precision, tags)}.done"
        (mark,) = pod(rendered)["containers"]
        assert mark["name"] == "mark-complete"
        assert env_dict(mark["env"]) == {"MODEL_DOWNLOAD_MARKER": marker,
                                         "MODEL_DOWNLOAD_IDENTITY": f"{image}|{variant}|{precision}|{tags}"}
        (gate,) = rendered.worker["pod"]["initContainers"]
        assert env_dict(gate["env"])["MODEL_DOWNLOAD_MARKER"] == marker


def test_mark_complete_is_small_and_writes_the_marker_atomically():
    (mark,) = pod(render())["containers"]
    assert mark["image"] == NIM_IMAGE
    assert mark["resources"] == {"requests": SMALL, "limits": SMALL}
    assert mark["volumeMounts"] == [{"name": "model-cache", "mountPath": CACHE_PATH}]
    assert mark["command"] == ["/bin/bash", "-c"]
    script = mark["args"][0]
    assert 'mv -f "$MODEL_DOWNLOAD_MARKER.tmp" "$MODEL_DOWNLOAD_MARKER"' in script
    assert "set -euo pipefail" in script


def test_marker_key_follows_the_cache_contents_not_the_replica_count():
    def marker(values):
        (gate,) = render(values).worker["pod"]["initContainers"]
        return env_dict(gate["env"])["MODEL_DOWNLOAD_MARKER"]
    assert marker({"worker": {"replicas": 3}}) == marker({})
    assert marker({"model": {"precision": "bf16"}}) != marker({})


@pytest.mark.parametrize("api_version", ["v1alpha1", "v1beta1"])
def test_gate_holds_workers_in_init_until_the_marker_exists(api_version):
    worker = render({"operator": {"apiVersion": api_version}, "download": {"gate": {"timeoutSeconds": 600}}}).worker
    (gate,) = worker["pod"]["initContainers"]
    assert gate["name"] == "wait-for-model-download"
    assert gate["image"] == NIM_IMAGE
    assert gate["command"] == ["/bin/bash", "-c"]
    assert env_dict(gate["env"])["MODEL_DOWNLOAD_TIMEOUT_SECONDS"] == "600"
    script = gate["args"][0]
    assert 'until [ -f "$MODEL_DOWNLOAD_MARKER" ]' in script
    assert "exit 1" in script
    assert gate["resources"] == {"requests": SMALL, "limits": SMALL}
    # Its own volume name, so it never collides with the volume the operator makes for volumeMounts.
    assert gate["volumeMounts"] == [{"name": "model-cache-gate", "mountPath": CACHE_PATH, "readOnly": True}]
    assert worker["extraVolumes"] == [("model-cache-gate", "cosmos3-reasoner-model-cache")]
    # The worker's own launch command is untouched.
    assert worker["args"] == ["set -euo pipefail\nexec /opt/nim/start_server.sh\n"]


@pytest.mark.parametrize("values", [{"download": {"gate": {"enabled": False}}}, {"download": {"enabled": False}}])
def test_no_gate_without_a_download_to_wait_for_or_when_switched_off(values):
    rendered = render(values)
    assert "initContainers" not in rendered.worker["pod"]
    assert rendered.worker["extraVolumes"] == []
    assert len(rendered.of_kind("Job")) == (1 if values["download"].get("enabled", True) else 0)


# --- the cache claim ------------------------------------------------------------------------------

def test_created_claim_is_kept_on_helm_uninstall_and_never_pruned_by_argo_cd():
    pvc = render().one("PersistentVolumeClaim")
    assert pvc["metadata"]["name"] == "cosmos3-reasoner-model-cache"
    assert pvc["metadata"]["annotations"] == {"helm.sh/resource-policy": "keep",
                                              "argocd.argoproj.io/sync-options": "Delete=false"}
    assert pvc["spec"] == {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "200Gi"}}}


def test_claim_storage_class_is_written_only_when_set():
    pvc = render({"cache": {"storageClass": "nfs-rwx", "size": "500Gi", "name": "vlm-cache",
                            "accessMode": "ReadWriteOnce"}}).one("PersistentVolumeClaim")
    assert pvc["metadata"]["name"] == "vlm-cache"
    assert pvc["spec"] == {"accessModes": ["ReadWriteOnce"], "storageClassName": "nfs-rwx",
                           "resources": {"requests": {"storage": "500Gi"}}}


def test_user_annotations_cannot_drop_the_keep_policy_of_the_claim():
    pvc = render({"annotations": {"helm.sh/resource-policy": "delete", "team": "ml"}}).one("PersistentVolumeClaim")
    assert pvc["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    assert pvc["metadata"]["annotations"]["team"] == "ml"


def test_an_existing_claim_is_mounted_everywhere_and_not_created():
    rendered = render({"cache": {"create": False, "name": "shared-cache"}})
    assert rendered.of_kind("PersistentVolumeClaim") == []
    assert rendered.worker["cacheMounts"] == [("shared-cache", CACHE_PATH)]
    assert rendered.worker["extraVolumes"] == [("model-cache-gate", "shared-cache")]
    assert rendered.dgd["spec"]["pvcs"] == [{"name": "shared-cache", "create": False}]
