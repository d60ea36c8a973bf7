"""The model-download Job, the gate that holds workers until it has finished, and the cache claim."""

from __future__ import annotations

import re

import pytest
import yaml
from chart_support import CACHE_PATH, CHART, NIM_IMAGE, env_dict, hook_of, marker_key, render, render_error

from dgdlint.engine import check_texts

SECRET_REF = {"secretKeyRef": {"name": "ngc-api-secret", "key": "NGC_API_KEY"}}
SMALL = {"cpu": "100m", "memory": "128Mi"}


PROFILE = "4f1e0c2a9b7d"
HOOK = {"helm.sh/hook": "pre-install,pre-upgrade", "helm.sh/hook-weight": "0",
        "helm.sh/hook-delete-policy": "before-hook-creation,hook-succeeded",
        "argocd.argoproj.io/hook": "PreSync", "argocd.argoproj.io/sync-wave": "0",
        "argocd.argoproj.io/hook-delete-policy": "BeforeHookCreation,HookSucceeded"}
GATED = {"download": {"mode": "gated"}, "model": {"profile": PROFILE}}
ARGOCD = {"download": {"mode": "argocd"}}
ARGO_HOOK, ARGO_WAVE = "argocd.argoproj.io/hook", "argocd.argoproj.io/sync-wave"
SCRIPT = (CHART / "files" / "download.sh").read_text(encoding="utf-8")


def pod(rendered) -> dict:
    return rendered.job["spec"]["template"]["spec"]


def job_name(values: dict | None = None) -> str:
    return render(values).job["metadata"]["name"]


def gpu_request(container: dict) -> dict:
    return {kind: {name: q for name, q in section.items() if "gpu" in name}
            for kind, section in container.get("resources", {}).items() if any("gpu" in n for n in section)}


# --- the property that keeps the download from starving behind the workers -------------------------

DOWNLOAD_MODES = {
    "default (hook)": {},
    "hook, pinned profile": {"model": {"profile": PROFILE}},
    "gated, pinned profile": GATED,
    "hook, existing claim": {"cache": {"create": False, "name": "shared"}},
    "hook, v1beta1": {"operator": {"apiVersion": "v1beta1"}},
    "gated, v1beta1": {**GATED, "operator": {"apiVersion": "v1beta1"}},
    "argocd": ARGOCD,
    "argocd, v1beta1": {**ARGOCD, "operator": {"apiVersion": "v1beta1"}},
}


def annotations(obj: dict) -> dict:
    return obj["metadata"].get("annotations") or {}


@pytest.mark.parametrize("values", DOWNLOAD_MODES.values(), ids=DOWNLOAD_MODES.keys())
def test_every_download_mode_either_asks_for_no_gpu_or_runs_before_the_dgd_exists(values):
    rendered = render(values)
    job = rendered.job
    (download,) = job["spec"]["template"]["spec"]["containers"]
    is_hook = hook_of(job) == "pre-install,pre-upgrade"
    if annotations(job).get(ARGO_HOOK) == "Sync":
        # Argo CD runs a wave's hooks to completion before the next wave; the claim shares the Job's wave (a
        # WaitForFirstConsumer claim binds when the Job's pod is scheduled), the DGD comes a wave later.
        assert hook_of(job) == "" and hook_of(rendered.dgd) == ""
        (claim,) = rendered.of_kind("PersistentVolumeClaim")
        assert ARGO_HOOK not in annotations(claim) and hook_of(claim) == ""
        waves = [int(annotations(obj)[ARGO_WAVE]) for obj in (claim, job, rendered.dgd)]
        assert waves[0] == waves[1] < waves[2]
        # Workers wait at the gate as well, should the manifests ever be applied without Argo CD's waves.
        assert [c["name"] for c in rendered.worker["pod"]["initContainers"]] == ["wait-for-model-download"]
    elif is_hook:
        # Helm runs pre-install/pre-upgrade hooks to completion before it applies the release objects; the
        # DGD is none, so no worker holds a GPU meanwhile. (Argo CD skips this mode's claim: see the argocd
        # mode; the Job still says PreSync, so an application that has the claim keeps working.)
        assert job["metadata"]["annotations"]["argocd.argoproj.io/hook"] == "PreSync"
        assert hook_of(rendered.dgd) == "" and rendered.dgd in rendered.release_objects
        # Nothing waits at a gate, and the claim exists before the Job: an earlier hook, or an existing claim.
        assert "initContainers" not in rendered.worker["pod"]
        claims = rendered.of_kind("PersistentVolumeClaim")
        if values.get("cache", {}).get("create", True):
            (claim,) = claims
            assert int(claim["metadata"]["annotations"]["helm.sh/hook-weight"]) < \
                int(job["metadata"]["annotations"]["helm.sh/hook-weight"])
        else:
            assert claims == []
    else:
        assert gpu_request(download) == {}, "a gated Job beside waiting workers must ask for no GPU"
        assert env_dict(download["env"])["NIM_MODEL_PROFILE"] == env_dict(rendered.worker["env"])["NIM_MODEL_PROFILE"]
    texts = {f"{index}.yaml": yaml.safe_dump(obj) for index, obj in enumerate(rendered.objects)}
    findings = check_texts(texts).findings
    assert [(f.severity, f.rule, f.message) for f in findings if f.severity in ("error", "warning")] == []


