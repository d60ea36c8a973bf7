"""files/support-matrix.yaml drives the chart: every listed (variant, precision, GPU count) renders
with matching env and GPU requests in workers and Job, and everything unlisted fails."""

from __future__ import annotations

import pytest
from chart_support import env_dict, render, render_error, support_matrix

MATRIX = support_matrix()
ALL_PRECISIONS = sorted(MATRIX["precisions"])
LISTED = [
    (variant, precision, gpus, index == 0)
    for variant, entry in MATRIX["variants"].items()
    for precision, spec in entry["precisions"].items()
    for index, gpus in enumerate(spec["gpus"])
]
UNLISTED_PRECISIONS = [
    (variant, precision)
    for variant, entry in MATRIX["variants"].items()
    for precision in ALL_PRECISIONS if precision not in entry["precisions"]
]
UNLISTED_GPUS = [
    (variant, precision, gpus)
    for variant, entry in MATRIX["variants"].items()
    for precision, spec in entry["precisions"].items()
    for gpus in range(1, 9) if gpus not in spec["gpus"]
]


def _job_download_container(rendered) -> dict:
    (container,) = rendered.job["spec"]["template"]["spec"]["containers"]
    return container


@pytest.mark.parametrize(("variant", "precision", "gpus", "is_default"), LISTED,
                         ids=[f"{v}-{p}-{g}gpu" for v, p, g, _ in LISTED])
@pytest.mark.parametrize("api_version", ["v1alpha1", "v1beta1"])
def test_every_matrix_entry_renders_matching_env_and_gpus_in_workers_and_job(variant, precision, gpus, is_default,
                                                                              api_version):
    values = {"operator": {"apiVersion": api_version}, "model": {"variant": variant, "precision": precision}}
    if not is_default:
        values["model"]["gpus"] = gpus
    rendered = render(values)
    tags = f"n_gpus={gpus},nim_tp={gpus},nim_dp=1"
    worker_env = env_dict(rendered.worker["env"])
    download = _job_download_container(rendered)
    job_env = env_dict(download["env"])
    for env in (worker_env, job_env):
        assert env["NIM_MODEL_VARIANT"] == variant
        assert env["NIM_PRECISION"] == precision
        assert env["NIM_TAGS_SELECTOR"] == tags
    for resources in (rendered.worker["resources"], download["resources"]):
        assert resources["requests"]["nvidia.com/gpu"] == resources["limits"]["nvidia.com/gpu"] == str(gpus)


@pytest.mark.parametrize(("variant", "precision"), UNLISTED_PRECISIONS)
def test_every_precision_the_matrix_does_not_list_for_a_variant_fails(variant, precision):
    listed = ", ".join(sorted(MATRIX["variants"][variant]["precisions"]))
    assert (f'model.precision "{precision}" is not supported for variant "{variant}": use one of {listed}'
            in render_error({"model": {"variant": variant, "precision": precision}}))


@pytest.mark.parametrize(("variant", "precision", "gpus"), UNLISTED_GPUS)
def test_every_gpu_count_the_matrix_does_not_list_fails(variant, precision, gpus):
    listed = ", ".join(str(g) for g in MATRIX["variants"][variant]["precisions"][precision]["gpus"])
    message = render_error({"model": {"variant": variant, "precision": precision, "gpus": gpus}})
    assert f'model.gpus {gpus} is not supported for variant "{variant}" precision "{precision}": use one of {listed}' \
        in message


def test_tags_selector_override_replaces_the_derived_one_in_workers_and_job():
    rendered = render({"model": {"tagsSelector": "n_gpus=1,nim_tp=1,nim_dp=1,feat_lora=false"}})
    assert env_dict(rendered.worker["env"])["NIM_TAGS_SELECTOR"] == "n_gpus=1,nim_tp=1,nim_dp=1,feat_lora=false"
    assert env_dict(_job_download_container(rendered)["env"])["NIM_TAGS_SELECTOR"] == \
        "n_gpus=1,nim_tp=1,nim_dp=1,feat_lora=false"


DRAFTLESS = [name for name, entry in MATRIX["variants"].items() if not entry["dflash"]]
WITH_DRAFT = [name for name, entry in MATRIX["variants"].items() if entry["dflash"]]


@pytest.mark.parametrize("variant", DRAFTLESS)
@pytest.mark.parametrize("mode", ["regular", "streaming"])
@pytest.mark.parametrize("use_dflash", [None, False])
def test_edge_forces_dflash_off_in_job_and_workers(variant, mode, use_dflash):
    precision = sorted(MATRIX["variants"][variant]["precisions"])[0]
    rendered = render({"mode": mode, "model": {"variant": variant, "precision": precision, "useDflash": use_dflash}})
    spec_method = MATRIX["variants"][variant]["specMethod"]
    assert spec_method == "none"
    for env in (rendered.worker["env"], _job_download_container(rendered)["env"]):
        values = env_dict(env)  # also proves neither name appears twice
        assert values["NIM_USE_DFLASH"] == "0"
        assert values["NIM_STREAMING_SPEC_METHOD"] == spec_method


@pytest.mark.parametrize("variant", WITH_DRAFT)
def test_variants_with_a_draft_keep_the_image_default_unless_asked(variant):
    rendered = render({"model": {"variant": variant}, "mode": "streaming"})
    for env in (rendered.worker["env"], _job_download_container(rendered)["env"]):
        assert "NIM_USE_DFLASH" not in env_dict(env)
        assert "NIM_STREAMING_SPEC_METHOD" not in env_dict(env)
    asked = render({"model": {"variant": variant, "useDflash": False}})
    assert env_dict(asked.worker["env"])["NIM_USE_DFLASH"] == "0"
    assert env_dict(_job_download_container(asked)["env"])["NIM_USE_DFLASH"] == "0"
    assert env_dict(render({"model": {"variant": variant, "useDflash": True}}).worker["env"])["NIM_USE_DFLASH"] == "1"
