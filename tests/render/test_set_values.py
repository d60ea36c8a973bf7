"""`--set` and `--set-string` as the Helm CLI applies them, with the embedded SDK too: each expression is
written into the values the `-f` files gave (Helm's strvals.ParseInto), so a list item a file holds keeps
its other keys, and two expressions on one item both apply. The oracle is the Helm 3 and Helm 4 CLIs (built
by `make tools`): a chart whose only template prints `.Values` as JSON is rendered by each CLI and by the
SDK with the same files and expressions, and the values must be the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dgdlint.render import RenderError, RenderRequest, render_chart
from realtools import require_tool

CHART_DEFAULTS = "items:\n  - {k: default}\nnested: {keep: 1}\n"
FILE = """list:
  - {a: 1, b: 2}
  - {a: 3}
map: {x: 1, y: 2}
grid: [[1, 2], [3]]
"""

CASES = {
    "two expressions on one list item": ((), ("list[0].a=1", "list[0].b=2"), ()),
    "one key of a file's list item": ((FILE,), ("list[0].b=9",), ()),
    "an item past a file's list": ((FILE,), ("list[3].a=5",), ()),
    "a list literal replaces a file's list": ((FILE,), ("list={p,q}",), ()),
    "a nested list item": ((FILE,), ("grid[1][2]=z", "grid[0][0]=y"), ()),
    "a map key beside a file's keys": ((FILE,), ("map.z=3", "map.x=null"), ()),
    "escaped dots, commas and equals in values": ((), ("a\\.b=1", "c=x\\,y", "e=A=B"), ()),
    "one expression with several keys": ((FILE,), ("list[0].a=7,list[1].c=true,n=0,m=007",), ()),
    "strings from --set-string after --set": ((FILE,), ("s=1", "list[0].a=2"), ("s=0012", "list[0].b=true")),
    "a chart default list replaced by an index": ((), ("items[0].v=1",), ()),
    "a map under a chart default map": ((), ("nested.add=2",), ()),
    "empty values": ((), ("a=", "b=,c=1", "l={}"), ()),
    "two files then an index": ((FILE, "list:\n  - {only: x}\n"), ("list[0].more=y",), ()),
    "an index with no value": ((FILE,), ("list[0]", "grid[0][0]", "fresh[0]"), ()),
    "an index and a dot with no value": ((FILE,), ("list[1].", "list[5].", "list[0].c."), ()),
    "an empty key under a file's map": ((FILE,), ("map.=1", "map..b=2"), ("map.=3",)),
}
REFUSED = {
    "a key under a list": ((FILE,), ("list.b=1",), ()),
    "an index into a map": ((FILE,), ("map[0]=1",), ()),
    "a malformed expression": ((), ("list[x]=1",), ()),
    "a key under a number": ((FILE,), ("list[0].b.c=1",), ()),
    "an empty key under a fresh map": ((), ("fresh.=1",), ()),
}


@pytest.fixture(scope="module")
def values_chart(tmp_path_factory) -> Path:
    chart = tmp_path_factory.mktemp("values-chart")
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: show-values\nversion: 0.1.0\n", encoding="utf-8")
    (chart / "values.yaml").write_text(CHART_DEFAULTS, encoding="utf-8")
    (chart / "templates").mkdir()
    (chart / "templates" / "values.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: values}\ndata:\n  values: {{ toJson .Values | quote }}\n",
        encoding="utf-8")
    return chart


def rendered_values(chart: Path, files: tuple[str, ...], sets, set_strings, engine: str, helm: str = "helm"):
    paths = []
    for index, text in enumerate(files):
        path = chart.parent / f"{chart.name}-values-{index}.yaml"
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    request = RenderRequest(chart, values_files=paths, set_values=sets, set_string_values=set_strings)
    [template] = render_chart(request, engine=engine, helm=helm)
    import yaml

    return json.loads(yaml.safe_load(template.text)["data"]["values"])


@pytest.mark.parametrize("helm", ["helm", "helm4"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_sdk_applies_set_expressions_as_the_helm_cli_does(values_chart, case, helm):
    files, sets, set_strings = CASES[case]
    cli = rendered_values(values_chart, files, sets, set_strings, "binary", require_tool(helm))
    assert rendered_values(values_chart, files, sets, set_strings, "sdk") == cli


@pytest.mark.parametrize("case", list(REFUSED))
def test_an_expression_the_helm_cli_refuses_is_refused_with_the_sdk(values_chart, case):
    files, sets, set_strings = REFUSED[case]
    with pytest.raises(RenderError):
        rendered_values(values_chart, files, sets, set_strings, "binary", require_tool("helm"))
    with pytest.raises(RenderError):
        rendered_values(values_chart, files, sets, set_strings, "sdk")


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_expression_is_named_with_its_flag(values_chart, case):
    """The CLI says "failed parsing --set data: ..." (for some, a Go interface conversion); the SDK names the
    expression it refuses, and --set-string as --set-string."""
    import re

    files, sets, set_strings = REFUSED[case]
    for flag, expressions in (("--set", sets), ("--set-string", sets)):
        named = (expressions, ()) if flag == "--set" else ((), expressions)
        with pytest.raises(RenderError, match=f"^failed parsing {flag} {re.escape(expressions[0])}: "):
            rendered_values(values_chart, files, *named, "sdk")


def test_a_failure_on_a_value_from_set_names_the_expression_not_the_values_file(tmp_path):
    """The values file holds the key too (another value): the one Helm refused came from --set, so the finding
    stays at the chart and says so; with no --set it is placed at the file's line."""
    from dgdlint.render import render_finding

    values = tmp_path / "values.yaml"
    values.write_text("worker:\n  extraEnv:\n    - name: T\n      valueFrom:\n        fileKeyRef: {path: t.env}\n",
                      encoding="utf-8")
    message = ("values don't meet the specifications of the schema(s) in the following chart(s): cosmos3-reasoner: "
               "- at '/worker/extraEnv/0/valueFrom/fileKeyRef/path': '../x' does not match pattern")
    from_set = render_finding("charts/cosmos3-reasoner", message, [str(values)],
                              [("--set", "worker.extraEnv[0].valueFrom.fileKeyRef.path")])
    assert (from_set.file, from_set.line) == ("charts/cosmos3-reasoner", 1)
    assert from_set.message.endswith("(the value comes from --set worker.extraEnv[0].valueFrom.fileKeyRef.path)")
    from_file = render_finding("charts/cosmos3-reasoner", message, [str(values)], [])
    assert (from_file.file, from_file.line) == (str(values), 5)
    assert "--set" not in from_file.message