def test_the_gated_mode_without_a_pinned_profile_is_refused_with_both_ways_out():
    message = render_error({"download": {"mode": "gated"}})
    assert 'download.mode "gated" needs model.profile' in message
    assert 'or use download.mode "hook" (the default; "argocd" under Argo CD)' in message


def test_the_job_is_the_only_object_besides_the_claim_and_the_test_ones_that_is_a_hook():
    rendered = render()
    assert [obj["kind"] for obj in rendered.objects].count("Job") == 1
    hooks = sorted((obj["kind"], hook_of(obj)) for obj in rendered.objects if hook_of(obj) and hook_of(obj) != "test")
    assert hooks == [("Job", "pre-install,pre-upgrade"), ("PersistentVolumeClaim", "pre-install,pre-upgrade")]


def test_the_hook_job_has_a_stable_name_and_each_run_replaces_the_previous_one():
    job = render().job
    assert job["metadata"]["name"] == "cosmos3-reasoner-download"
    assert {k: v for k, v in job["metadata"]["annotations"].items() if k in HOOK} == HOOK
    assert job_name({"image": {"tag": "2.1.1"}}) == "cosmos3-reasoner-download"


def test_job_is_bounded_never_restarts_its_pod_and_is_kept_after_it_finishes():
    job = render().job
    assert job["apiVersion"] == "batch/v1"
    assert job["metadata"]["labels"]["app.kubernetes.io/component"] == "model-download"
    assert (job["spec"]["backoffLimit"], job["spec"]["activeDeadlineSeconds"]) == (2, 7200)
    assert "ttlSecondsAfterFinished" not in job["spec"]
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"


def test_job_bounds_and_a_ttl_follow_values():
    job = render({"download": {"backoffLimit": 0, "activeDeadlineSeconds": 600, "ttlSecondsAfterFinished": 3600}}).job
    assert (job["spec"]["backoffLimit"], job["spec"]["activeDeadlineSeconds"], job["spec"]["ttlSecondsAfterFinished"]) \
        == (0, 600, 3600)


def test_the_download_pod_mounts_no_service_account_token():
    assert pod(render())["automountServiceAccountToken"] is False


