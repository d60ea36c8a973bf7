"""The bundled schemas (schemas/): used with no flag, one release chosen by --dynamo-version or the
configuration, regenerated from the upstream CRDs without drift."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dgdlint.engine import check_texts
from dgdlint.schema import CrdError, SchemaStage
from dgdlint.schema.bundled import bundled_root, choose_release, read_index, release_order
from refdata import CRD_DIR, ROOT, require_reference

V1BETA1_DGD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  components:
    - name: Frontend
      type: frontend
      args: ["--http-port", "8000"]
"""
V1ALPHA1_DGD = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  services:
    Frontend:
      componentType: frontend
      replicas: 1
"""
# Where `make schemas` reads each release's CRDs.
REFERENCE_DIRS = {"1.1.0": CRD_DIR / "releases" / "1.1.0", "1.5.0-dev": CRD_DIR}


def schema_findings(text: str, stage) -> list:
    return [(f.rule, f.line, f.path) for f in check_texts({"m.yaml": text}, stage).findings if f.stage == "schema"]


def test_the_newest_bundled_release_is_used_when_no_crd_is_given():
    stage = SchemaStage()
    assert stage.release.name == "1.5.0-dev"
    assert schema_findings(V1BETA1_DGD, stage) == [("crd-schema", 9, "spec.components[0].args")]


def test_a_release_is_chosen_by_its_name_or_a_prefix_of_it():
    assert SchemaStage(dynamo_version="1.1.0").release.name == "1.1.0"
    assert SchemaStage(dynamo_version="1.1").release.name == "1.1.0"
    assert SchemaStage(dynamo_version="v1.5").release.name == "1.5.0-dev"
    with pytest.raises(CrdError, match=r"--dynamo-version 2.0: no bundled schemas for it \(bundled: 1.1.0, 1.5.0-dev"):
        SchemaStage(dynamo_version="2.0")


def test_a_version_the_release_does_not_serve_is_an_error_naming_the_releases_that_do():
    findings = check_texts({"m.yaml": V1BETA1_DGD}, SchemaStage(dynamo_version="1.1.0")).findings
    [finding] = [f for f in findings if f.stage == "schema"]
    assert (finding.rule, finding.severity, finding.line) == ("crd-version-unknown", "error", 1)
    assert finding.message == ("DynamoGraphDeployment apiVersion nvidia.com/v1beta1 is not served by Dynamo 1.1.0 "
                               "(it serves v1alpha1); bundled releases that serve it: 1.5.0-dev")
    assert "--dynamo-version 1.5.0-dev" in finding.remediation


def test_v1alpha1_is_checked_by_both_releases():
    for release in ("1.1.0", "1.5.0-dev"):
        assert schema_findings(V1ALPHA1_DGD, SchemaStage(dynamo_version=release)) == []


def test_a_crd_given_overrides_the_bundled_schemas(tmp_path):
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "spec": {"group": "nvidia.com", "names": {"kind": "DynamoGraphDeployment"},
                    "versions": [{"name": "v1beta1", "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": {"type": "object",
                                                                 "x-kubernetes-preserve-unknown-fields": True}}}]}}
    (tmp_path / "crd.json").write_text(json.dumps(crd))
    stage = SchemaStage([str(tmp_path / "crd.json")])
    assert stage.release is None and stage.description == "the CRDs given"
    assert schema_findings(V1BETA1_DGD, stage) == []


def test_the_index_records_each_releases_source_and_versions():
    releases = {r.name: r for r in read_index(bundled_root())}
    assert list(releases) == ["1.1.0", "1.5.0-dev"]
    old, new = releases["1.1.0"], releases["1.5.0-dev"]
    assert (old.repository, old.ref, old.commit[:12], old.date) == ("ai-dynamo/dynamo", "v1.1.0", "0dd5374474c4",
                                                                   "2026-05-04")
    assert (new.ref, new.commit[:12], new.date) == ("main", "2a6da14c8361", "2026-08-21")
    dgd = "DynamoGraphDeployment"
    assert (old.kinds[dgd]["served"], old.kinds[dgd]["storage"]) == (["v1alpha1"], "v1alpha1")
    assert new.kinds[dgd]["served"] == ["v1alpha1", "v1beta1"]
    assert (new.kinds[dgd]["deprecated"], new.kinds[dgd]["storage"]) == (["v1alpha1"], "v1beta1")
    assert set(new.kinds) == set(old.kinds) == {dgd, "DynamoGraphDeploymentRequest", "DynamoComponentDeployment"}
    for release in releases.values():
        for entry in release.kinds.values():
            for version, relative in entry["files"].items():
                assert relative == f"{release.name}/nvidia.com/{entry['source']['file'][11:-6]}_{version}.json"
                assert (bundled_root() / relative).is_file()


def test_bundled_schemas_are_structure_only_and_keep_what_checking_needs():
    text = (bundled_root() / "1.5.0-dev/nvidia.com/dynamographdeployment_v1beta1.json").read_text()
    assert '"description"' not in text.replace('"description": {', "")  # a field named description may exist
    for kept in ("x-kubernetes-validations", "x-kubernetes-list-type", "x-kubernetes-list-map-keys",
                 "x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields"):
        assert kept in text


def test_releases_sort_by_number_with_a_pre_release_before_its_release():
    names = ["1.10.0", "1.5.0", "1.1.0", "1.5.0-dev"]
    assert sorted(names, key=release_order) == ["1.1.0", "1.5.0-dev", "1.5.0", "1.10.0"]
    assert choose_release(read_index(bundled_root()), None).name == "1.5.0-dev"


def test_regenerating_the_bundled_schemas_gives_the_committed_files(tmp_path):
    """`make schemas` from the upstream CRDs must reproduce schemas/ byte for byte (no drift)."""
    require_reference(CRD_DIR)
    index = json.loads((ROOT / "schemas" / "index.json").read_text())
    for name, release in index["releases"].items():
        command = [sys.executable, "-m", "dgdlint", "schemas", "write", "--out", str(tmp_path), "--release", name,
                   "--repository", release["repository"], "--ref", release["ref"], "--commit", release["commit"],
                   "--date", release["date"]]
        for entry in release["kinds"].values():
            command += ["--crd", str(require_reference(REFERENCE_DIRS[name] / entry["source"]["file"]))]
        completed = subprocess.run(command, capture_output=True, text=True, check=False)
        assert completed.returncode == 0, completed.stderr
    regenerated = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.json"))
    committed = sorted(p.relative_to(ROOT / "schemas") for p in (ROOT / "schemas").rglob("*.json"))
    assert regenerated == committed
    for relative in committed:
        assert (tmp_path / relative).read_bytes() == (ROOT / "schemas" / relative).read_bytes(), relative


def run_dgdlint(cwd, *args) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ)
    env.pop("DGDLINT_CRD", None)
    return subprocess.run([sys.executable, "-m", "dgdlint", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False, timeout=120)


def test_check_diff_and_plan_take_the_release_from_the_flag_or_the_configuration(tmp_path):
    (tmp_path / "dgd.yaml").write_text(V1BETA1_DGD.replace('      args: ["--http-port", "8000"]\n', ""))
    not_served = "crd-version-unknown DynamoGraphDeployment apiVersion nvidia.com/v1beta1 is not served by Dynamo 1.1.0"
    for command in (["check", "dgd.yaml"], ["diff", "dgd.yaml", "dgd.yaml"], ["plan", "dgd.yaml"]):
        assert not_served in run_dgdlint(tmp_path, *command, "--dynamo-version", "1.1.0").stdout, command
        assert not_served not in run_dgdlint(tmp_path, *command).stdout, command
    (tmp_path / ".dgdlint.yaml").write_text('dynamo-version: "1.1.0"\n')
    for command in (["check", "dgd.yaml"], ["diff", "dgd.yaml", "dgd.yaml"], ["plan", "dgd.yaml"]):
        assert not_served in run_dgdlint(tmp_path, *command).stdout, command
    completed = run_dgdlint(tmp_path, "check", "dgd.yaml", "--dynamo-version", "9")
    assert completed.returncode == 2 and "--dynamo-version 9: no bundled schemas for it" in completed.stderr


def test_the_text_report_says_once_which_release_was_used(tmp_path):
    (tmp_path / "dgd.yaml").write_text(V1BETA1_DGD)
    out = run_dgdlint(tmp_path, "check", "dgd.yaml").stdout
    assert out.count("Dynamo 1.5.0-dev") == 1
    assert out.splitlines()[-1].endswith("(1 object; schema checked against Dynamo 1.5.0-dev schemas (bundled))")


def test_schemas_list_shows_every_bundled_release_newest_first(tmp_path):
    completed = run_dgdlint(tmp_path, "schemas", "list")
    assert completed.returncode == 0
    lines = completed.stdout.splitlines()
    assert lines[0] == "1.5.0-dev  (default)  ai-dynamo/dynamo main 2a6da14c8361  2026-08-21"
    assert "  nvidia.com/DynamoGraphDeployment: v1alpha1 (deprecated), v1beta1 (storage)" in lines
    assert "1.1.0  ai-dynamo/dynamo v1.1.0 0dd5374474c4  2026-05-04" in lines
