"""NOTES.txt says what was deployed, how to reach the frontend and how to check it."""

from __future__ import annotations

from chart_support import notes, render


def test_notes_describe_a_regular_deployment_and_how_to_reach_it():
    text = notes(namespace="vision")
    job = render(namespace="vision").job["metadata"]["name"]
    for expected in (
        "Cosmos3 Reasoner (regular mode) is deployed as DynamoGraphDeployment cosmos3-reasoner in namespace vision.",
        "model           nano fp8, 1 GPU(s) per worker (n_gpus=1,nim_tp=1,nim_dp=1)",
        "workers         1 x ReasonerWorker, frontend 1 x Frontend",
        "NIM image       nvcr.io/nim/nvidia/cosmos3:2.1.0",
        "frontend image  nvcr.io/nvidia/ai-dynamo/dynamo-frontend-nightly:20260906-c70f1c7",
        "model cache     PVC cosmos3-reasoner-model-cache at /opt/nim/.cache (created by this release",
        f"download        Job {job}, a pre-install/pre-upgrade hook: it finished before the DGD was applied",
        "kubectl -n vision get dgd cosmos3-reasoner",
        "kubectl -n vision get pods -l nvidia.com/dynamo-graph-deployment-name=cosmos3-reasoner",
        "kubectl -n vision port-forward svc/cosmos3-reasoner-frontend 8000:8000",
        "curl -s localhost:8000/v1/models",
    ):
        assert expected in text, expected
    assert "/v1/streaming/config" not in text


def test_notes_of_a_streaming_deployment_show_the_endpoint_and_the_streaming_check():
    text = notes({"mode": "streaming", "model": {"variant": "super", "precision": "bf16"}, "worker": {"replicas": 2},
                  "cache": {"create": False, "name": "shared"}}, release="pool-a")
    for expected in (
        "Cosmos3 Reasoner (streaming mode) is deployed as DynamoGraphDeployment pool-a-cosmos3-reasoner",
        "model           super bf16, 2 GPU(s) per worker (n_gpus=2,nim_tp=2,nim_dp=1)",
        "workers         2 x ReasonerWorker",
        "streaming       endpoint pool-a-cosmos3-reasoner.backend.streaming, 2 session(s) per worker",
        "model cache     PVC shared at /opt/nim/.cache (existing claim)",
        "port-forward svc/pool-a-cosmos3-reasoner-frontend 8000:8000",
        "curl -s localhost:8000/v1/streaming/config",
    ):
        assert expected in text, expected
    assert "frontend image" not in text


def test_notes_say_when_no_download_runs():
    text = notes({"download": {"enabled": False}})
    assert "download        disabled: the cache must already hold the model" in text
    assert "get jobs" not in text


def test_notes_of_the_gated_mode_say_the_workers_wait_for_a_gpu_less_job():
    values = {"download": {"mode": "gated"}, "model": {"profile": "4f1e0c2a9b7d"}}
    job = render(values).job["metadata"]["name"]
    assert f"download        Job {job} (GPU-less, profile 4f1e0c2a9b7d); workers wait in init container " \
        "wait-for-model-download until it has finished" in notes(values)
