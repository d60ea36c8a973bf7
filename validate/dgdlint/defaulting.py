"""What the Dynamo operator's defaulting (mutating) webhook writes into a DynamoGraphDeployment before the
validating webhook and the API server's CEL rules see it (webhook/defaulting/dynamographdeployment_handler.go):
the workload provider, and minAvailable on the Grove pathway."""

from __future__ import annotations

from dgdlint.model import as_str

ENABLE_GROVE = "nvidia.com/enable-grove"
WORKLOAD_PROVIDER = "nvidia.com/workload-provider"


def provider_at_create(annotations: dict) -> str:
    """The workload provider the defaulting webhook writes on create (defaultWorkloadProvider), whatever
    `nvidia.com/workload-provider` the manifest has: grove unless `nvidia.com/enable-grove` is "false" in
    any case (dgdlint assumes the operator runs with Grove enabled)."""
    enable = as_str(annotations.get(ENABLE_GROVE))
    return "component" if enable is not None and enable.lower() == "false" else "grove"


def stored_provider(previous) -> str:
    """The workload provider kept for an existing graph, from the manifest it was created or last applied
    with: the one it names, else the one the defaulting webhook wrote at create."""
    written = as_str(previous.annotations.get(WORKLOAD_PROVIDER))
    return written if written is not None else provider_at_create(previous.annotations)
