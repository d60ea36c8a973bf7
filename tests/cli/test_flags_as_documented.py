"""The flags of `dgdlint --help` do what the help says, and a malformed value of one is a usage error (exit 2,
one line naming the flag), never an internal error or a value silently ignored."""

from __future__ import annotations

import pytest

from dgdlint.cli import main
from refdata import ROOT

BASE = ROOT / "tests" / "rules" / "_base" / "regular-v1alpha1.yaml"


def run(capsys, monkeypatch, *argv) -> tuple[int, str, str]:
    monkeypatch.delenv("DGDLINT_CRD", raising=False)
    monkeypatch.chdir(ROOT)
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("command", ["check", "plan", "diff"])
@pytest.mark.parametrize("version, said", [
    ("abc", "--kubernetes-version 'abc': give MAJOR.MINOR, such as 1.31"),
    ("1", "--kubernetes-version '1': give MAJOR.MINOR, such as 1.31"),
    ("1.20", "--kubernetes-version 1.20: the built-in schemas start at Kubernetes 1.25"),
])
def test_a_kubernetes_version_without_schemas_is_a_usage_error(capsys, monkeypatch, command, version, said):
    paths = [BASE, BASE] if command == "diff" else [BASE]
    code, out, err = run(capsys, monkeypatch, command, "--kubernetes-version", version, *paths)
    assert (code, out) == (2, "")
    assert err == f"dgdlint {command}: error: {said}\n"


@pytest.mark.parametrize("version", ["1.31", "v1.31.2", "1.25", "1.99"])
def test_a_kubernetes_version_as_written_by_kubectl_version_is_taken(capsys, monkeypatch, version):
    code, out, _ = run(capsys, monkeypatch, "check", "--kubernetes-version", version, BASE)
    assert code == 0 and out.startswith("0 errors")


@pytest.mark.parametrize("argv", [["check", "--bogus", BASE], ["rules", "extra"], ["plan", BASE, "--nope=1"]])
def test_an_unknown_flag_is_said_by_the_command_with_its_usage(capsys, monkeypatch, argv):
    code, out, err = run(capsys, monkeypatch, *argv)
    unknown = next(str(word) for word in argv[1:] if str(word).startswith("-") or word == "extra")
    assert (code, out) == (2, "")
    assert err.startswith(f"usage: dgdlint {argv[0]} ")
    assert err.endswith(f"dgdlint {argv[0]}: error: unrecognized arguments: {unknown}\n")


def test_render_prints_the_manifests_and_takes_no_render_out(capsys, monkeypatch, tmp_path):
    """--render-out is for the commands that read the render back; `render` accepted it and wrote nothing."""
    code, out, err = run(capsys, monkeypatch, "render", "--chart", "charts/cosmos3-reasoner", "--render-out", tmp_path)
    assert (code, out) == (2, "") and not list(tmp_path.iterdir())
    assert err.endswith(f"dgdlint render: error: unrecognized arguments: --render-out {tmp_path}\n")
    code, out, err = run(capsys, monkeypatch, "render")
    assert (code, out) == (2, "")
    assert err == "dgdlint render: error: render needs --chart CHART (a chart directory or a packaged .tgz)\n"


def test_dgdlint_rules_lists_every_name_a_configuration_accepts_in_each_format(capsys, monkeypatch):
    """A configuration that names no rule is told `(see dgdlint rules)`: the stage findings (no-objects,
    kubernetes-list-duplicate, ...) are names it takes, so every format of the catalogue lists them."""
    import json

    from dgdlint.rules.catalogue import known_names

    code, text, _ = run(capsys, monkeypatch, "rules")
    assert code == 0
    assert {line.split()[1] for line in text.splitlines() if len(line.split()) > 1} >= known_names()
    assert "parse   no-objects " in text and "schema  kubernetes-list-duplicate " in text
    code, out, _ = run(capsys, monkeypatch, "rules", "--format", "json")
    listed = json.loads(out)
    assert code == 0 and {entry["name"] for entry in listed} == known_names()
    assert {entry["stage"] for entry in listed if entry["code"] is None} == {"parse", "schema", "rule"}
    code, out, _ = run(capsys, monkeypatch, "rules", "--format", "markdown")
    assert code == 0 and all(f"`{name}`" in out for name in known_names())


