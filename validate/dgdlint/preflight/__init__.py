"""`dgdlint preflight`: before `helm install`, read the cluster (current kube context or --kubeconfig) and say
whether the release can land there: the DGD API versions served and which operator release's CRD they match,
the namespace, the pull and NGC key secrets, the storage class or existing claim with its access modes, the
priority classes, GPU capacity by product against what `dgdlint plan` counts, whether a GPU node admits each
pod that asks for GPUs (its taints tolerated, its node selector and required node affinity met), and the DRA
claim templates, claims and device classes the pods need.

It only reads (get and list) and never prints a secret's data, only whether the named key is there."""

from __future__ import annotations

from dgdlint.preflight.cluster import Cluster, ClusterError
from dgdlint.preflight.report import Check, Report

__all__ = ["Check", "Cluster", "ClusterError", "Report", "run_preflight"]


def run_preflight(cluster, plan, namespace: str, release: str, candidates: dict[str, list[dict]]) -> Report:
    """Every check, in the order a user fixes them. candidates: {label: CRD objects} of operator releases
    to match the cluster's DGD CRD against; with none, the bundled releases are the candidates."""
    from dgdlint.preflight import checks
    from dgdlint.preflight.dra import check_dra
    from dgdlint.preflight.placement import check_gpu_placement

    report = Report(cluster.server, namespace)
    checks.check_api(report, cluster, plan, candidates, None if candidates else checks.bundled_candidates())
    if checks.check_namespace(report, cluster, namespace):
        checks.check_secrets(report, cluster, plan, namespace)
    checks.check_storage(report, cluster, plan, namespace, release)
    checks.check_priority_classes(report, cluster, plan)
    checks.check_gpus(report, cluster, plan)
    check_gpu_placement(report, cluster, plan)
    check_dra(report, cluster, plan, namespace)
    return report
