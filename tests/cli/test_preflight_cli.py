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
                                      "--chart CHART\n"


def test_the_device_classes_of_a_claim_are_its_exact_requests_and_every_alternative():
    """resource.k8s.io/v1: a request is `exactly` one class or a list of `firstAvailable` alternatives; a
    claim holds its requests under spec.devices, a template under spec.spec.devices."""
    from dgdlint.preflight.dra import device_class_names

    devices = {"requests": [{"name": "one", "exactly": {"deviceClassName": "gpu.nvidia.com"}},
                            {"name": "any", "firstAvailable": [{"name": "big", "deviceClassName": "mig-big"},
                                                               {"name": "small", "deviceClassName": "mig-small"}]},
                            {"name": "broken", "exactly": {}}, "not a request"]}
    wanted = {"gpu.nvidia.com", "mig-big", "mig-small"}
    assert device_class_names("ResourceClaim", {"spec": {"devices": devices}}) == wanted
    assert device_class_names("ResourceClaimTemplate", {"spec": {"spec": {"devices": devices}}}) == wanted
    assert device_class_names("ResourceClaimTemplate", {"spec": {"devices": devices}}) == set()
    assert device_class_names("ResourceClaim", {"spec": None}) == set()
