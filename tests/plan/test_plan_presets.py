"""`dgdlint plan` on the chart's presets: per component and Job what it asks for, and the totals over every
pod. Totals count every replica of every DGD component plus every Job pod that runs at once: the peak,
since the chart's workers hold their GPUs while their gate waits for the download Job; the totals without
the Jobs are the steady state."""

from __future__ import annotations

import re

import pytest

CHART = ("--chart", "charts/cosmos3-reasoner")
GI = 2**30


def preset(name: str) -> tuple[str, ...]:
    return (*CHART, "-f", f"values/{name}.yaml")


def test_reference_2_1_0_text_lists_each_component_the_job_and_the_totals(run_plan):
    code, out = run_plan(*preset("reference-2.1.0"))
    assert code == 0
    assert out.startswith("DynamoGraphDeployment cosmos3-reasoner (namespace default, nvidia.com/v1alpha1)\n"
                          "  Frontend (frontend): 1 replica\n"
                          "    GPUs           none\n"
                          "    CPU            4 (limit 8)\n"
                          "    memory         8Gi (limit 16Gi)\n"
                          "    shared memory  8Gi (operator default)\n")
    assert ("  ReasonerWorker (decode): 2 replicas\n"
            "    GPUs           1 x nvidia.com/gpu per pod, any product\n"
            "    CPU            16 (limit 16)\n"
            "    memory         96Gi (limit 96Gi)\n"
            "    shared memory  64Gi\n"
            "    images         nvcr.io/nim/nvidia/cosmos3:2.1.0\n"
            "    claims         nim-model-cache (200Gi) at /opt/nim/.cache\n") in out
    # The Job pod: its download init container (2 CPU, 8Gi, 1 GPU) outweighs the marker container.
    job = re.search(r"cosmos3-reasoner-download\b", out).group(0)  # the hook Job keeps one name
    assert (f"Job {job} (namespace default): 1 pod at once\n"
            "    GPUs           1 x nvidia.com/gpu per pod, any product\n"
            "    CPU            2 (limit 4)\n"
            "    memory         8Gi (limit 16Gi)\n") in out
    assert ("Claim nim-model-cache (namespace default, PersistentVolumeClaim): 200Gi, ReadWriteMany, "
            "the cluster's default storage class\n") in out
    assert ("Totals, every pod with the Jobs: 3 GPUs (3 x nvidia.com/gpu), CPU 38 (limit 44), "
            "memory 208Gi (limit 224Gi)\n"
            # the download hook (1 GPU, 2 CPU, 8Gi) finishes before the rest (2 GPUs, 36 CPU, 200Gi) exists
            "First install, hooks run first:  2 GPUs (2 x nvidia.com/gpu), CPU 36 (limit 40), "
            "memory 200Gi (limit 208Gi)\n"
            "Once the Jobs have finished:     2 GPUs (2 x nvidia.com/gpu), CPU 36 (limit 40), "
            "memory 200Gi (limit 208Gi)\n") in out
    assert out.endswith("GPU fit: nothing to check: no NIM worker or download Job names its GPU product "
                        "(nvidia.com/gpu.product node selector or required node affinity)\n"
                        "0 errors, 0 warnings, 0 info\n")


def test_reference_2_1_0_json_totals_count_two_workers_and_the_job(plan_json):
    code, plan = plan_json(*preset("reference-2.1.0"))
    assert code == 0
    assert plan["totals"] == {"gpus": 3, "gpus_by_resource": {"nvidia.com/gpu": 3}, "cpu": 38.0,
                              "memory": 208 * GI, "limits": {"cpu": 44.0, "memory": 224 * GI}}
    assert plan["totals_without_jobs"] == {"gpus": 2, "gpus_by_resource": {"nvidia.com/gpu": 2}, "cpu": 36.0,
                                           "memory": 200 * GI, "limits": {"cpu": 40.0, "memory": 208 * GI}}
    [graph] = plan["graphs"]
    assert (graph["name"], graph["api_version"]) == ("cosmos3-reasoner", "nvidia.com/v1alpha1")
    frontend, worker = graph["components"]
    assert frontend["gpus"] == [] and frontend["pods"] == 1
    assert worker == {
        "name": "ReasonerWorker", "type": "decode", "pods": 2, "pods_note": "2 replicas",
        "gpus": [{"resource": "nvidia.com/gpu", "per_pod": 1}], "gpu_products": None,
        "cpu": {"request": 16.0, "limit": 16.0}, "memory": {"request": 96 * GI, "limit": 96 * GI},
        "shared_memory": "64Gi", "images": ["nvcr.io/nim/nvidia/cosmos3:2.1.0"], "streaming_endpoint": None,
        "claims": [{"name": "nim-model-cache", "mount_paths": ["/opt/nim/.cache"], "size": "200Gi",
                    "size_bytes": 200 * GI}],
        "not_quantities": [],
    }
    [job] = plan["workloads"]
    assert (job["kind"], job["pods"], job["gpus"]) == ("Job", 1, [{"resource": "nvidia.com/gpu", "per_pod": 1}])
    assert plan["claims"] == [{"name": "nim-model-cache", "namespace": "default", "size": "200Gi",
                               "size_bytes": 200 * GI, "access_modes": ["ReadWriteMany"], "storage_class": None,
                               "defined_by": "PersistentVolumeClaim"}]
    assert plan["findings"] == [] and plan["gpu_fit_targets"] == 0