def test_download_container_runs_the_script_around_the_documented_command_with_the_workers_model_env():
    rendered = render()
    (download,) = pod(rendered)["containers"]
    assert "initContainers" not in pod(rendered)
    assert download["name"] == "download"
    assert download["image"] == NIM_IMAGE
    assert download["command"] == ["/bin/bash", "-c", SCRIPT, "download"]
    assert download["args"] == ["download-to-cache"]
    identity = "nvcr.io/nim/nvidia/cosmos3:2.1.0|nano|fp8|n_gpus=1,nim_tp=1,nim_dp=1"
    marker = f"{CACHE_PATH}/.cosmos3-download/{marker_key(NIM_IMAGE, 'nano', 'fp8', 'n_gpus=1,nim_tp=1,nim_dp=1')}.done"
    assert download["env"] == [
        {"name": "NIM_CACHE_PATH", "value": CACHE_PATH},
        {"name": "NGC_API_KEY", "valueFrom": SECRET_REF},
        {"name": "NIM_MODEL_TYPE", "value": "reasoner"},
        {"name": "NIM_MODEL_VARIANT", "value": "nano"},
        {"name": "NIM_PRECISION", "value": "fp8"},
        {"name": "NIM_TAGS_SELECTOR", "value": "n_gpus=1,nim_tp=1,nim_dp=1"},
        {"name": "MODEL_DOWNLOAD_MARKER", "value": marker},
        {"name": "MODEL_DOWNLOAD_IDENTITY", "value": identity},
    ]
    assert download["resources"] == {"requests": {"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "1"},
                                     "limits": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}}
    assert download["volumeMounts"] == [{"name": "model-cache", "mountPath": CACHE_PATH}]


def test_the_script_skips_a_warm_cache_pins_a_profile_when_asked_and_writes_the_marker_last():
    lines = SCRIPT.splitlines()
    assert "set -euo pipefail" in lines
    skip = lines.index('if [ -f "$MODEL_DOWNLOAD_MARKER" ]; then')
    assert lines[skip + 2] == "  exit 0"
    assert '  "$@" --profiles "$NIM_MODEL_PROFILE"' in lines
    assert lines[-2] == 'mv -f "$MODEL_DOWNLOAD_MARKER.tmp" "$MODEL_DOWNLOAD_MARKER"'
    assert skip < lines.index('  "$@"') < len(lines) - 2


def test_a_pinned_profile_reaches_workers_and_job_and_takes_the_gpus_off_the_job():
    rendered = render({"model": {"profile": PROFILE}})
    (download,) = pod(rendered)["containers"]
    assert env_dict(download["env"])["NIM_MODEL_PROFILE"] == env_dict(rendered.worker["env"])["NIM_MODEL_PROFILE"] \
        == PROFILE
    assert gpu_request(download) == {}
    assert env_dict(download["env"])["MODEL_DOWNLOAD_IDENTITY"].endswith(f"|profile={PROFILE}")


def test_download_command_args_and_extra_env_are_values():
    (download,) = pod(render({"download": {
        "command": ["/opt/nim/bin/download-to-cache"], "args": ["--all"],
        "extraEnv": [{"name": "NGC_API_KEY", "valueFrom": {"secretKeyRef": {"name": "ngc-dl", "key": "key"}}},
                     {"name": "HTTPS_PROXY", "value": "http://proxy:3128"}],
    }}))["containers"]
    assert download["args"] == ["/opt/nim/bin/download-to-cache", "--all"]
    assert [e["name"] for e in download["env"]] == [
        "NIM_CACHE_PATH", "NGC_API_KEY", "NIM_MODEL_TYPE", "NIM_MODEL_VARIANT", "NIM_PRECISION", "NIM_TAGS_SELECTOR",
        "MODEL_DOWNLOAD_MARKER", "MODEL_DOWNLOAD_IDENTITY", "HTTPS_PROXY"]
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
        (download,) = job_pod["containers"]
        for kind in ("requests", "limits"):
            assert download["resources"][kind]["nvidia.com/gpu.shared"] == \
                worker["resources"][kind]["nvidia.com/gpu.shared"] == "2"


def test_job_mounts_the_claim_the_workers_mount():
    for values in ({}, {"cache": {"name": "team-cache"}}, {"cache": {"create": False, "name": "shared"}}, GATED):
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


# --- the gated mode -------------------------------------------------------------------------------

