"""`dgdlint plan` on the command line: inputs, formats, --output, --crd, and its exit codes (0 no error
finding, 1 an error finding, 2 usage)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from refdata import ROOT

MIXED = "tests/rules/gpu-products-mixed/fail/hopper-or-ampere.yaml"
UNKNOWN = "tests/rules/gpu-product-unknown/fail/bare-h100-label.yaml"


@pytest.mark.parametrize("args", [
    (),
    ("-f", "values/nano-fp8.yaml", "tests/rules/_base/regular-v1alpha1.yaml"),
    ("--set", "mode=streaming", "tests/rules/_base/regular-v1alpha1.yaml"),
    ("--format", "sarif", "tests/rules/_base/regular-v1alpha1.yaml"),
    ("--bogus",),
    ("no/such/file.yaml",),
    ("--crd", "no/such/crd.yaml", "tests/rules/_base/regular-v1alpha1.yaml"),
])
def test_usage_errors_exit_2(run_plan, args):
    assert run_plan(*args)[0] == 2


def test_help_exits_0(run_plan):
    code, out = run_plan("--help")
    assert code == 0 and "usage: dgdlint plan" in out


def test_an_error_finding_exits_1_and_is_shown_beside_the_totals(run_plan):
    code, out = run_plan(MIXED)
    assert code == 1
    totals, fit = out.split("\nGPU fit: ", 1)
    assert "Totals, every pod with the Jobs: 3 GPUs" in totals
    assert f"{MIXED}:147:23: error gpu-products-mixed DynamoGraphDeployment cosmos3-reasoner component " \
           "ReasonerWorker can land on unlike GPUs" in fit


def test_an_info_finding_alone_exits_0(run_plan, plan_json):
    code, out = run_plan(UNKNOWN)
    assert code == 0
    assert f"{UNKNOWN}:27:9: info gpu-product-unknown Job cosmos3-reasoner-download targets 'NVIDIA-H100'" in out
    assert out.endswith("0 errors, 0 warnings, 2 info\n")
    _code, plan = plan_json(UNKNOWN)
    assert [(f["rule"], f["severity"], f["line"]) for f in plan["findings"]] == [
        ("gpu-product-unknown", "info", 27), ("gpu-product-unknown", "info", 134)]
    assert plan["gpu_fit_targets"] == 2


def test_only_gpu_fit_findings_not_the_other_rules(run_plan):
    # two GPUs on a Nano worker breaks gpu-count-unsupported (a `check` rule), not the GPU fit
    code, out = run_plan("tests/rules/gpu-count-unsupported/fail/nano-fp8-two-gpus.yaml")
    assert code == 0
    assert "gpu-count-unsupported" not in out


def test_a_suppression_annotation_with_a_reason_silences_a_fit_finding(run_plan, tmp_path):
    text = (ROOT / MIXED).read_text().replace(
        "kind: DynamoGraphDeployment\nmetadata:\n  name: cosmos3-reasoner\n",
        "kind: DynamoGraphDeployment\nmetadata:\n  name: cosmos3-reasoner\n  annotations:\n"
        "    dgdlint/ignore-gpu-products-mixed: both pools serve the same profile in our cluster\n")
    path = tmp_path / "suppressed.yaml"
    path.write_text(text)
    code, out = run_plan(str(path))
    assert out.count("error gpu-products-mixed") == 1  # the Job's remains
    assert "component ReasonerWorker can land on unlike GPUs" not in out
    assert code == 1


def test_output_writes_the_plan_to_a_file(run_plan, tmp_path):
    target = tmp_path / "plan.json"
    code, out = run_plan(MIXED, "--format", "json", "--output", str(target))
    assert (code, out) == (1, "")
    assert json.loads(target.read_text())["totals"]["gpus"] == 3


def test_a_chart_that_does_not_render_is_an_error_finding(run_plan):
    code, out = run_plan("--chart", "charts/cosmos3-reasoner", "--set", "model.variant=giant")
    assert code == 1
    assert "error helm-render the chart did not render" in out


def test_yaml_that_does_not_parse_is_an_error_finding(run_plan, tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("kind: Job\n  bad: [\n")
    code, out = run_plan(str(path))
    assert code == 1 and "error yaml-syntax" in out


def test_the_schema_stage_runs_with_the_bundled_schemas(run_plan, tmp_path):
    text = (ROOT / "tests/rules/_base/regular-v1alpha1.yaml").read_text().replace("replicas: 2", "replicas: two")
    path = tmp_path / "bad-schema.yaml"
    path.write_text(text)
    code, out = run_plan(str(path))
    assert code == 1 and "error crd-schema" in out
    code, out = run_plan(str(path), "--dynamo-version", "1.1.0")
    assert code == 1 and "error crd-schema" in out


def test_with_a_crd_the_schema_stage_reads_it(run_plan, tmp_path, dynamo_crds):
    text = (ROOT / "tests/rules/_base/regular-v1alpha1.yaml").read_text().replace("replicas: 2", "replicas: two")
    path = tmp_path / "bad-schema.yaml"
    path.write_text(text)
    code, out = run_plan(str(path), "--crd", str(dynamo_crds.newest))
    assert code == 1 and "error crd-schema" in out


def test_the_installed_command_runs_plan():
    env = dict(os.environ)
    env.pop("DGDLINT_CRD", None)
    completed = subprocess.run([sys.executable, "-m", "dgdlint", "plan", MIXED, "--format", "json"], cwd=ROOT,
                               env=env, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 1, completed.stderr
    assert json.loads(completed.stdout)["totals"]["gpus"] == 3
