"""What a newcomer trips over: empty input fails (unless --allow-empty), Helm templates and charts given as
paths are recognised, a values file next to --chart is named, the pre-commit mode leaves other YAML alone,
`.YAML` files are read, rule codes are found in any case, and writing a baseline exits 0."""

from __future__ import annotations

import io
import re
import sys

import pytest

from dgdlint.cli import main
from refdata import ROOT

BASE = ROOT / "tests" / "rules" / "_base" / "regular-v1alpha1.yaml"
TEMPLATE = ROOT / "charts" / "cosmos3-reasoner" / "templates" / "dynamographdeployment.yaml"


def run(capsys, monkeypatch, *argv, stdin: bytes | None = None) -> tuple[int, str, str]:
    monkeypatch.delenv("DGDLINT_CRD", raising=False)
    monkeypatch.chdir(ROOT)
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n", "---\n---\n# nothing\n"],
                         ids=["empty", "comment", "separator", "separators"])
def test_an_empty_file_is_an_error_not_a_pass(capsys, monkeypatch, tmp_path, text):
    (tmp_path / "empty.yaml").write_text(text)
    code, out, _ = run(capsys, monkeypatch, "check", tmp_path / "empty.yaml")
    assert code == 1
    assert f"{tmp_path / 'empty.yaml'}:1:1: error no-objects no Kubernetes objects found in " \
           f"{tmp_path / 'empty.yaml'}" in out


def test_an_empty_folder_and_an_empty_stdin_are_errors(capsys, monkeypatch, tmp_path):
    code, out, _ = run(capsys, monkeypatch, "check", tmp_path)
    assert code == 1 and f"no Kubernetes objects found in {tmp_path} (no .yaml, .yml or .json file)" in out
    code, out, _ = run(capsys, monkeypatch, "check", "-", stdin=b"")  # a failed `helm template ... |`
    assert code == 1 and "<stdin>:1:1: error no-objects no Kubernetes objects found in <stdin>" in out


def test_allow_empty_accepts_an_empty_input(capsys, monkeypatch, tmp_path):
    (tmp_path / "empty.yaml").write_text("# nothing yet\n")
    assert run(capsys, monkeypatch, "check", "--allow-empty", tmp_path / "empty.yaml")[0] == 0
    assert run(capsys, monkeypatch, "plan", "--allow-empty", tmp_path / "empty.yaml")[0] == 0


def test_plan_and_diff_fail_on_empty_input_too(capsys, monkeypatch, tmp_path):
    (tmp_path / "empty.yaml").write_text("")
    assert run(capsys, monkeypatch, "plan", tmp_path / "empty.yaml")[0] == 1
    code, out, _ = run(capsys, monkeypatch, "diff", BASE, tmp_path / "empty.yaml")
    assert code == 1 and "no-objects" in out


def test_an_unrendered_template_is_one_finding_that_says_how_to_render_it(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, "check", TEMPLATE.relative_to(ROOT))
    assert code == 1
    assert out.splitlines()[0] == (
        "charts/cosmos3-reasoner/templates/dynamographdeployment.yaml:1:1: error helm-template a Helm template, "
        "not a manifest: render it with --chart (dgdlint check --chart charts/cosmos3-reasoner -f VALUES)")
    assert out.splitlines()[1].startswith("1 error,")


def test_a_chart_directory_given_as_a_path_is_rendered(capsys, monkeypatch):
    code, out, err = run(capsys, monkeypatch, "check", "charts/cosmos3-reasoner")
    assert code == 0 and "(5 objects" in out
    assert "charts/cosmos3-reasoner is a chart: rendering it with its default values" in err


def test_a_values_file_without_f_next_to_chart_is_named_with_the_fix(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, "check", "--chart", "charts/cosmos3-reasoner", "values/nano-fp8.yaml")
    assert code == 1
    assert ("values/nano-fp8.yaml:1:1: error not-an-object holds no Kubernetes object; to render the chart with "
            "these values, give the file with -f: dgdlint check --chart charts/cosmos3-reasoner -f "
            "values/nano-fp8.yaml") in out