@pytest.mark.parametrize("change", [
    {"image": {"tag": "2.1.1"}},
    {"image": {"digest": "sha256:" + "1" * 64}},
    {"model": {"precision": "bf16"}},
    {"download": {"args": ["--all"]}},
    {"download": {"resources": {"limits": {"memory": "32Gi"}}}},
    {"worker": {"tolerations": []}},
    {"download": {"serviceAccountName": "nim-puller"}},
])
def test_a_gated_job_name_changes_whenever_its_pod_template_changes(change):
    changed = {**GATED, **change, "download": {**GATED["download"], **change.get("download", {})},
               "model": {**GATED["model"], **change.get("model", {})}}
    assert job_name(changed) != job_name(GATED)
    assert re.fullmatch(r"cosmos3-reasoner-download-[0-9a-f]{8}", job_name(changed))


@pytest.mark.parametrize("unrelated", [
    {"worker": {"replicas": 4}},
    {"frontend": {"replicas": 2}},
    {"mode": "streaming"},
    {"download": {"mode": "gated", "backoffLimit": 5}},
])
def test_a_gated_job_name_stays_when_its_pod_template_does_not_change(unrelated):
    assert job_name({**GATED, **unrelated}) == job_name(GATED)


def test_the_gated_job_is_an_ordinary_object_and_writes_the_marker_the_gate_waits_for():
    for values in (GATED, {**GATED, "model": {"variant": "super", "precision": "bf16", "profile": PROFILE},
                           "image": {"tag": "2.1.1"}}):
        rendered = render(values)
        assert hook_of(rendered.job) == "" and rendered.job in rendered.release_objects
        assert hook_of(rendered.one("PersistentVolumeClaim")) == ""
        (download,) = pod(rendered)["containers"]
        (gate,) = rendered.worker["pod"]["initContainers"]
        assert env_dict(gate["env"])["MODEL_DOWNLOAD_MARKER"] == env_dict(download["env"])["MODEL_DOWNLOAD_MARKER"]


def test_marker_key_follows_the_cache_contents_not_the_replica_count():
    def marker(values):
        (download,) = pod(render(values))["containers"]
        return env_dict(download["env"])["MODEL_DOWNLOAD_MARKER"]
    assert marker({"worker": {"replicas": 3}}) == marker({})
    assert marker({"model": {"precision": "bf16"}}) != marker({})
    assert marker({"model": {"profile": PROFILE}}) != marker({})


@pytest.mark.parametrize("api_version", ["v1alpha1", "v1beta1"])
def test_gate_holds_workers_in_init_until_the_marker_exists(api_version):
    worker = render({**GATED, "operator": {"apiVersion": api_version},
                     "download": {"mode": "gated", "gate": {"timeoutSeconds": 600}}}).worker
    (gate,) = worker["pod"]["initContainers"]
    assert gate["name"] == "wait-for-model-download"
    assert gate["image"] == NIM_IMAGE
    assert gate["command"] == ["/bin/bash", "-c", (CHART / "files" / "gate.sh").read_text(encoding="utf-8")]
    assert env_dict(gate["env"])["MODEL_DOWNLOAD_TIMEOUT_SECONDS"] == "600"
    script = gate["command"][2]
    assert 'until [ -f "$MODEL_DOWNLOAD_MARKER" ]' in script
    assert "exit 1" in script
    assert gate["resources"] == {"requests": SMALL, "limits": SMALL}
    # Its own volume name, so it never collides with the volume the operator makes for volumeMounts.
    assert gate["volumeMounts"] == [{"name": "model-cache-gate", "mountPath": CACHE_PATH, "readOnly": True}]
    assert worker["extraVolumes"] == [("model-cache-gate", "cosmos3-reasoner-model-cache")]
    # The worker's own launch command is untouched.
    assert worker["args"] == ["set -euo pipefail\nexec /opt/nim/start_server.sh\n"]


@pytest.mark.parametrize("values", [{}, {"download": {"mode": "gated", "gate": {"enabled": False}},
                                         "model": {"profile": PROFILE}},
                                    {"download": {"enabled": False}}])
