"""A release name is refused by the embedded SDK as the Helm CLI refuses it (`helm template` checks it as `helm
install` does: at most 53 characters, a DNS subdomain), with the CLI's message; the oracle is the Helm 3 and
Helm 4 CLIs of `make tools`. A name Helm takes but the chart cannot use (a dot, a leading digit: the Dynamo
operator names Services after it) is refused by the chart, alike under both. An engine asked for by name that
is not there is a usage error, not a crash."""

from __future__ import annotations

import pytest

from dgdlint.render import EngineMissing, RenderError, RenderRequest, render_chart
from realtools import require_tool
from refdata import ROOT

CHART = ROOT / "charts" / "cosmos3-reasoner"
NAMES = {"54 characters": "team-vision-" + "x" * 42, "an underscore": "bad_name", "upper case": "Prod",
         "a trailing dot": "prod."}
TAKEN = {"53 characters": "team-vision-" + "x" * 41, "digits after a letter": "prod-eu-1"}
# Helm takes these, the chart does not (tests/chart/test_chart_operator_names.py says why in full).
CHART_REFUSES = {"dots": ("prod.eu-1", "holds a dot"), "digits first": ("1-prod", 'starts with "1", not a letter')}


def refusal(release: str, engine: str, helm: str = "helm") -> str | None:
    try:
        render_chart(RenderRequest(CHART, release=release), engine=engine, helm=helm)
    except RenderError as error:
        return str(error)
    return None


@pytest.mark.parametrize("helm", ["helm", "helm4"])
@pytest.mark.parametrize("case", list(NAMES))
def test_the_sdk_refuses_a_release_name_the_helm_cli_refuses_with_its_message(case, helm):
    said = f'release name "{NAMES[case]}": invalid release name, must match regex'
    cli, sdk = refusal(NAMES[case], "binary", require_tool(helm)), refusal(NAMES[case], "sdk")
    assert cli is not None and said in cli  # Helm 4 logs it first, then says "release name check failed: ..."
    assert sdk is not None and sdk.startswith(said) and sdk in cli


@pytest.mark.parametrize("case", list(TAKEN))
def test_a_name_the_helm_cli_takes_renders_with_the_sdk(case):
    assert refusal(TAKEN[case], "binary", require_tool("helm")) is None
    assert refusal(TAKEN[case], "sdk") is None


@pytest.mark.parametrize("case", list(CHART_REFUSES))
def test_a_name_helm_takes_but_the_chart_cannot_use_is_refused_by_the_chart_under_both_engines(case):
    release, said = CHART_REFUSES[case]
    cli, sdk = refusal(release, "binary", require_tool("helm")), refusal(release, "sdk")
    assert cli is not None and f'from the release name "{release}"' in cli and said in cli
    assert sdk is not None and f'from the release name "{release}"' in sdk and said in sdk


def test_engine_binary_without_a_helm_binary_says_so(tmp_path):
    with pytest.raises(EngineMissing, match=r"^--engine binary: no .*/no-helm binary on PATH"):
        render_chart(RenderRequest(CHART), engine="binary", helm=str(tmp_path / "no-helm"))


def test_the_command_line_says_it_as_a_usage_error(capsys, monkeypatch):
    from dgdlint.cli import main

    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.chdir(ROOT)
    assert main(["check", "--engine", "binary", "--chart", str(CHART)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("dgdlint check: error: --engine binary: no helm binary")