def test_a_yaml_error_in_a_values_file_names_that_file_and_line(capsys, monkeypatch, tmp_path):
    (tmp_path / "values.yaml").write_text("model:\n  variant: nano\n bad: [\n")
    code, out, _ = run(capsys, monkeypatch, "check", "--chart", "charts/cosmos3-reasoner", "-f",
                       tmp_path / "values.yaml")
    assert code == 1 and f"{tmp_path / 'values.yaml'}:3:2: error yaml-syntax values file: YAML syntax error" in out


def test_a_packaged_chart_renders_like_its_directory(capsys, monkeypatch, tmp_path):
    import tarfile

    with tarfile.open(tmp_path / "cosmos3-reasoner-2.1.0.tgz", "w:gz") as archive:
        archive.add(ROOT / "charts" / "cosmos3-reasoner", arcname="cosmos3-reasoner")
    code, out, _ = run(capsys, monkeypatch, "check", "--chart", tmp_path / "cosmos3-reasoner-2.1.0.tgz",
                       "-f", "values/nano-fp8.yaml")
    assert code == 0 and "(5 objects" in out


def test_manifests_only_checks_objects_and_leaves_other_yaml_alone(capsys, monkeypatch, tmp_path):
    (tmp_path / "ci.yaml").write_text("name: ci\non: [push]\njobs: {}\n")
    (tmp_path / "values.yaml").write_text("model:\n  variant: nano\n")
    (tmp_path / "dgd.yaml").write_bytes(BASE.read_bytes())
    code, out, _ = run(capsys, monkeypatch, "check", "--manifests-only", tmp_path, TEMPLATE.relative_to(ROOT))
    assert code == 0 and "in 1 file (3 objects" in out
    code, out, _ = run(capsys, monkeypatch, "check", tmp_path / "ci.yaml")  # a direct check still reports it
    assert code == 1 and "not-an-object" in out


def test_manifests_only_still_reports_a_broken_manifest(capsys, monkeypatch, tmp_path):
    (tmp_path / "dgd.yaml").write_text("apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\n"
                                       "metadata: {name: x\n")
    code, out, _ = run(capsys, monkeypatch, "check", "--manifests-only", tmp_path / "dgd.yaml")
    assert code == 1 and "yaml-syntax" in out


def test_manifests_only_with_no_manifest_at_all_passes(capsys, monkeypatch, tmp_path):
    (tmp_path / "ci.yaml").write_text("name: ci\n")
    assert run(capsys, monkeypatch, "check", "--manifests-only", tmp_path / "ci.yaml")[0] == 0


def test_a_folder_s_upper_case_yaml_files_are_read(capsys, monkeypatch, tmp_path):
    (tmp_path / "DGD.YAML").write_bytes(BASE.read_bytes())
    code, out, _ = run(capsys, monkeypatch, "check", tmp_path)
    assert code == 0 and "in 1 file (3 objects" in out


@pytest.mark.parametrize("name", ["DGD101", "dgd101", "Streaming-Frontend-Adapter", "YAML-SYNTAX"])
def test_explain_finds_rule_codes_and_names_in_any_case(capsys, monkeypatch, name):
    code, out, _ = run(capsys, monkeypatch, "explain", name)
    assert code == 0 and out.split(" ")[0] in ("streaming-frontend-adapter", "yaml-syntax")


def test_explain_suggests_the_rule_meant(capsys, monkeypatch):
    code, _, err = run(capsys, monkeypatch, "explain", "streaming-endpoint-mismach")
    assert code == 2
    assert err.strip() == ("dgdlint explain: error: no rule 'streaming-endpoint-mismach'; did you mean "
                           "streaming-endpoint-mismatch or streaming-endpoint-shared or streaming-timeout-mismatch?")


def test_writing_a_baseline_exits_0_and_the_baseline_then_passes(capsys, monkeypatch, tmp_path):
    failing = ROOT / "tests" / "rules" / "streaming-endpoint-mismatch" / "fail" / "worker-endpoint-differs.yaml"
    baseline = tmp_path / "baseline.json"
    assert run(capsys, monkeypatch, "check", "--write-baseline", baseline, failing)[0] == 0
    assert run(capsys, monkeypatch, "check", "--baseline", baseline, failing)[0] == 0
    assert run(capsys, monkeypatch, "check", failing)[0] == 1


