"""`--jobs`: files read in worker processes give the set one process reads, document for document and finding
for finding, and a check (whose schema stage a worker runs while dgdlint runs the rules) gives the same
report."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dgdlint import parallel
from dgdlint.engine import PORTABLE_RULES
from dgdlint.load import load_paths
from dgdlint.load.workers import MIN_FILES
from refdata import ROOT

RULE_FIXTURES = ROOT / "tests" / "rules"
HOSTILE = ROOT / "tests" / "hostile" / "inputs"
forks = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="no /proc: dgdlint cannot see its threads "
                           "here, so --jobs checks in one process")


@pytest.fixture
def forking(monkeypatch):
    """pytest-xdist's workers run a thread of their own, so can_fork says no there: these load tests fork anyway
    (the forked workers only read YAML). The dgdlint processes the other tests start have no thread."""
    monkeypatch.setattr(parallel, "can_fork", lambda: True)


def shape(loaded) -> tuple:
    """Everything a LoadResult holds, positions read out."""
    documents = [(d.file, d.index, d.value, d.line, d.column, d.places(), d.has_null, d.whole_floats, d.marks,
                  d.keys) for d in loaded.documents]
    findings = [finding.to_dict() for finding in loaded.findings]
    return documents, findings, loaded.files, loaded.template_syntax, loaded.manifest_like


@forks
@pytest.mark.parametrize("jobs", [2, 3, 0])
def test_workers_read_what_one_process_reads(jobs, forking):
    """Every rule fixture and every hostile input (malformed YAML, alias bombs, bad encodings, List documents,
    merge keys): the same documents, values, positions, flags and findings, in the same order."""
    paths = [str(RULE_FIXTURES), str(HOSTILE)]
    alone = load_paths(paths, jobs=1)
    shared = load_paths(paths, jobs=jobs)
    assert any(d.positions is None for d in shared.documents)  # read by workers: positions still packed
    assert len(alone.documents) > 1000 and alone.findings
    assert shape(shared) == shape(alone)


@forks
def test_a_few_files_are_read_here_after_meanwhile(forking, monkeypatch):
    from dgdlint.load import files as files_module

    files = sorted(str(path) for path in HOSTILE.glob("*.yaml"))[: MIN_FILES - 1]
    order = []
    read = files_module.load_bytes
    monkeypatch.setattr(files_module, "load_bytes", lambda *a: (order.append("read"), read(*a))[1])
    loaded = load_paths(files, jobs=4, meanwhile=lambda: order.append("meanwhile"))
    assert order == ["meanwhile"] + ["read"] * len(files)
    assert all(d.packed is None for d in loaded.documents)  # read here: nothing came back from a worker


@forks
def test_meanwhile_runs_while_workers_read(forking):
    ran = []
    load_paths([str(RULE_FIXTURES)], jobs=2, meanwhile=lambda: ran.append(os.getpid()))
    assert ran == [os.getpid()]


def _check(jobs: str, *paths: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONHASHSEED="0")
    return subprocess.run([sys.executable, "-m", "dgdlint", "check", "--format", "json", "--jobs", jobs, *paths],
                          capture_output=True, text=True, cwd=ROOT, env=environment, timeout=600)


# The first 20 rules' fixtures, and those of the rules a worker may run once it is done with the schema stage.
FIRST_RULES = [str(path.relative_to(ROOT)) for path in sorted(RULE_FIXTURES.iterdir()) if path.is_dir()][:20]
SOME_RULES = sorted(set(FIRST_RULES) | {f"tests/rules/{name}" for name in PORTABLE_RULES})


@forks
@pytest.mark.parametrize("paths", [pytest.param(SOME_RULES, id="some-rules"),
                                   pytest.param(["tests/rules"], id="every-rule", marks=pytest.mark.slow)])
def test_a_check_with_workers_reports_what_one_process_reports(paths):
    alone = _check("1", "tests/hostile/inputs", *paths)
    shared = _check("3", "tests/hostile/inputs", *paths)
    assert alone.returncode == shared.returncode == 1
    assert len(alone.stdout) > 100_000
    assert '"stage": "schema"' in alone.stdout and '"stage": "rule"' in alone.stdout  # a worker ran one of them
    assert shared.stdout == alone.stdout


def test_the_portable_rules_are_rules_with_fixtures():
    from dgdlint.rules import REGISTRY

    assert len(set(PORTABLE_RULES)) == len(PORTABLE_RULES)
    for name in PORTABLE_RULES:
        assert name in REGISTRY
        assert any((RULE_FIXTURES / name / "fail").glob("*.yaml")), name


@pytest.mark.parametrize("value", ["-1", "many", "257"])
def test_a_bad_number_of_jobs_is_a_usage_error(value, tmp_path: Path):
    completed = subprocess.run([sys.executable, "-m", "dgdlint", "check", "--jobs", value, str(tmp_path)],
                               capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert completed.returncode == 2
    assert "--jobs" in completed.stderr and "number of processes" in completed.stderr
    assert "Traceback" not in completed.stderr
