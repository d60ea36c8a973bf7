"""The wheel ships the bundled schemas: installed elsewhere and run in another folder, dgdlint checks a DGD
against them with no flag and nothing beside it."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest

from refdata import ROOT

BROKEN_DGD = """\
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


@pytest.mark.slow
def test_an_installed_wheel_fails_an_unknown_field_with_its_bundled_schemas(tmp_path):
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path / "dist"),
                            str(ROOT)], capture_output=True, text=True, check=False, timeout=600)
    assert built.returncode == 0, built.stderr
    [wheel] = (tmp_path / "dist").glob("dgdlint-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")
    assert "dgdlint/schemas/index.json" in names
    assert "dgdlint/schemas/1.5.0-dev/nvidia.com/dynamographdeployment_v1beta1.json" in names
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "dgd.yaml").write_text(BROKEN_DGD)
    # The unpacked wheel comes first on the path; the dependencies are this environment's.
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    env.pop("DGDLINT_CRD", None)
    completed = subprocess.run([sys.executable, "-c", "import sys, dgdlint, dgdlint.cli; print(dgdlint.__file__); "
                                "sys.exit(dgdlint.cli.main(['check', 'dgd.yaml']))"],
                               cwd=elsewhere, env=env, capture_output=True, text=True, check=False, timeout=120)
    lines = completed.stdout.splitlines()
    assert lines[0].startswith(str(tmp_path / "site")), lines[0]
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert ("dgd.yaml:9:7: error crd-schema spec.components[0].args: unknown field 'args' "
            "[CRD DynamoGraphDeployment v1beta1]") in lines
    assert "skipped" not in completed.stdout
    assert lines[-1].endswith("schema checked against Dynamo 1.5.0-dev schemas (bundled))")
