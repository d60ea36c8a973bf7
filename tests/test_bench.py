"""`make bench` runs: every measurement is taken, in wall and CPU time (no figure is asserted: speed
targets live in the benchmark's output, never in a timed test)."""

from __future__ import annotations

import json
import subprocess
import sys

from refdata import ROOT


def test_the_benchmark_measures_every_command_in_wall_and_cpu_time(tmp_path):
    out = tmp_path / "figures.json"
    completed = subprocess.run([sys.executable, "-m", "dgdlint.tools.bench", "--files", "2", "--repeat", "1",
                                "--json", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr
    figures = json.loads(out.read_text())
    for name in ("dgdlint_n", "dgdlint_one_process_n", "dgdlint_10n", "dgdlint_startup_version", "dgdlint_one_file",
                 "dgdlint_builtin_n", "libyaml_events_n", "pyyaml_c_load_n"):
        assert figures[name]["wall"] > 0 and figures[name]["cpu"] > 0, name
    assert "growth N to 10N" in completed.stdout
    assert "dgdlint --jobs 1 (one process)" in completed.stdout
    assert "start-up: dgdlint --version" in completed.stdout
    assert "floor, libyaml events only" in completed.stdout


def test_rule_costs_times_every_rule_first_and_after_the_others():
    from dgdlint.rules import REGISTRY
    from dgdlint.tools.rule_costs import measure

    costs = measure([str(ROOT / "examples")], repeat=1)
    assert set(costs) == set(REGISTRY)
    assert all(first > 0 and after > 0 for first, after in costs.values())


def test_rule_costs_prints_the_portable_rules():
    completed = subprocess.run([sys.executable, "-m", "dgdlint.tools.rule_costs", "--repeat", "1", "--top", "200",
                                str(ROOT / "examples")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr
    assert "pod-spec-invalid" in completed.stdout and "yes" in completed.stdout
    assert "each after the others" in completed.stdout