GPUS_SCHEMA = "at '/model/gpus': got string, want null or integer"
GPUS_CHECK = 'model.gpus 3 is not supported for variant "nano" precision "fp8"'
ATTRIBUTED = {  # the flags as given -> what the chart refuses, and the flag and key the finding names
    "--set-string over --set": (("--set", "model.gpus=1", "--set-string", "model.gpus=1"),
                                GPUS_SCHEMA, "--set-string model.gpus"),
    "--set-string first on the command line, still applied last": (
        ("--set-string", "model.gpus=1", "--set", "model.gpus=1"), GPUS_SCHEMA, "--set-string model.gpus"),
    "--set, beside a --set-string of another key": (
        ("--set", "model.gpus=3", "--set-string", "model.precision=fp8,mode=regular"), GPUS_CHECK, "--set model.gpus"),
    "one key among several of an expression": (("--set", "mode=regular,model.gpus=1", "--set-string",
                                                "model.variant=nano,model.gpus=1"), GPUS_SCHEMA,
                                               "--set-string model.gpus"),
    # a key with an escaped dot and a slash: the schema's pointer writes the slash as ~1
    "a label key as a key": (("--set", "worker.nodeSelector.kubernetes\\.io/os=1"),
                             "at '/worker/nodeSelector/kubernetes.io~1os': got number, want string",
                             "--set worker.nodeSelector.kubernetes\\.io/os"),
}


@pytest.mark.parametrize("engine", ["helm", "helm4", "sdk"])
@pytest.mark.parametrize("case", list(ATTRIBUTED))
def test_a_refused_value_is_attributed_to_the_flag_that_set_it_last(capsys, monkeypatch, tmp_path, case, engine):
    """Helm applies the -f files, then every --set, then every --set-string (pkg/cli/values), whatever their
    order on the command line: a --set-string of a key a --set also gives is the value the chart gets, and the
    helm-render finding names that flag. The same with the Helm 3 and 4 CLIs and the embedded SDK."""
    from dgdlint.cli import main
    from refdata import ROOT

    flags, refused, named = ATTRIBUTED[case]
    if engine != "sdk":
        (tmp_path / "helm").symlink_to(require_tool(engine))
        monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    monkeypatch.chdir(ROOT)
    code = main(["check", "--engine", "sdk" if engine == "sdk" else "binary", "--chart", "charts/cosmos3-reasoner",
                 "-f", "values/nano-fp8.yaml", "--format", "json", *flags])
    [finding] = json.loads(capsys.readouterr().out)["findings"]
    assert code == 1 and finding["rule"] == "helm-render" and refused in finding["message"]
    assert finding["message"].endswith(f"(the value comes from {named})")
    assert (finding["file"], finding["line"]) == ("charts/cosmos3-reasoner", 1)
