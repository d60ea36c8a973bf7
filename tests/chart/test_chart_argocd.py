"""download.mode argocd: the download before the workers under Argo CD, which runs Helm's hooks as its own
and deletes hooks by policy, so the cache claim must never be one there."""

from __future__ import annotations

import pytest
import yaml
from chart_support import hook_of, notes, render

from dgdlint.engine import check_texts

ARGOCD = {"download": {"mode": "argocd"}}
ARGO_HOOK, ARGO_POLICY, ARGO_WAVE = ("argocd.argoproj.io/hook", "argocd.argoproj.io/hook-delete-policy",
                                     "argocd.argoproj.io/sync-wave")
KEEP = {"helm.sh/resource-policy": "keep", "argocd.argoproj.io/sync-options": "Prune=false,Delete=false"}


def annotations(obj: dict) -> dict:
    return obj["metadata"].get("annotations") or {}


def test_the_job_is_an_argo_cd_sync_hook_replaced_by_each_sync_and_kept_when_it_fails():
    job = render(ARGOCD).job
    assert job["metadata"]["name"] == "cosmos3-reasoner-download"
    assert annotations(job) == {ARGO_HOOK: "Sync", ARGO_POLICY: "BeforeHookCreation,HookSucceeded", ARGO_WAVE: "0"}
    # Not a Helm hook: Argo CD would add Helm's delete policies to its own.
    assert hook_of(job) == ""


def test_the_claim_is_an_ordinary_object_in_the_jobs_wave_that_argo_cd_never_deletes():
    claim = render(ARGOCD).one("PersistentVolumeClaim")
    assert annotations(claim) == {**KEEP, ARGO_WAVE: "0"}


def test_the_graph_comes_a_wave_after_the_download_and_records_no_helm_download():
    dgd = render(ARGOCD).dgd
    assert annotations(dgd) == {ARGO_WAVE: "1"}


FEATURES = {"worker": {"podDisruptionBudget": {"enabled": True}}, "frontend": {"networkPolicy": {"enabled": True}},
            "ingress": {"enabled": True, "host": "reasoner.example.com", "className": "nginx",
                        "annotations": {"team": "video"}},
            "metrics": {"podMonitor": {"enabled": True}}}


@pytest.mark.parametrize("api_version", ["v1alpha1", "v1beta1"])
def test_what_is_about_the_graphs_pods_and_services_comes_with_it_in_wave_1(api_version):
    """Argo CD waits for a wave's objects to be healthy before the next one: an Ingress whose backend is the
    operator's Service (made from the DGD) would hold wave 0 forever behind a controller that waits for the
    backend, and a budget or monitor of pods that do not exist yet has nothing to report."""
    rendered = render({**ARGOCD, **FEATURES, "operator": {"apiVersion": api_version}})
    waves = {(obj["kind"], obj["metadata"]["name"]): annotations(obj).get(ARGO_WAVE)
             for obj in rendered.objects if hook_of(obj) != "test"}
    later = {key for key, wave in waves.items() if wave == "1"}
    assert {kind for kind, _name in later} == ({"DynamoGraphDeployment", "PodDisruptionBudget", "NetworkPolicy",
                                                "PodMonitor"} | ({"Ingress"} if api_version == "v1beta1" else set()))
    assert {kind for key, wave in waves.items() if wave == "0" for kind in key[:1]} == {"PersistentVolumeClaim", "Job"}
    if api_version == "v1beta1":
        (ingress,) = rendered.of_kind("Ingress")
        assert annotations(ingress)["team"] == "video"


@pytest.mark.parametrize("values", [{}, {"download": {"mode": "gated"}, "model": {"profile": "4f1e0c2a9b7d"}},
                                    {"download": {"mode": "argocd", "enabled": False}}])
def test_other_modes_and_no_download_put_nothing_in_a_later_wave(values):
    rendered = render({**values, **FEATURES, "operator": {"apiVersion": "v1beta1"}})
    assert [obj["kind"] for obj in rendered.objects if annotations(obj).get(ARGO_WAVE, "0") != "0"] == []


def test_without_a_pinned_profile_the_job_takes_the_workers_gpus_to_pick_it():
    rendered = render(ARGOCD)
    (container,) = rendered.job["spec"]["template"]["spec"]["containers"]
    gpus = container["resources"]["limits"]["nvidia.com/gpu"]
    assert gpus == rendered.worker["resources"]["limits"]["nvidia.com/gpu"]


def test_workers_wait_at_the_gate_unless_it_is_switched_off():
    assert [c["name"] for c in render(ARGOCD).worker["pod"]["initContainers"]] == ["wait-for-model-download"]
    gateless = render({"download": {"mode": "argocd", "gate": {"enabled": False}}})
    assert "initContainers" not in gateless.worker["pod"]


def test_notes_name_the_sync_hook_and_the_gate():
    text = notes(ARGOCD)
    assert ("download        Job cosmos3-reasoner-download, an Argo CD Sync hook in wave 0 (the DGD is in wave 1); "
            "workers wait in init container wait-for-model-download until it has finished") in text


def test_the_rendered_set_passes_dgdlint():
    rendered = render({**ARGOCD, "operator": {"apiVersion": "v1beta1"}})
    texts = {f"{index}.yaml": yaml.safe_dump(obj) for index, obj in enumerate(rendered.objects)}
    findings = check_texts(texts).findings
    assert [(f.severity, f.rule, f.message) for f in findings if f.severity in ("error", "warning")] == []

