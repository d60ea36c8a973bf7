"""The ready presets in values/: one file per choice a user makes, each rendering what its name says."""

from __future__ import annotations

import re

import pytest
import yaml
from chart_support import VALUES_DIR, env_dict, preset_files, render, support_matrix

PRESETS = [path.name for path in preset_files()]
VARIANT_PRESET = re.compile(
    r"^(?P<variant>nano|super|edge)-(?P<precision>bf16|fp8|nvfp4)(?P<streaming>-streaming)?\.yaml$")


def test_the_expected_presets_exist():
    expected = {f"{variant}-{precision}{suffix}.yaml"
                for variant, precisions in (("nano", ["bf16", "fp8", "nvfp4"]), ("super", ["bf16", "fp8", "nvfp4"]),
                                            ("edge", ["bf16", "fp8"]))
                for precision in precisions for suffix in ("", "-streaming")}
    expected |= {"reference-2.1.0.yaml", "nano-fp8-existing-cache.yaml", "nano-fp8-v1beta1.yaml"}
    assert set(PRESETS) == expected


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_renders_a_dgd_and_a_download_job(preset):
    rendered = render(files=(VALUES_DIR / preset,))
    assert rendered.dgd["metadata"]["name"] == "cosmos3-reasoner"
    assert rendered.job["kind"] == "Job"


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_starts_with_a_one_line_description(preset):
    lines = (VALUES_DIR / preset).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# ") and len(lines[0]) > 20
    assert not lines[1].startswith("#"), "the description is one line"


@pytest.mark.parametrize("preset", PRESETS)
def test_no_preset_leaves_a_placeholder_in_itself_or_its_output(preset):
    text = (VALUES_DIR / preset).read_text(encoding="utf-8")
    assert not re.search(r"<[^<>\n]+>", text)
    rendered = render(files=(VALUES_DIR / preset,))
    assert not re.search(r"<[A-Za-z][^<>\n]*>", yaml.safe_dump(list(rendered.objects)))


@pytest.mark.parametrize("preset", [p for p in PRESETS if VARIANT_PRESET.match(p)])
def test_variant_presets_render_what_their_name_says(preset):
    match = VARIANT_PRESET.match(preset)
    variant, precision = match["variant"], match["precision"]
    gpus = support_matrix()["variants"][variant]["precisions"][precision]["gpus"][0]
    rendered = render(files=(VALUES_DIR / preset,))
    worker = env_dict(rendered.worker["env"])
    assert worker["NIM_MODEL_VARIANT"] == variant
    assert worker["NIM_PRECISION"] == precision
    assert worker["NIM_ENABLE_STREAMING"] == ("1" if match["streaming"] else "0")
    assert worker["NIM_TAGS_SELECTOR"] == f"n_gpus={gpus},nim_tp={gpus},nim_dp=1"
    assert rendered.worker["resources"]["limits"]["nvidia.com/gpu"] == str(gpus)
    assert rendered.dgd["apiVersion"] == "nvidia.com/v1alpha1"


def test_super_bf16_presets_run_tensor_parallel_on_two_gpus():
    for preset in ("super-bf16.yaml", "super-bf16-streaming.yaml"):
        worker = render(files=(VALUES_DIR / preset,)).worker
        assert env_dict(worker["env"])["NIM_TAGS_SELECTOR"] == "n_gpus=2,nim_tp=2,nim_dp=1"
        assert worker["resources"]["requests"]["nvidia.com/gpu"] == "2"


def test_streaming_presets_carry_stream_in_their_name_and_only_they_stream():
    for preset in PRESETS:
        streaming = render(files=(VALUES_DIR / preset,)).frontend["command"][-1] == "streaming.dynamo.frontend"
        assert streaming == ("stream" in preset), preset


def test_reference_preset_is_two_nano_fp8_workers_on_v1alpha1_with_the_reference_claim():
    rendered = render(files=(VALUES_DIR / "reference-2.1.0.yaml",))
    assert rendered.dgd["apiVersion"] == "nvidia.com/v1alpha1"
    assert rendered.worker["replicas"] == 2
    assert env_dict(rendered.worker["env"])["NIM_PRECISION"] == "fp8"
    assert rendered.worker["cacheMounts"] == [("nim-model-cache", "/opt/nim/.cache")]
    assert rendered.one("PersistentVolumeClaim")["metadata"]["name"] == "nim-model-cache"


def test_existing_cache_preset_creates_no_claim_and_mounts_the_named_one():
    rendered = render(files=(VALUES_DIR / "nano-fp8-existing-cache.yaml",))
    assert rendered.of_kind("PersistentVolumeClaim") == []
    assert rendered.worker["cacheMounts"] == [("nim-model-cache", "/opt/nim/.cache")]
    volumes = rendered.job["spec"]["template"]["spec"]["volumes"]
    assert volumes == [{"name": "model-cache", "persistentVolumeClaim": {"claimName": "nim-model-cache"}}]


def test_v1beta1_preset_writes_spec_components():
    dgd = render(files=(VALUES_DIR / "nano-fp8-v1beta1.yaml",)).dgd
    assert dgd["apiVersion"] == "nvidia.com/v1beta1"
    assert [c["name"] for c in dgd["spec"]["components"]] == ["Frontend", "ReasonerWorker"]
    assert "services" not in dgd["spec"]
