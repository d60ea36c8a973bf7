"""The rules, registered by importing their modules here (an explicit list, in catalogue order)."""

# The order of this list is the catalogue's (ruff's import sorting is off for it).
from dgdlint.rules import (  # noqa: F401, I001  (imported for their registrations)
    admission,
    metadata,
    claims,
    pods,
    env_sources,
    config_data,
    disruption,
    network_policy,
    ingress,
    cluster_kinds,
    autoscaler,
    storage_class,
    ingress_class,
    persistent_volume,
    rbac,
    quota,
    service,
    coverage,
    scheduling,
    runtime_class,
    security,
    cache,
    claim_binding,
    gpu_fit,
    hygiene,
    autoscaler_target,
    images,
    model_selection,
    streaming,
    video,
    fastvideo,
    webhook_annotations,
    webhook_components,
    webhook_gpu,
    webhook_grove,
    webhook_topology,
)
from dgdlint.rules.registry import REGISTRY, Hit, Rule, run_rules

__all__ = ["REGISTRY", "Hit", "Rule", "run_rules"]
