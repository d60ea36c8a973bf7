"""`dgdlint preflight` without a cluster: usage errors, exit code 2, one line, no traceback (the checks
themselves run against a real API server in tests/cluster/test_preflight.py)."""

from __future__ import annotations

from dgdlint.cli import main

CHART = "charts/cosmos3-reasoner"


def test_an_unreadable_kubeconfig_is_a_usage_error_naming_it(tmp_path, capsys):
    missing = tmp_path / "absent-kubeconfig"
    assert main(["preflight", "--chart", CHART, "--kubeconfig", str(missing)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"dgdlint preflight: error: cannot read the cluster: no usable kube context in {missing}:")
    assert error.count("\n") == 1 and "Traceback" not in error


def test_preflight_needs_a_chart_or_manifests(capsys):
    assert main(["preflight"]) == 2
    assert capsys.readouterr().err == "dgdlint preflight: error: give at least one PATH (or - for stdin), or " \
                                      "--chart DIR\n"