def test_help_lists_every_command_and_each_command_s_help_has_an_example(capsys, monkeypatch):
    from dgdlint.commands import COMMANDS

    code, out, _ = run(capsys, monkeypatch, "--help")
    assert code == 0
    listed = out.split("COMMAND ...", 1)[1]
    assert all(re.search(rf"^    {name}\s", listed, re.MULTILINE) for name in COMMANDS)  # a long name: help below
    for name in COMMANDS:
        code, out, _ = run(capsys, monkeypatch, name, "--help")
        assert code == 0 and "example:\n  dgdlint " in out, name


def demo_chart(folder) -> str:
    chart = folder / "charts" / "demo"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: demo\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("port: 80\n")
    (chart / "templates" / "service.yaml").write_text(
        "{{- /* a comment line the render drops */}}\napiVersion: v1\nkind: Service\nmetadata:\n"
        "  name: {{ .Release.Name }}-web\n  labels:\n    owner: \"<team-name>\"\nspec:\n  ports:\n"
        "    - port: {{ .Values.port }}\n")
    return str(chart.relative_to(folder))


def test_a_finding_on_a_rendered_chart_names_the_template_and_a_line_it_has(capsys, monkeypatch, tmp_path):
    chart = demo_chart(tmp_path)
    monkeypatch.delenv("DGDLINT_CRD", raising=False)
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--chart", chart])
    out = capsys.readouterr().out
    assert code == 1
    # the placeholder (and, on the same line, the label value the API server refuses for it)
    [placeholder] = [line for line in out.splitlines() if " placeholder-value " in line]
    assert placeholder.startswith("charts/demo/templates/service.yaml:7:5: error placeholder-value Service "
                                  "cosmos3-reasoner-web: <team-name> is a placeholder")


def test_a_finding_on_a_value_the_template_copies_whole_names_the_values_file_line_that_set_it(
        capsys, monkeypatch, tmp_path):
    """The chart's NetworkPolicy copies frontend.networkPolicy.from as it is: a bad CIDR there is no line of
    the template, so the finding names the line of the user's values file (the last -f given first)."""
    values = tmp_path / "policy.yaml"
    values.write_text("frontend:\n  networkPolicy:\n    enabled: true\n    from:\n"
                      "      - ipBlock: {cidr: \"10.20.30.40/16\"}\n", encoding="utf-8")
    monkeypatch.chdir(ROOT)
    code = main(["check", "--chart", "charts/cosmos3-reasoner", "-f", "values/nano-fp8.yaml", "-f", str(values)])
    out = capsys.readouterr().out
    assert code == 1
    [finding] = [line for line in out.splitlines() if " network-policy-invalid " in line]
    assert finding.startswith(f"{values}:5:19: error network-policy-invalid NetworkPolicy cosmos3-reasoner-frontend")


def test_the_values_node_is_found_by_the_collection_copied_not_by_a_line_of_the_same_text(
        capsys, monkeypatch, tmp_path):
    """`key: nvidia.com/gpu` is written twice (a toleration, a node selector requirement); the finding on the
    requirement names the requirement's node, found as the collection the template copied."""
    values = tmp_path / "placement.yaml"
    values.write_text("worker:\n  tolerations:\n    - key: nvidia.com/gpu\n      operator: Exists\n"
                      "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
                      "        nodeSelectorTerms:\n          - matchExpressions:\n"
                      "              - key: nvidia.com/gpu\n                operator: In\n", encoding="utf-8")
    monkeypatch.chdir(ROOT)
    code = main(["check", "--chart", "charts/cosmos3-reasoner", "-f", "values/nano-fp8.yaml", "-f", str(values)])
    out = capsys.readouterr().out
    assert code == 1
    lines = [line for line in out.splitlines() if " scheduling-spec-invalid " in line]
    assert lines and all(line.startswith(f"{values}:10:17: error") for line in lines), out


