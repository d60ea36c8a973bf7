"""`dgdlint diff` on the command line: sides from files, directories and stdin, check's formats and exit
codes (0 no error, 1 error findings or a side that does not load, 2 usage), and the rules as data."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from dgdlint import cli, diff
from dgdlint.rules import REGISTRY
from refdata import ROOT

BASES = ROOT / "tests" / "rules" / "_base"
REGULAR = BASES / "regular-v1alpha1.yaml"
STREAMING = BASES / "streaming-v1beta1.yaml"
CASES = Path(__file__).parent / "cases"
SCALE_DOWN = CASES / "diff-sessions-lost" / "streaming-scale-down"
STALE_JOB = CASES / "diff-download-not-rerun" / "precision-changed-job-unchanged"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(["diff", *(str(a) for a in argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def diff_findings(report: str) -> list[dict]:
    return [f for f in json.loads(report)["findings"] if f["rule"].startswith("diff-")]


def stdin_with(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


@pytest.mark.parametrize("base", [REGULAR, STREAMING], ids=lambda p: p.name)
def test_identical_sides_give_no_diff_finding_and_exit_0(capsys, base):
    code, out, _ = run(capsys, base, base, "--format", "json")
    assert code == 0
    assert diff_findings(out) == []


def test_a_directory_is_a_side(capsys, tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    (tmp_path / "old" / "set.yaml").write_bytes((SCALE_DOWN / "old.yaml").read_bytes())
    (tmp_path / "new" / "set.yaml").write_bytes((SCALE_DOWN / "new.yaml").read_bytes())
    code, out, _ = run(capsys, tmp_path / "old", tmp_path / "new", "--format", "json")
    assert code == 0
    assert [f["rule"] for f in diff_findings(out)] == ["diff-sessions-lost"]


@pytest.mark.parametrize("stdin_side", ["old", "new"])
def test_either_side_can_be_stdin(capsys, monkeypatch, stdin_side):
    stdin_with(monkeypatch, (SCALE_DOWN / f"{stdin_side}.yaml").read_bytes())
    old = "-" if stdin_side == "old" else SCALE_DOWN / "old.yaml"
    new = "-" if stdin_side == "new" else SCALE_DOWN / "new.yaml"
    code, out, _ = run(capsys, old, new, "--format", "json")
    assert code == 0
    [lost] = diff_findings(out)
    reported, related = lost["file"], lost["related"][0]["file"]
    assert (reported == "<stdin>") == (stdin_side == "new")
    assert (related == "<stdin>") == (stdin_side == "old")


@pytest.mark.parametrize("argv, complaint", [
    ([], "two sides"),
    ([REGULAR], "two sides"),
    ([REGULAR, REGULAR, REGULAR], "two sides"),
    (["-", "-"], "at most one side can be -"),
    ([REGULAR, "no-such-file.yaml"], "no such file"),
    ([REGULAR, REGULAR, "--old-values", "values/nano-fp8.yaml"], "need --chart"),
    ([REGULAR, REGULAR, "--set", "mode=streaming"], "need --chart"),
    (["--chart", "charts/cosmos3-reasoner"], "--old-values or --new-values"),
    (["--chart", "charts/cosmos3-reasoner", REGULAR, REGULAR, "--new-values", "values/nano-fp8.yaml"],
     "at most one SIDE"),
    (["--chart", "charts/cosmos3-reasoner", REGULAR, "--old-values", "values/nano-fp8.yaml",
      "--new-values", "values/nano-bf16.yaml"], "only --new-values"),
    ([REGULAR, REGULAR, "--format", "yaml"], "invalid choice"),
    ([REGULAR, REGULAR, "--no-such-flag"], "unrecognized arguments"),
])
def test_usage_errors_exit_2_and_say_why(capsys, argv, complaint):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert complaint in err


def test_the_json_report_has_check_s_shape_with_both_locations(capsys):
    code, out, _ = run(capsys, STALE_JOB / "old.yaml", STALE_JOB / "new.yaml", "--format", "json")
    assert code == 1
    report = json.loads(out)
    assert report["summary"]["errors"] == 2 and report["summary"]["warnings"] == 0
    [stale] = diff_findings(out)
    assert set(stale) >= {"rule", "severity", "stage", "file", "line", "column", "path", "message", "remediation",
                          "object", "related"}
    assert (stale["rule"], stale["severity"], stale["stage"]) == ("diff-download-not-rerun", "error", "rule")
    assert stale["object"] == "DynamoGraphDeployment/default/cosmos3-reasoner"
    assert stale["remediation"] == diff.DIFF_RULES["diff-download-not-rerun"].remediation
    before, job = stale["related"]
    assert set(before) == {"file", "line", "column", "path", "note"}
    assert before["file"].endswith("old.yaml") and before["note"] == "before: fp8"
    assert job["file"].endswith("new.yaml") and job["note"] == "Job cosmos3-reasoner-download's NIM_PRECISION"


def test_text_report_lists_check_and_diff_findings_together_sorted(capsys):
    code, out, _ = run(capsys, STALE_JOB / "old.yaml", STALE_JOB / "new.yaml")
    assert code == 1
    new = STALE_JOB / "new.yaml"
    errors = [line for line in out.splitlines() if ": error " in line]
    assert errors[0].startswith(f"{new}:111:11: error diff-download-not-rerun DynamoGraphDeployment "
                                "cosmos3-reasoner component ReasonerWorker: the change moves NIM_PRECISION")
    assert errors[1].startswith(f"{new}:111:11: error download-job-model-mismatch ")
    assert out.splitlines()[-1].startswith("2 errors, 0 warnings")


def test_output_writes_the_report_to_a_file(capsys, tmp_path):
    target = tmp_path / "report.json"
    code, out, _ = run(capsys, SCALE_DOWN / "old.yaml", SCALE_DOWN / "new.yaml", "--format", "json",
                       "--output", target)
    assert code == 0 and out == ""
    assert [f["rule"] for f in diff_findings(target.read_text())] == ["diff-sessions-lost"]


def test_show_fix_prints_the_remediation(capsys):
    _, out, _ = run(capsys, SCALE_DOWN / "old.yaml", SCALE_DOWN / "new.yaml", "--show-fix")
    assert f"    fix: {diff.DIFF_RULES['diff-sessions-lost'].remediation}" in out


@pytest.mark.parametrize("broken_side", ["old", "new"])
def test_a_side_that_does_not_parse_exits_1_and_nothing_is_compared(capsys, tmp_path, broken_side):
    broken = tmp_path / "broken.yaml"
    broken.write_text("apiVersion: v1\nkind: [\n")
    sides = (broken, SCALE_DOWN / "new.yaml") if broken_side == "old" else (SCALE_DOWN / "old.yaml", broken)
    code, out, err = run(capsys, *sides, "--format", "json")
    assert code == 1
    findings = json.loads(out)["findings"]
    assert [(f["rule"], f["file"]) for f in findings if f["severity"] == "error"] == [("yaml-syntax", str(broken))]
    assert diff_findings(out) == []
    assert "not compared" in err


def test_a_side_whose_chart_does_not_render_exits_1(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("model:\n  variant: giant\n")
    code, out, _ = run(capsys, "--chart", ROOT / "charts" / "cosmos3-reasoner", "--old-values",
                       ROOT / "values" / "nano-fp8.yaml", "--new-values", bad, "--format", "json")
    assert code == 1
    assert "helm-render" in [f["rule"] for f in json.loads(out)["findings"]]


def test_dgdlint_diff_runs_through_the_main_cli(capsys):
    code = cli.main(["diff", str(SCALE_DOWN / "old.yaml"), str(SCALE_DOWN / "new.yaml")])
    out = capsys.readouterr().out
    assert code == 0 and " warning diff-sessions-lost " in out


def test_the_diff_rules_are_data_with_the_fields_of_a_rule():
    wanted = {"diff-immutable-field": "error", "diff-sessions-lost": "warning", "diff-download-not-rerun": "error",
              "diff-cache-changed": "warning", "diff-deleted": "warning",
              # what the operator's webhook refuses on an update (rules/webhook_update.py)
              "update-workload-provider": "error", "update-provider-override-identity": "error",
              "update-replicas-scaling-adapter": "error", "update-topology-constraint": "error",
              "update-kv-transfer-policy": "error", "update-gpu-memory-service-layout": "error",
              "update-gpu-power-limit": "error", "update-runtime-version": "error", "restart-order-invalid": "error"}
    assert {name: r.severity for name, r in diff.DIFF_RULES.items()} == wanted
    codes = [r.code for r in diff.DIFF_RULES.values()]
    assert len(set(codes)) == len(codes) and not set(codes) & {r.code for r in REGISTRY.values()}
    assert not set(diff.DIFF_RULES) & set(REGISTRY)
    for name, r in diff.DIFF_RULES.items():
        assert r.name == name and r.family == "diff"
        assert r.title and r.rationale and r.remediation and r.reads


def test_explain_can_render_a_diff_rule():
    from dgdlint.docs import explain

    text = explain(diff.DIFF_RULES["diff-sessions-lost"])
    assert text.startswith("diff-sessions-lost (DGD902, warning)")
    assert "never migrate" in text


def test_deleting_a_streaming_deployment_says_how_many_worker_pods_lose_sessions(capsys):
    code, out, _ = run(capsys, STREAMING, CASES / "diff-deleted" / "dgd-dropped" / "new.yaml", "--format", "json")
    assert code == 0
    [deleted] = diff_findings(out)
    assert deleted["rule"] == "diff-deleted" and deleted["file"] == str(STREAMING)
    assert deleted["message"].endswith("the live streaming sessions on its 2 worker pods")


def test_the_diff_page_lists_every_diff_rule_with_its_severity():
    page = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
    for name, r in diff.DIFF_RULES.items():
        assert f"| `{name}` | {r.severity} |" in page


@pytest.mark.parametrize("text, same_as", [("1", "1000m"), ("0.5Gi", "512Mi"), ("1e3", "1k"), ("16", "+16")])
def test_quantities_compare_by_value(text, same_as):
    assert diff.quantity(text) == diff.quantity(same_as)


def test_a_hostile_quantity_stays_cheap_text():
    assert diff.quantity("1e99999999") == "1e99999999"


def test_the_project_configuration_applies_to_diff_findings(capsys, tmp_path, monkeypatch):
    values = ROOT / "values"
    argv = ["diff", "--chart", str(ROOT / "charts" / "cosmos3-reasoner"), "--old-values",
            str(values / "nano-fp8-streaming.yaml"), "--new-values", str(values / "nano-fp8.yaml")]
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 0
    assert "diff-sessions-lost" in capsys.readouterr().out
    (tmp_path / ".dgdlint.yaml").write_text("ignore: [diff-sessions-lost]\n")
    assert cli.main(argv) == 0
    assert "diff-sessions-lost" not in capsys.readouterr().out
    (tmp_path / ".dgdlint.yaml").write_text("severity: {diff-sessions-lost: error}\n")
    assert cli.main(argv) == 1