def test_no_gate_in_the_hook_mode_without_a_download_or_when_switched_off(values):
    rendered = render(values)
    assert "initContainers" not in rendered.worker["pod"]
    assert rendered.worker["extraVolumes"] == []
    assert len(rendered.of_kind("Job")) == (1 if values.get("download", {}).get("enabled", True) else 0)


# --- the cache claim ------------------------------------------------------------------------------

# Helm keeps the claim on uninstall and when an upgrade's manifest no longer has it; Argo CD keeps it when
# the application is deleted (Delete=false) and does not prune it when it leaves the manifest (Prune=false).
KEEP = {"helm.sh/resource-policy": "keep", "argocd.argoproj.io/sync-options": "Prune=false,Delete=false"}


def test_created_claim_is_a_hook_before_the_job_that_helm_never_deletes_and_argo_cd_skips():
    pvc = render().one("PersistentVolumeClaim")
    assert pvc["metadata"]["name"] == "cosmos3-reasoner-model-cache"
    assert pvc["metadata"]["annotations"] == {
        **KEEP, "helm.sh/hook": "pre-install,pre-upgrade", "helm.sh/hook-weight": "-10",
        # Not Helm's default before-hook-creation, which would delete the cache on every upgrade.
        "helm.sh/hook-delete-policy": "hook-failed",
        # Argo CD would run it as a hook, and every hook delete policy of Argo CD deletes a hook some day
        # (HookFailed: at the end of any failed sync); the argocd mode is the one for Argo CD.
        "argocd.argoproj.io/hook": "Skip",
        # Helm adopts it as an ordinary object if the release later switches to the gated mode.
        "meta.helm.sh/release-name": "cosmos3-reasoner", "meta.helm.sh/release-namespace": "default"}
    assert pvc["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "Helm"
    assert pvc["spec"] == {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "200Gi"}}}


def test_in_the_gated_mode_the_claim_is_an_ordinary_object_kept_on_uninstall():
    pvc = render(GATED).one("PersistentVolumeClaim")
    assert pvc["metadata"]["annotations"] == KEEP


def test_the_claim_a_release_stops_creating_leaves_the_manifest_and_carries_what_keeps_it():
    """cache.create false naming the claim the release made: the claim leaves the manifest while the graph
    still mounts it. Helm keeps it by the policy of the previous manifest, Argo CD by Prune=false on the
    live object (its last applied annotations)."""
    before = render({**GATED, "cache": {"name": "vlm-cache"}}).one("PersistentVolumeClaim")
    after = render({**GATED, "cache": {"create": False, "name": "vlm-cache"}})
    assert after.of_kind("PersistentVolumeClaim") == []
    assert "vlm-cache" in str(after.dgd["spec"])
    options = before["metadata"]["annotations"]["argocd.argoproj.io/sync-options"].split(",")
    assert "Prune=false" in options and "Delete=false" in options


@pytest.mark.parametrize(("storage_class", "written"), [("nfs-rwx", "nfs-rwx"), ("-", ""),
                                                        ("fast.storage.example.com", "fast.storage.example.com")])
def test_claim_storage_class_is_written_only_when_set_and_a_dash_means_no_dynamic_provisioning(storage_class, written):
    pvc = render({"cache": {"storageClass": storage_class, "size": "500Gi", "name": "vlm-cache",
                            "accessMode": "ReadWriteOnce"}}).one("PersistentVolumeClaim")
    assert pvc["metadata"]["name"] == "vlm-cache"
    assert pvc["spec"] == {"accessModes": ["ReadWriteOnce"], "storageClassName": written,
                           "resources": {"requests": {"storage": "500Gi"}}}


@pytest.mark.parametrize("storage_class", ["fast\n  volumeName: pv-of-someone", "Fast", "fast class", "a/b", "-x"])
def test_a_storage_class_that_is_not_a_dns_subdomain_fails_at_the_schema(storage_class):
    message = render_error({"cache": {"storageClass": storage_class}})
    assert "/cache/storageClass" in message


