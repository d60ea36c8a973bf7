"""The pre-commit hook in a real repository: `pre-commit try-repo` against a scratch repository holding a
GitHub workflow, a Helm values file, a chart and a DGD. Only the DGD is checked; a broken DGD fails the
commit at its line. Slow: pre-commit builds the hook's environment (pip) once per test session."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from refdata import ROOT

pytestmark = pytest.mark.slow

GOOD_DGD = ROOT / "tests" / "rules" / "_base" / "regular-v1alpha1.yaml"
BAD_DGD = ROOT / "tests" / "rules" / "streaming-endpoint-mismatch" / "fail" / "worker-endpoint-differs.yaml"

SCRATCH = {
    ".github/workflows/ci.yaml": "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
                                 "    steps:\n      - run: make test\n",
    "values/production.yaml": "model:\n  variant: nano\n  precision: fp8\nreplicas: 2\n",
    "charts/demo/Chart.yaml": "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
    "charts/demo/values.yaml": "image: nginx\n",
    "charts/demo/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
                                             "  name: {{ .Release.Name }}\n{{- with .Values.extra }}\n"
                                             "  {{- toYaml . | nindent 2 }}\n{{- end }}\n",
    ".pre-commit-config.yaml": "repos: []\n",
}


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not on PATH")
    return tmp_path_factory.mktemp("pre-commit-home")


def scratch_repository(folder: Path, dgd: Path) -> Path:
    for name, text in SCRATCH.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    (folder / "deploy").mkdir()
    (folder / "deploy" / "graph.yaml").write_bytes(dgd.read_bytes())
    for command in (["init", "-q"], ["add", "-A"]):
        subprocess.run(["git", *command], cwd=folder, check=True, capture_output=True)
    return folder


def try_repo(repository: Path, home: Path) -> subprocess.CompletedProcess:
    pre_commit = Path(os.sys.executable).parent / "pre-commit"
    environment = dict(os.environ, PRE_COMMIT_HOME=str(home), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                       GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    return subprocess.run([str(pre_commit), "try-repo", str(ROOT), "dgdlint", "--all-files", "--verbose"],
                          cwd=repository, env=environment, capture_output=True, text=True, timeout=900, check=False)


def test_the_hook_checks_the_dgd_and_leaves_workflow_values_and_chart_alone(tmp_path, pre_commit_home):
    completed = try_repo(scratch_repository(tmp_path, GOOD_DGD), pre_commit_home)
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output
    assert "in 1 file (3 objects" in output


def test_the_hook_fails_a_broken_dgd_at_its_line(tmp_path, pre_commit_home):
    completed = try_repo(scratch_repository(tmp_path, BAD_DGD), pre_commit_home)
    output = completed.stdout + completed.stderr
    assert completed.returncode == 1, output
    assert "deploy/graph.yaml:" in output and "streaming-endpoint-mismatch" in output
    assert "ci.yaml" not in output and "production.yaml" not in output and "deployment.yaml" not in output
