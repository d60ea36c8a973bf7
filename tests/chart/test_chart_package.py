"""Release packaging: Chart.yaml keeps the chart in step with the NIM image and carries the Artifact Hub
metadata; `make package` builds dist/cosmos3-reasoner-<version>.tgz, which loads and renders exactly like
the chart directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import helm_python
import pytest
import yaml
from chart_support import CHART, FRONTEND_IMAGE, NIM_IMAGE, REPO, VALUES_DIR

from dgdlint.render import RenderRequest, user_values
from realtools import require_tool

METADATA = yaml.safe_load((CHART / "Chart.yaml").read_text(encoding="utf-8"))
VALUES = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))
ANNOTATIONS = METADATA["annotations"]


def test_app_version_is_the_default_nim_image_tag():
    assert METADATA["appVersion"] == VALUES["image"]["tag"] == NIM_IMAGE.rsplit(":", 1)[1]


def test_chart_major_and_minor_follow_the_nim_image_and_are_documented():
    major_minor = METADATA["version"].split(".")[:2]
    assert major_minor == METADATA["appVersion"].split(".")[:2]
    assert "-" not in METADATA["version"] and ANNOTATIONS["artifacthub.io/prerelease"] == "false"
    assert "# Version policy (docs/install.md)" in (CHART / "Chart.yaml").read_text(encoding="utf-8")
    install = (REPO / "docs" / "install.md").read_text(encoding="utf-8")
    assert "## Versions" in install and "appVersion" in install


def test_artifact_hub_annotations_list_license_images_links_and_changes():
    assert ANNOTATIONS["artifacthub.io/license"] == "Apache-2.0"
    images = yaml.safe_load(ANNOTATIONS["artifacthub.io/images"])
    assert [image["image"] for image in images] == [NIM_IMAGE, FRONTEND_IMAGE]
    frontend = VALUES["frontend"]["image"]
    assert FRONTEND_IMAGE == f"{frontend['repository']}:{frontend['tag']}"
    links = yaml.safe_load(ANNOTATIONS["artifacthub.io/links"])
    assert links and all(set(link) == {"name", "url"} and link["url"].startswith("https://") for link in links)
    changes = yaml.safe_load(ANNOTATIONS["artifacthub.io/changes"])
    kinds = {"added", "changed", "deprecated", "removed", "fixed", "security"}
    assert changes and all(change["kind"] in kinds and change["description"] for change in changes)


def test_chart_metadata_leaves_helm_lint_nothing_to_say():
    for key in ("home", "icon", "sources", "keywords", "maintainers", "kubeVersion"):
        assert METADATA[key], key
    report = helm_python.lint(str(CHART), None, strict=True)
    assert report.get("messages", []) == [] and not report.get("errors")


@pytest.fixture(scope="module")
def packaged(tmp_path_factory) -> tuple[Path, str]:
    """The archive `make package` builds into a temporary DIST, and what it printed (the Helm 3 CLI of
    `make tools` when built, else the embedded SDK)."""
    dist = tmp_path_factory.mktemp("dist")
    # The install stamp is a file made now, so newer than pyproject.toml: `setup` has nothing to do. (With
    # STAMP=Makefile, a fresh clone whose pyproject.toml was checked out after the Makefile re-ran pip
    # install here, racing the tests that run beside it.)
    stamp = tmp_path_factory.mktemp("stamp") / "installed"
    stamp.touch()
    environment = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
    completed = subprocess.run(["make", "package", f"DIST={dist}", f"STAMP={stamp}",
                                f"BIN={Path(sys.executable).parent}"],
                               cwd=REPO, env=environment, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    built = sorted(dist.glob("*.tgz"))
    assert [path.name for path in built] == [f"cosmos3-reasoner-{METADATA['version']}.tgz"]
    return built[0], completed.stdout


def test_make_package_prints_what_it_packs_with_and_the_archive_not_its_recipe(packaged):
    lines = packaged[1].splitlines()
    assert len(lines) == 2 and lines[0].startswith("packaging with "), packaged[1]
    assert lines[1].endswith(packaged[0].name)


@pytest.fixture(scope="module")
def archive(packaged) -> Path:
    return packaged[0]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_package_uses_the_helm3_cli_that_make_tools_built(packaged):
    helm = require_tool("helm")
    version = subprocess.run([helm, "version", "--short"], capture_output=True, text=True, check=True).stdout.strip()
    assert f"packaging with {Path(helm).relative_to(REPO)} ({version})" in packaged[1]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("helm", ["helm", "helm4"])
def test_both_helm_clis_render_the_archive_exactly_like_the_directory(archive, helm):
    binary = require_tool(helm)
    kube = ["--kube-version", "1.30.0"]
    from_archive = subprocess.run([binary, "template", "prod", str(archive), *kube], capture_output=True, text=True,
                                  check=True).stdout
    from_directory = subprocess.run([binary, "template", "prod", str(CHART), *kube], capture_output=True, text=True,
                                    check=True).stdout
    assert from_archive == from_directory and "kind: DynamoGraphDeployment" in from_archive


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_archive_holds_the_chart_and_nothing_else(archive):
    with tarfile.open(archive) as tar:
        names = set(tar.getnames())
    expected = {str(path.relative_to(CHART.parent)) for path in CHART.rglob("*")
                if path.is_file() and "__pycache__" not in path.parts}
    assert names == expected
    assert "cosmos3-reasoner/values.schema.json" in names and "cosmos3-reasoner/files/smoke.py" in names


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("preset", [None, "nano-fp8-streaming.yaml", "nano-fp8-v1beta1.yaml"])
def test_the_archive_loads_and_renders_exactly_like_the_directory(archive, preset):
    files = [VALUES_DIR / preset] if preset else []
    values = user_values(RenderRequest(CHART, values_files=files, extra_values={
        "ingress": {"enabled": True, "host": "reasoner.example.com", "className": "nginx"},
        "metrics": {"podMonitor": {"enabled": True}}, "worker": {"podDisruptionBudget": {"enabled": True}}}))
    with helm_python.Chart.load(archive) as packed, helm_python.Chart.load(CHART) as directory:
        assert packed.metadata == directory.metadata
        assert packed.render(values, name="prod", namespace="vision", is_install=True) == \
            directory.render(values, name="prod", namespace="vision", is_install=True)


def test_the_install_guide_names_this_versions_archive_and_the_oci_commands():
    install = (REPO / "docs" / "install.md").read_text(encoding="utf-8")
    archive = f"dist/cosmos3-reasoner-{METADATA['version']}.tgz"
    assert f"helm install cosmos3-reasoner {archive}" in install
    assert f"helm push {archive} oci://REGISTRY/charts" in install
    assert f"helm install cosmos3-reasoner oci://REGISTRY/charts/cosmos3-reasoner --version {METADATA['version']}" \
        in install