def test_a_collection_written_in_two_places_is_told_apart_by_the_collection_around_it(capsys, monkeypatch, tmp_path):
    """The same peer twice in one list, and once more in another file under a disabled setting: each finding
    names the node of the object it is on, found one level up where the lower one is ambiguous."""
    peer = "{ipBlock: {cidr: 10.20.30.40/16}}"
    extra = tmp_path / "extra.yaml"
    extra.write_text("extraObjects:\n  - apiVersion: networking.k8s.io/v1\n    kind: NetworkPolicy\n"
                     "    metadata: {name: extra}\n    spec:\n      podSelector: {}\n      ingress:\n"
                     f"        - from: [{peer}]\n", encoding="utf-8")
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"frontend:\n  networkPolicy:\n    enabled: true\n    from:\n      - {peer}\n      - {peer}\n",
                      encoding="utf-8")
    monkeypatch.chdir(ROOT)
    code = main(["check", "--chart", "charts/cosmos3-reasoner", "-f", "values/nano-fp8.yaml", "-f", str(extra),
                 "-f", str(policy)])
    out = capsys.readouterr().out
    assert code == 1
    places = sorted(line.split(": error")[0] for line in out.splitlines() if " network-policy-invalid " in line)
    assert places == [f"{extra}:8:29", f"{policy}:5:20", f"{policy}:6:20"], out  # at each cidr key


def test_a_value_from_the_chart_s_own_values_file_is_found_there(capsys, monkeypatch, tmp_path):
    chart = demo_chart(tmp_path)
    (tmp_path / chart / "values.yaml").write_text("port: 80\nselector:\n  app: web\n  tier: \"<tier>\"\n")
    with open(tmp_path / chart / "templates" / "service.yaml", "a", encoding="utf-8") as template:
        template.write("  selector:\n    {{- toYaml .Values.selector | nindent 4 }}\n")
    monkeypatch.delenv("DGDLINT_CRD", raising=False)
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--chart", chart])
    out = capsys.readouterr().out
    assert code == 1
    [placeholder] = [line for line in out.splitlines() if " placeholder-value " in line and "<tier>" in line]
    assert placeholder.startswith("charts/demo/values.yaml:4:3: error placeholder-value")


def test_render_out_writes_the_rendered_files_and_findings_cite_their_lines(capsys, monkeypatch, tmp_path):
    chart = demo_chart(tmp_path)
    monkeypatch.delenv("DGDLINT_CRD", raising=False)
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--chart", chart, "--render-out", "rendered"])
    out = capsys.readouterr().out
    rendered = tmp_path / "rendered" / "demo" / "templates" / "service.yaml"
    assert code == 1 and rendered.is_file()
    line = next(n for n, text in enumerate(rendered.read_text().splitlines(), 1) if "<team-name>" in text)
    assert out.splitlines()[0].startswith(f"rendered/demo/templates/service.yaml:{line}:")


def test_without_a_helm_engine_chart_names_the_extra_to_install(capsys, monkeypatch):
    import shutil as shutil_module

    monkeypatch.setitem(sys.modules, "helm_python", None)  # the `helm` extra not installed
    monkeypatch.setattr(shutil_module, "which", lambda name, *a, **k: None)  # and no helm binary on PATH
    code, out, err = run(capsys, monkeypatch, "check", "--chart", "charts/cosmos3-reasoner", "-f",
                         "values/nano-fp8.yaml")
    assert code == 2 and out == ""
    assert "no Helm engine: put the helm binary on PATH, or install the embedded one with pip install " \
           "'dgdlint[helm]'" in err


def test_a_message_about_an_unnamed_entry_never_says_none():
    from dgdlint.engine import check_texts

    manifest = ("apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata: {name: g}\nspec:\n"
                "  pvcs:\n    - create: true\n  services:\n    Worker:\n      componentType: worker\n"
                "      volumeMounts:\n        - {}\n")
    findings = {f.rule: f.message for f in check_texts({"g.yaml": manifest}).findings}
    assert findings["volume-mount-point-missing"] == ("DynamoGraphDeployment g component Worker: volume mount "
                                                      "without a name has no mountPoint")
    assert "spec.pvcs entry without a name has create: true" in findings["pvc-create-incomplete"]
    assert not [message for message in findings.values() if "None" in message.split()]