def test_the_readme_names_the_formats_each_command_takes():
    import re

    from dgdlint.commands import build_parser

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    subparsers = next(a for a in build_parser()._actions if a.dest == "command").choices
    for command, said in [("check", r"- `--format ([a-z|]+)`"), ("diff", r"- `--format ([a-z|]+)`"),
                          ("plan", r"`plan` takes\s+`--format ([a-z|]+)`")]:
        [formats] = re.findall(said, readme)
        assert tuple(formats.split("|")) == subparsers[command].get_default("format_choices"), command


def test_a_schema_finding_in_text_names_its_field_first(capsys, monkeypatch, tmp_path):
    """A rule's message names its object and field; a schema finding's ("must be integer") did not, in text,
    where JSON, SARIF and GitHub carry the path."""
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: 1\n")
    code, out, _ = run(capsys, monkeypatch, "check", manifest)
    assert code == 1
    assert out.startswith(f"{manifest}:6:3: error kubernetes-schema data.a: must be string or null, got an integer")


@pytest.mark.parametrize("name, uri", [("my manifests/a b.yaml", "my%20manifests/a%20b.yaml"),
                                       ("50%:x,y.yaml", "50%25%3Ax%2Cy.yaml"), ("plain/dgd.yaml", "plain/dgd.yaml")])
def test_sarif_names_a_file_by_a_valid_uri_reference(capsys, monkeypatch, tmp_path, name, uri):
    """SARIF's artifactLocation.uri is a URI: a space or a `%` is encoded, and a `:` in the first segment
    would read as a scheme. The file comes back from the URI as it was named."""
    import json
    import re
    from urllib.parse import unquote

    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: 1\n")
    monkeypatch.delenv("DGDLINT_CRD", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--format", "sarif", name]) == 1
    [result] = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    written = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert written == uri and unquote(written) == name
    assert re.fullmatch(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=@/]|%[0-9A-F]{2})+", written)  # RFC 3986 path characters
    assert ":" not in written.split("/")[0]


@pytest.mark.parametrize("command", ["check", "plan", "render", "preflight"])
def test_a_namespace_no_namespace_can_have_is_a_usage_error(capsys, monkeypatch, command):
    """The objects that name none would land in it: the API server refuses them all, so it is said at once."""
    paths = ["--chart", "charts/cosmos3-reasoner"] if command == "render" else [BASE]
    code, out, err = run(capsys, monkeypatch, command, "--namespace", "ML_Serving", *paths)
    assert (code, out) == (2, "")
    assert err.endswith(f"dgdlint {command}: error: argument --namespace: 'ML_Serving' is no namespace name: it "
                        "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter "
                        "or digit\n")


@pytest.mark.parametrize("command", ["check", "plan"])
def test_render_out_without_a_chart_is_a_usage_error(capsys, monkeypatch, tmp_path, command):
    """--render-out writes the chart's render: without a chart it was silently ignored."""
    code, out, err = run(capsys, monkeypatch, command, "--render-out", tmp_path / "rendered", BASE)
    assert (code, out) == (2, "") and not (tmp_path / "rendered").exists()
    assert err == f"dgdlint {command}: error: --render-out needs --chart (it is where the chart's render is written)\n"
    code, _, _ = run(capsys, monkeypatch, command, "--render-out", tmp_path / "rendered", "charts/cosmos3-reasoner")
    assert code in (0, 1) and (tmp_path / "rendered").is_dir()  # a chart given as a PATH counts
