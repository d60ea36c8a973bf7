"""The command line: formats, exit codes (0 clean, 1 error findings, 2 usage), never a traceback."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dgdlint.cli import main
from refdata import CHART, ROOT, VALUES

BASE = ROOT / "tests" / "rules" / "_base" / "regular-v1alpha1.yaml"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_clean_file_exits_0_with_a_summary(capsys):
    code, out, _ = run(capsys, "check", str(BASE))
    assert code == 0
    assert out.strip().splitlines()[-1].startswith("0 errors, 0 warnings")


def test_an_error_finding_exits_1_with_file_line_column(capsys, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text(BASE.read_text().replace("nvcr.io/nim/nvidia/cosmos3:2.1.0", "nvcr.io/nim/nvidia/cosmos3", 1))
    code, out, _ = run(capsys, "check", str(broken))
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith(f"{broken}:31:11: error image-tag-pinned ")


def test_json_report_has_the_documented_shape(capsys, tmp_path):
    broken = tmp_path / "b.yaml"
    broken.write_text("a: [1,\n")
    code, out, _ = run(capsys, "check", "--format", "json", str(broken))
    assert code == 1
    report = json.loads(out)
    [finding] = report["findings"]
    assert set(finding) >= {"rule", "severity", "stage", "file", "line", "column", "path", "message", "remediation"}
    assert finding["stage"] == "parse" and finding["line"] == 2
    assert report["summary"]["errors"] == 1


def test_stdin_is_read_with_a_dash(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BASE.read_bytes())))
    code, out, _ = run(capsys, "check", "-")
    assert code == 0 and "1 file" in out


def test_usage_errors_exit_2(capsys, tmp_path):
    assert run(capsys, "check", str(tmp_path / "missing.yaml"))[0] == 2
    assert run(capsys, "check", "--no-such-flag")[0] == 2
    assert run(capsys, "check")[0] == 2
    assert run(capsys, "check", "--crd", str(tmp_path / "nocrd.yaml"), str(BASE))[0] == 2
    assert run(capsys, "explain", "no-such-rule")[0] == 2
    assert run(capsys)[0] == 2


def test_output_writes_the_report_to_a_file(capsys, tmp_path):
    target = tmp_path / "report.json"
    code, out, err = run(capsys, "check", "--format", "json", "--output", str(target), str(BASE))
    assert code == 0 and out == ""
    assert json.loads(target.read_text())["summary"]["errors"] == 0
    assert err == f"dgdlint: 0 errors, 0 warnings, 0 info; wrote json to {target}\n"


FAILING = ROOT / "tests" / "rules" / "edge-dflash-enabled" / "fail" / "edge-worker-dflash-on.yaml"


@pytest.mark.parametrize("command", ["check", "plan", "diff"])
def test_reports_all_written_to_files_leave_one_line_on_stderr_with_the_counts(capsys, tmp_path, command):
    """Every report to a file: stdout stays empty and stderr says what the run found and where it went, so the
    run is not silent; the counts are those of the JSON report."""
    first, data = tmp_path / "first.out", tmp_path / "out.json"
    name = "markdown" if command == "plan" else "sarif"
    paths = [str(BASE), str(FAILING)] if command == "diff" else [str(FAILING)]
    code, out, err = run(capsys, command, "--format", f"{name}={first}", "--format", f"json={data}", *paths)
    report = json.loads(data.read_text())
    if command == "plan":
        severities = [finding["severity"] for finding in report["findings"]]
        errors, warnings, infos = (severities.count(s) for s in ("error", "warning", "info"))
    else:
        errors, warnings, infos = (report["summary"][key] for key in ("errors", "warnings", "infos"))
    assert (code, out) == (1 if errors else 0, "") and first.read_text()
    assert err.splitlines()[-1] == (f"dgdlint: {errors} error{'s' * (errors != 1)}, "
                                    f"{warnings} warning{'s' * (warnings != 1)}, {infos} info; "
                                    f"wrote {name} to {first}, json to {data}")
    assert command == "plan" or errors >= 1


def test_a_report_to_a_file_beside_one_on_stdout_is_named_on_stderr_without_counts(capsys, tmp_path):
    sarif = tmp_path / "out.sarif"
    code, out, err = run(capsys, "check", "--format", "text", "--format", f"sarif={sarif}", str(BASE))
    assert code == 0 and out.startswith("0 errors, 0 warnings, 0 info in 1 file")
    assert err == f"dgdlint: wrote sarif to {sarif}\n" and json.loads(sarif.read_text())["version"] == "2.1.0"


@pytest.mark.parametrize("options", [["--format", "json=-"], ["--format", "json", "--output", "-"]])
def test_a_report_file_of_dash_is_stdout(capsys, tmp_path, monkeypatch, options):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check", *options, str(BASE))
    assert code == 0 and json.loads(out)["summary"]["errors"] == 0 and err == ""
    assert not (tmp_path / "-").exists()


def test_two_reports_to_stdout_are_a_usage_error_with_dash_too(capsys):
    code, _out, err = run(capsys, "check", "--format", "text", "--format", "json=-", str(BASE))
    assert code == 2 and "only one format can go to stdout" in err


def test_crd_from_the_environment_turns_the_schema_stage_on(capsys, monkeypatch, dynamo_crds):
    monkeypatch.setenv("DGDLINT_CRD", str(dynamo_crds.dgd))
    code, out, _ = run(capsys, "check", str(BASE))
    assert code == 0 and "schema checked" in out


def test_check_renders_a_chart_first(capsys):
    code, out, _ = run(capsys, "check", "--chart", str(CHART), "-f", str(VALUES / "nano-fp8.yaml"))
    assert code == 0, out
    assert re.search(r"in \d+ files? \([3-9] objects", out), out  # DGD, Job, PVC (and the chart's test hooks)


def test_a_chart_that_does_not_render_is_an_error_finding(capsys):
    code, out, _ = run(capsys, "check", "--chart", str(CHART), "--set", "model.variant=mega")
    assert code == 1
    assert "helm-render" in out and "/model/variant" in out


def test_a_values_error_is_reported_at_the_line_of_the_values_file(capsys, tmp_path):
    values = tmp_path / "bad.yaml"
    values.write_text("mode: regular\nmodel:\n  variant: mega\n")
    code, out, _ = run(capsys, "check", "--chart", str(CHART), "-f", str(values))
    assert code == 1
    assert out.startswith(f"{values}:3:3: error helm-render ")


def test_rules_and_explain_come_from_the_registry(capsys):
    code, out, _ = run(capsys, "rules")
    assert code == 0 and "streaming-endpoint-mismatch" in out
    code, out, _ = run(capsys, "explain", "edge-dflash-enabled")
    assert code == 0 and "Why it matters" in out and "NIM_USE_DFLASH" in out


def test_an_unusable_crd_is_said_before_standard_input_is_read(tmp_path):
    """The schema stage is set up while worker processes read many files, and before anything is read where
    none do: a terminal left open on standard input does not wait for input that a bad --crd would refuse."""
    process = subprocess.Popen([sys.executable, "-m", "dgdlint", "check", "--crd", str(tmp_path / "nocrd.yaml"), "-"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        code = process.wait(timeout=60)  # standard input stays open all along
        assert code == 2 and "nocrd.yaml" in process.stderr.read()
    finally:
        process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            stream.close()


def test_an_unusable_crd_is_a_usage_error_when_workers_read_the_files(tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    for index in range(40):  # above load.workers.MIN_FILES: worker processes read them
        (folder / f"m{index}.yaml").write_bytes(BASE.read_bytes())
    completed = subprocess.run([sys.executable, "-m", "dgdlint", "check", "--jobs", "2", "--crd",
                                str(tmp_path / "nocrd.yaml"), str(folder)], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 2 and "nocrd.yaml" in completed.stderr and "Traceback" not in completed.stderr
    assert completed.stdout == ""


def test_the_installed_command_starts_and_reports_its_version():
    dgdlint = Path(sys.executable).with_name("dgdlint")
    completed = subprocess.run([str(dgdlint), "--version"], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0 and completed.stdout.startswith("dgdlint ")


HOSTILE = [b"\x00\x01binary", b"- just\n- a list\n", b"42\n", b"kind: Pod\n", b"\xff\xfe\x00"]


@pytest.mark.parametrize("payload", HOSTILE)
def test_hostile_input_is_a_finding_never_a_traceback(capsys, tmp_path, payload):
    target = tmp_path / "x.yaml"
    target.write_bytes(payload)
    code, out, err = run(capsys, "check", str(target))
    assert code == 1
    assert "Traceback" not in out + err


def test_a_missing_chart_or_values_file_is_a_usage_error(capsys, tmp_path):
    assert run(capsys, "check", "--chart", str(tmp_path / "nochart"))[0] == 2
    assert run(capsys, "check", "--chart", str(CHART), "-f", str(tmp_path / "none.yaml"))[0] == 2
    assert run(capsys, "render", "--chart", str(tmp_path / "nochart"))[0] == 2


def test_a_value_set_on_the_command_line_is_not_blamed_on_a_values_file(capsys, tmp_path):
    values = tmp_path / "ok.yaml"
    values.write_text("model:\n  precision: fp8\n")
    code, out, _ = run(capsys, "check", "--format", "json", "--chart", str(CHART), "-f", str(values),
                       "--set", "model.precision=fp4")
    [finding] = json.loads(out)["findings"]
    assert code == 1 and finding["file"] == str(CHART) and finding["path"] == "model.precision"


def test_a_chart_check_failure_is_placed_at_the_key_in_the_values_file(capsys, tmp_path):
    values = tmp_path / "gpus.yaml"
    values.write_text("mode: regular\nmodel:\n  gpus: 2\n")
    code, out, _ = run(capsys, "check", "--chart", str(CHART), "-f", str(values))
    assert code == 1 and out.startswith(f"{values}:3:3: error helm-render ")


def test_dgdlint_crd_keeps_urls_whole():
    from dgdlint.schema import crd_sources_from_env

    value = "https://example.test/crd.yaml:/tmp/a.yaml:http://example.test:8080/b.yaml"
    assert crd_sources_from_env({"DGDLINT_CRD": value}) == [
        "https://example.test/crd.yaml", "/tmp/a.yaml", "http://example.test:8080/b.yaml"]


def test_built_in_kinds_of_k8s_io_groups_are_schema_checked(capsys, tmp_path):
    ingress = tmp_path / "ingress.yaml"
    ingress.write_text("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: x\nspec:\n"
                       "  bogusField: 1\n")
    code, out, _ = run(capsys, "check", str(ingress))
    assert code == 1 and f"{ingress}:6:3: error kubernetes-schema spec.bogusField: unknown field 'bogusField'" in out


def test_the_json_summary_counts_each_severity_under_the_keys_the_readme_names(capsys):
    """`infos` (plural, as `errors` and `warnings`) is kept for the consumers that read it; the README names the
    keys, and each count is that of the findings' severities and of the text summary."""
    target = ROOT / "tests" / "rules" / "gpu-product-unknown" / "fail" / "bare-h100-label.yaml"
    code, out, _ = run(capsys, "check", "--format", "json", str(target))
    report = json.loads(out)
    severities = [finding["severity"] for finding in report["findings"]]
    counts = {"errors": severities.count("error"), "warnings": severities.count("warning"),
              "infos": severities.count("info")}
    assert code == 0 and counts["infos"] >= 1
    assert {key: report["summary"][key] for key in counts} == counts
    readme = (ROOT / "README.md").read_text()
    said = re.search(r"`summary` counts by severity in plural keys,\s+(.*?):\n", readme, re.S)[1]
    documented = [name for name in re.findall(r"`([a-z_]+)`", said) if name not in ("error", "warning", "info")]
    assert documented == list(report["summary"])
    _, text, _ = run(capsys, "check", str(target))
    assert text.splitlines()[-1].startswith(f"{counts['errors']} errors, {counts['warnings']} warnings, "
                                            f"{counts['infos']} info in 1 file")


