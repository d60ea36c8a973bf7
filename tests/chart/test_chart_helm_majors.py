"""Both Helm majors, for real: every preset renders to the same objects with the embedded Helm SDK, the
Helm 3 CLI and the Helm 4 CLI (built by `make tools`), and `helm lint --strict` passes with both CLIs.
Every CLI is given the Kubernetes version the SDK renders for, so the three renderings are comparable."""

from __future__ import annotations

import functools
import re
import subprocess

import pytest
import yaml
from chart_support import CHART, REPO, preset_files

from dgdlint.render import RenderRequest, render_chart, sdk_kube_version
from realtools import require_tool

FEATURES_ON = {"ingress": {"enabled": True, "host": "reasoner.example.com", "className": "nginx"},
               "metrics": {"podMonitor": {"enabled": True}}, "worker": {"podDisruptionBudget": {"enabled": True}}}
CASES = [pytest.param(None, None, id="default-values"),
         pytest.param(None, FEATURES_ON, id="default-values-features-on"),
         *[pytest.param(path.name, None, id=path.stem) for path in preset_files()]]


@functools.lru_cache(maxsize=1)
def kube_version() -> str:
    return sdk_kube_version()


def objects_by_source(templates) -> list[tuple[str, dict]]:
    """(template, object) pairs in render order; empty documents dropped, as Helm drops them on install."""
    return [(template.source, document) for template in templates
            for document in yaml.safe_load_all(template.text) if document]


def render_three_ways(preset: str | None, extra: dict | None) -> dict[str, list[tuple[str, dict]]]:
    request = RenderRequest(CHART, values_files=[REPO / "values" / preset] if preset else [], release="prod",
                            namespace="vision", extra_values=extra, kube_version=kube_version())
    return {
        "sdk": objects_by_source(render_chart(request, engine="sdk")),
        "helm3": objects_by_source(render_chart(request, engine="binary", helm=require_tool("helm"))),
        "helm4": objects_by_source(render_chart(request, engine="binary", helm=require_tool("helm4"))),
    }


@pytest.mark.parametrize(("preset", "extra"), CASES)
def test_the_sdk_the_helm3_cli_and_the_helm4_cli_render_the_same_objects(preset, extra):
    rendered = render_three_ways(preset, extra)
    assert rendered["sdk"], "the SDK rendered nothing"
    assert rendered["helm3"] == rendered["sdk"]
    assert rendered["helm4"] == rendered["sdk"]


@pytest.mark.parametrize("helm", ["helm", "helm4"])
def test_each_cli_is_the_pinned_release_and_needs_no_kube_version_flag(helm):
    """Helm 3 built without its Makefile's -X flags calls itself "v3.22" and believes Kubernetes is 1.20,
    which the chart's kubeVersion (>=1.28.0-0) refuses; tools/build.sh sets them."""
    folder, module = {"helm": ("helm3", "helm.sh/helm/v3"), "helm4": ("helm4", "helm.sh/helm/v4")}[helm]
    go_mod = (REPO / "tools" / folder / "go.mod").read_text(encoding="utf-8")
    pinned = re.search(rf"^\s*{re.escape(module)} (v\S+)", go_mod, re.MULTILINE).group(1)
    binary = require_tool(helm)
    version = subprocess.run([binary, "version", "--short"], capture_output=True, text=True, check=True).stdout
    assert version.strip().split("+")[0] == pinned
    plain = subprocess.run([binary, "template", "r", str(CHART)], capture_output=True, text=True, check=False)
    assert plain.returncode == 0, plain.stderr


@pytest.mark.parametrize("helm", ["helm", "helm4"])
@pytest.mark.parametrize("preset", [None, *[path.name for path in preset_files()]])
def test_helm_lint_strict_passes_with_each_cli(helm, preset):
    command = [require_tool(helm), "lint", "--strict", str(CHART), "--kube-version", kube_version()]
    if preset:
        command += ["-f", str(REPO / "values" / preset)]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "0 chart(s) failed" in completed.stdout
    assert "[WARNING]" not in completed.stdout and "[ERROR]" not in completed.stdout


def test_the_readme_names_the_helm_versions_the_tests_build():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for folder, module in (("helm3", "helm.sh/helm/v3"), ("helm4", "helm.sh/helm/v4")):
        go_mod = (REPO / "tools" / folder / "go.mod").read_text(encoding="utf-8")
        pinned = re.search(rf"^\s*{re.escape(module)} v(\S+)", go_mod, re.MULTILINE).group(1)
        assert f"Helm {pinned}" in readme and f"`{module}` v{pinned}" in readme