@pytest.mark.parametrize(("storage_class", "written"), [("-", ""), ("nfs-static", "nfs-static")])
def test_a_claim_binds_the_pre_made_volume_cache_volume_name_names(storage_class, written, tmp_path):
    rendered = render({"cache": {"storageClass": storage_class, "volumeName": "model-cache-nfs"}})
    pvc = rendered.one("PersistentVolumeClaim")
    assert pvc["spec"] == {"accessModes": ["ReadWriteMany"], "storageClassName": written,
                           "volumeName": "model-cache-nfs", "resources": {"requests": {"storage": "200Gi"}}}
    # Beside a volume of that class, dgdlint's binding rules find nothing to say.
    from dgdlint.engine import check_texts

    volume = (f"apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: model-cache-nfs\nspec:\n"
              f"  capacity:\n    storage: 200Gi\n  accessModes: [ReadWriteMany]\n  storageClassName: \"{written}\"\n"
              "  nfs:\n    server: nfs.example.com\n    path: /exports/model-cache\n")
    import yaml

    claim = yaml.safe_dump(pvc)
    found = check_texts({"claim.yaml": claim, "volume.yaml": volume}).findings
    assert not [f for f in found if f.rule.startswith("claim-volume")], found


@pytest.mark.parametrize(("cache", "says"), [
    ({"volumeName": "model-cache-nfs"}, "set cache.storageClass to the volume's class"),  # the default class
    ({"volumeName": "model-cache-nfs", "storageClass": "-", "create": False, "name": "mine"},
     "the existing claim already names its volume"),
])
def test_a_volume_name_needs_a_class_and_a_created_claim(cache, says):
    assert says in render_error({"cache": cache})


@pytest.mark.parametrize("volume_name", ["Model-Cache", "a b", "pv\n  storageClassName: x"])
def test_a_volume_name_that_is_not_a_dns_subdomain_fails_at_the_schema(volume_name):
    assert "/cache/volumeName" in render_error({"cache": {"storageClass": "-", "volumeName": volume_name}})


def test_user_annotations_cannot_drop_the_keep_policy_of_the_claim():
    pvc = render({"annotations": {"helm.sh/resource-policy": "delete", "team": "ml"}}).one("PersistentVolumeClaim")
    assert pvc["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    assert pvc["metadata"]["annotations"]["team"] == "ml"


def test_an_existing_claim_is_mounted_everywhere_and_not_created():
    for values in ({"cache": {"create": False, "name": "shared-cache"}},
                   {**GATED, "cache": {"create": False, "name": "shared-cache"}}):
        rendered = render(values)
        assert rendered.of_kind("PersistentVolumeClaim") == []
        assert rendered.worker["cacheMounts"] == [("shared-cache", CACHE_PATH)]
        assert rendered.dgd["spec"]["pvcs"] == [{"name": "shared-cache", "create": False}]
    assert rendered.worker["extraVolumes"] == [("model-cache-gate", "shared-cache")]


def test_the_dgd_records_claim_and_download_key_so_an_upgrade_that_keeps_both_can_skip_the_job():
    rendered = render()
    (download,) = pod(rendered)["containers"]
    key = env_dict(download["env"])["MODEL_DOWNLOAD_MARKER"].rsplit("/", 1)[1].removesuffix(".done")
    record = {"cosmos3-reasoner/downloaded": f"cosmos3-reasoner-model-cache/{key}"}
    assert rendered.dgd["metadata"]["annotations"] == record
    # Another claim is another cache: its record differs, so an upgrade to it downloads again.
    moved = render({"cache": {"name": "team-cache"}}).dgd["metadata"]["annotations"]
    assert moved == {"cosmos3-reasoner/downloaded": f"team-cache/{key}"}
    # Without a cluster to look the DGD up in (helm template, Argo CD), the Job is always there.
    assert render({"download": {"skipWhenDeployed": True}}).job["metadata"]["name"] == "cosmos3-reasoner-download"
    # The gated mode keeps its Job as a release object: nothing to skip, nothing recorded.
    assert "annotations" not in render(GATED).dgd["metadata"]
