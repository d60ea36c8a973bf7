"""`helm upgrade` from chart 2.1.0 (the last commit before the hook download) to this chart keeps what
users have: for an ordinary release name the DGD and the cache claim keep their names (no redeploy, no
lost cache), and the old download Job is an ordinary release object the new release no longer has, so
Helm deletes it (no orphaned Job) while the new one runs as a hook. Only a release whose name was cut to
31 characters gets a new name (a hash now tells long names apart); the chart README says so. The old
chart is read from this repository's git history; without it the tests skip."""

from __future__ import annotations

import functools
import io
import subprocess
import tarfile
from pathlib import Path

import pytest
import yaml
from chart_support import REPO, hook_of, render

from dgdlint.render import RenderRequest, render_chart

CHART_2_1_0 = "59d88f726ed3ea349d7fa55315411b7ee3b54540"  # main just before the hook download landed


@functools.cache
def _old_chart(tmp: str) -> Path:
    try:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", CHART_2_1_0,
                                  "charts/cosmos3-reasoner"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip(f"chart 2.1.0 is not in this checkout's git history (commit {CHART_2_1_0[:12]})")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tmp, filter="data")
    return Path(tmp) / "charts" / "cosmos3-reasoner"


@pytest.fixture(scope="module")
def old_chart(tmp_path_factory) -> Path:
    return _old_chart(str(tmp_path_factory.mktemp("chart-2.1.0")))


def old_objects(chart: Path, release: str) -> list[dict]:
    templates = render_chart(RenderRequest(chart, release=release), engine="sdk")
    return [doc for t in templates for doc in yaml.safe_load_all(t.text) if doc]


def names(objects, kind: str) -> list[str]:
    return [o["metadata"]["name"] for o in objects if o["kind"] == kind]


def test_the_old_chart_is_version_2_1_0(old_chart):
    assert yaml.safe_load((old_chart / "Chart.yaml").read_text(encoding="utf-8"))["version"] == "2.1.0"


@pytest.mark.parametrize("release", ["cosmos3-reasoner", "prod", "vision-eu-1"])
def test_an_ordinary_release_keeps_its_dgd_and_claim_names(old_chart, release):
    old, new = old_objects(old_chart, release), render(release=release).objects
    assert names(new, "DynamoGraphDeployment") == names(old, "DynamoGraphDeployment")
    assert names(new, "PersistentVolumeClaim") == names(old, "PersistentVolumeClaim")


def test_the_old_download_job_leaves_the_release_and_the_new_one_is_a_hook(old_chart):
    old = old_objects(old_chart, "cosmos3-reasoner")
    (old_job,) = [o for o in old if o["kind"] == "Job"]
    assert hook_of(old_job) == ""  # a release object: Helm deletes it when the new manifest lacks it
    new = render()
    assert [o for o in new.release_objects if o["kind"] == "Job"] == []
    assert hook_of(new.job) == "pre-install,pre-upgrade"
    # The claim is kept: the old manifest marks it, so Helm does not delete it with the old Job.
    (old_claim,) = [o for o in old if o["kind"] == "PersistentVolumeClaim"]
    assert old_claim["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"


def test_the_warm_cache_of_2_1_0_is_recognised(old_chart):
    """Same image and model: the marker 2.1.0 wrote is the one the new Job looks for, so it skips."""
    old = old_objects(old_chart, "cosmos3-reasoner")
    (old_job,) = [o for o in old if o["kind"] == "Job"]
    old_env = {e["name"]: e.get("value") for e in old_job["spec"]["template"]["spec"]["containers"][0]["env"]}
    (download,) = render().job["spec"]["template"]["spec"]["containers"]
    new_env = {e["name"]: e.get("value") for e in download["env"]}
    assert new_env["MODEL_DOWNLOAD_MARKER"] == old_env["MODEL_DOWNLOAD_MARKER"]


def test_only_a_release_whose_name_was_cut_gets_a_new_name(old_chart):
    release = "cosmos3-reasoner-production-us-east-1"
    old, new = old_objects(old_chart, release), render(release=release).objects
    (old_name,) = names(old, "DynamoGraphDeployment")
    (new_name,) = names(new, "DynamoGraphDeployment")
    assert old_name == release[:31].rstrip("-.")
    assert new_name != old_name and new_name.startswith(release[:24])
    # The README tells such a release how to keep its name: the old name as fullnameOverride.
    readme = (REPO / "charts" / "cosmos3-reasoner" / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Upgrading from 2.1.0", 1)[1].split("\n## ", 1)[0]
    assert "--set fullnameOverride=" in section
    kept = render({"fullnameOverride": old_name}, release=release).dgd["metadata"]["name"]
    assert kept == old_name
