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


def min_available_defaulted(body: dict, provider: str) -> dict:
    """A DGD's body as the defaulting webhook leaves it for the API server's CEL rules: on the Grove
    pathway every component without minAvailable gets 1 (Default, on create and on update). A changed
    copy, or `body` itself when nothing changes."""
    spec = body.get("spec") if isinstance(body, dict) else None
    if provider != "grove" or not isinstance(spec, dict):
        return body
    key = "components" if isinstance(spec.get("components"), list) else "services"
    entries = spec.get(key)
    items = list(enumerate(entries)) if isinstance(entries, list) else \
        list(entries.items()) if isinstance(entries, dict) else []
    missing = [k for k, c in items if isinstance(c, dict) and c.get("minAvailable") is None]
    if not missing:
        return body
    copied = list(entries) if isinstance(entries, list) else dict(entries)
    for k in missing:
        copied[k] = {**copied[k], "minAvailable": 1}
    return {**body, "spec": {**spec, key: copied}}
