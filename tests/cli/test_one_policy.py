"""One policy for every command that reports findings: check, diff and plan all honour the configuration
file, suppression annotations, the baseline and --fail-on, and all take `--format FMT=FILE` (repeatable)."""

from __future__ import annotations

import json

from dgdlint.cli import main
from refdata import ROOT

MIXED = ROOT / "tests" / "rules" / "gpu-products-mixed" / "fail" / "hopper-or-ampere.yaml"
CASE = ROOT / "tests" / "diff" / "cases" / "diff-download-not-rerun" / "precision-changed-job-unchanged"


def run(capsys, monkeypatch, tmp_path, *argv) -> tuple[int, str]:
    monkeypatch.delenv("DGDLINT_CRD", raising=False)
    monkeypatch.chdir(tmp_path)  # no configuration found by accident
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().out


def test_plan_honours_the_configuration_file(capsys, monkeypatch, tmp_path):
    assert run(capsys, monkeypatch, tmp_path, "plan", MIXED)[0] == 1
    (tmp_path / ".dgdlint.yaml").write_text("severity:\n  gpu-products-mixed: warning\n")
    code, out = run(capsys, monkeypatch, tmp_path, "plan", MIXED)
    assert code == 0 and "warning gpu-products-mixed" in out
    assert run(capsys, monkeypatch, tmp_path, "plan", "--fail-on", "warning", MIXED)[0] == 1


def test_plan_and_diff_honour_a_baseline(capsys, monkeypatch, tmp_path):
    baseline = tmp_path / "baseline.json"
    assert run(capsys, monkeypatch, tmp_path, "plan", "--write-baseline", baseline, MIXED)[0] == 0
    assert run(capsys, monkeypatch, tmp_path, "plan", "--baseline", baseline, MIXED)[0] == 0
    old, new = CASE / "old.yaml", CASE / "new.yaml"
    assert run(capsys, monkeypatch, tmp_path, "diff", old, new)[0] == 1
    assert run(capsys, monkeypatch, tmp_path, "diff", "--write-baseline", baseline, old, new)[0] == 0
    code, out = run(capsys, monkeypatch, tmp_path, "diff", "--baseline", baseline, old, new)
    assert code == 0 and "in the baseline" in out


def test_diff_and_plan_write_several_formats_at_once(capsys, monkeypatch, tmp_path):
    code, out = run(capsys, monkeypatch, tmp_path, "diff", CASE / "old.yaml", CASE / "new.yaml",
                    "--format", "text", "--format", f"json={tmp_path / 'diff.json'}",
                    "--format", f"sarif={tmp_path / 'diff.sarif'}")
    assert code == 1 and "error diff-download-not-rerun" in out
    assert {f["rule"] for f in json.loads((tmp_path / "diff.json").read_text())["findings"]} >= \
        {"diff-download-not-rerun"}
    assert json.loads((tmp_path / "diff.sarif").read_text())["version"] == "2.1.0"
    code, out = run(capsys, monkeypatch, tmp_path, "plan", MIXED, "--format", "text",
                    "--format", f"markdown={tmp_path / 'plan.md'}")
    assert code == 1 and out.startswith("DynamoGraphDeployment ")
    assert (tmp_path / "plan.md").read_text().startswith("### dgdlint plan")


def test_only_one_format_may_go_to_stdout(capsys, monkeypatch, tmp_path):
    code = main(["plan", str(MIXED), "--format", "text", "--format", "json"])
    assert code == 2
    assert "only one format can go to stdout" in capsys.readouterr().err