ODD_NAME = "odd\nname\x1b[31m\t.json"  # a newline, an escape sequence and a tab in a file name
ODD_SHOWN = "odd\\nname\\x1b[31m\\t.json"


def test_a_report_file_named_with_control_characters_is_named_escaped_on_one_line(capsys, tmp_path):
    target = tmp_path / ODD_NAME
    code, out, err = run(capsys, "check", "--format", f"json={target}", str(BASE))
    assert (code, out) == (0, "") and json.loads(target.read_text())["summary"]["errors"] == 0
    assert err == f"dgdlint: 0 errors, 0 warnings, 0 info; wrote json to {tmp_path}/{ODD_SHOWN}\n"


def test_a_baseline_named_with_control_characters_is_named_escaped_on_one_line(capsys, tmp_path):
    baseline = tmp_path / ODD_NAME
    code, _, err = run(capsys, "check", "--write-baseline", str(baseline), str(FAILING))
    assert code == 0 and baseline.is_file()
    wrote = [line for line in err.splitlines() if "wrote" in line]
    assert len(wrote) == 1 and wrote[0].endswith(f"to the baseline {tmp_path}/{ODD_SHOWN}")


@pytest.mark.parametrize("command", [["convert", "--to", "v1beta1", "--write"], ["fix"]])
def test_an_edited_file_named_with_control_characters_is_named_escaped_on_one_line(capsys, tmp_path, command):
    source = tmp_path / ODD_NAME.replace(".json", ".yaml")
    source.write_text((FAILING if command == ["fix"] else BASE).read_text())
    before = source.read_text()
    code, out, err = run(capsys, *command, str(source))
    assert (code, out) == (0, "") and source.read_text() != before
    wrote = [line for line in err.splitlines() if line.startswith("dgdlint: wrote")]
    assert wrote == [f"dgdlint: wrote {tmp_path}/{ODD_SHOWN.replace('.json', '.yaml')}"]
    # the notes before it name the file as the findings do: every stderr line starts with dgdlint or the name
    shown = f"{tmp_path}/{ODD_SHOWN.replace('.json', '.yaml')}:"
    assert all(line.startswith(("dgdlint: ", shown)) for line in err.splitlines())
    assert command != ["fix"] or shown in err  # fix notes what it repaired