@pytest.mark.parametrize(("name", "gpus", "cpu", "memory", "steady_gpus"), [
    # worker 1 x (16 CPU, 96Gi, N GPUs) + frontend (4, 8Gi) + Job (2, 8Gi, N GPUs)
    ("nano-fp8", 2, 22.0, 112, 1),
    ("nano-fp8-v1beta1", 2, 22.0, 112, 1),
    ("edge-fp8-streaming", 2, 22.0, 112, 1),
    ("super-bf16", 4, 22.0, 112, 2),  # TP2: two GPUs per worker, and the Job sees the same two
    ("super-fp8", 2, 22.0, 112, 1),
])
def test_preset_totals(plan_json, name, gpus, cpu, memory, steady_gpus):
    code, plan = plan_json(*preset(name))
    assert code == 0
    assert (plan["totals"]["gpus"], plan["totals"]["cpu"], plan["totals"]["memory"]) == (gpus, cpu, memory * GI)
    assert plan["totals_without_jobs"]["gpus"] == steady_gpus
    # every preset downloads in a pre-install hook whose GPUs equal a worker's: a first install needs no more
    # than the workers and frontend
    assert plan["totals_first_install"] == plan["totals_without_jobs"]


def test_under_argo_cd_the_download_wave_finishes_before_the_graphs_wave(plan_json):
    """download.mode argocd: the Job (the workers' two GPUs, to pick their profile) is wave 0's Sync hook, the
    graph wave 1: a first install needs no more than the workers and frontend."""
    code, plan = plan_json(*preset("super-bf16"), "--set", "download.mode=argocd")
    assert code == 0
    assert (plan["totals"]["gpus"], plan["totals_without_jobs"]["gpus"]) == (4, 2)
    assert plan["totals_first_install"] == plan["totals_without_jobs"]
    assert plan["first_install_order"] == "argo-cd"


def test_super_bf16_text_shows_two_gpus_per_worker_pod(run_plan):
    _code, out = run_plan(*preset("super-bf16"))
    assert "  ReasonerWorker (decode): 1 replica\n    GPUs           2 x nvidia.com/gpu per pod, any product\n" in out
    assert "Totals, every pod with the Jobs: 4 GPUs (4 x nvidia.com/gpu), CPU 22 (limit 28)" in out


def test_streaming_preset_shows_the_endpoint_on_frontend_and_workers(run_plan, plan_json):
    _code, out = run_plan(*preset("edge-fp8-streaming"))
    assert out.count("    streaming      cosmos3-reasoner.backend.streaming\n") == 2
    _code, plan = plan_json(*preset("edge-fp8-streaming"))
    frontend, worker = plan["graphs"][0]["components"]
    assert frontend["images"] == ["nvcr.io/nim/nvidia/cosmos3:2.1.0"]  # the adapter runs from the NIM image
    assert frontend["streaming_endpoint"] == worker["streaming_endpoint"] == "cosmos3-reasoner.backend.streaming"


def test_v1beta1_preset_reads_the_same_as_v1alpha1(plan_json):
    _code, alpha = plan_json(*preset("nano-fp8"))
    _code, beta = plan_json(*preset("nano-fp8-v1beta1"))
    assert beta["graphs"][0]["api_version"] == "nvidia.com/v1beta1"
    assert alpha["totals"] == beta["totals"]
    strip = ("images",)
    for a, b in zip(alpha["graphs"][0]["components"], beta["graphs"][0]["components"], strict=True):
        assert {k: v for k, v in a.items() if k not in strip} == {k: v for k, v in b.items() if k not in strip}


def test_an_existing_cache_claim_outside_the_manifests_has_no_size(run_plan, plan_json):
    _code, out = run_plan(*preset("nano-fp8-existing-cache"))
    assert "claims         nim-model-cache (size unknown: not in these manifests) at /opt/nim/.cache" in out
    _code, plan = plan_json(*preset("nano-fp8-existing-cache"))
    assert plan["claims"] == []
    assert plan["graphs"][0]["components"][1]["claims"][0]["size"] is None


def test_a_gpu_product_set_through_the_chart_is_checked_beside_the_totals(run_plan):
    code, out = run_plan(*preset("nano-fp8"), "--set-string",
                         "worker.nodeSelector.nvidia\\.com/gpu\\.product=NVIDIA-A100-SXM4-80GB")
    assert code == 1
    assert "GPUs           1 x nvidia.com/gpu per pod, NVIDIA-A100-SXM4-80GB\n" in out
    fit = out.split("GPU fit: ", 1)[1]
    assert fit.startswith("checked the GPU products of 2 NIM workers and download Jobs against the product table")
    assert fit.count("error gpu-compute-capability") == 2  # the worker and the download Job
    assert "runs fp8, which needs compute capability 8.9 or newer, but targets NVIDIA-A100-SXM4-80GB" in fit
    assert fit.endswith("2 errors, 0 warnings, 0 info\n")
    code, out = run_plan(*preset("nano-fp8"), "--set-string",
                         "worker.nodeSelector.nvidia\\.com/gpu\\.product=NVIDIA-L4")
    assert code == 0
    assert out.endswith("0 errors, 0 warnings, 0 info\n")
