"""What dgdlint does not check, said once: a built-in kind whose own API-server validation no rule reads.

Such an object is still checked against Kubernetes' JSON schema and for its metadata, but the server
validates more (a ResourceSlice's devices, a webhook configuration's rules, ...), so a pass here is not
the server's. One note per kind, on its first object."""

from __future__ import annotations

from dgdlint.model import Model
from dgdlint.rules.registry import Hit, rule

# The built-in kinds whose create-time validation the admission rules read (beyond the schema and the
# metadata); a ServiceAccount's validation is its metadata. tests/rules/test_coverage.py holds each one to
# a failing fixture of an admission rule.
MODELLED_KINDS = frozenset({
    "Pod", "Job", "CronJob", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet",
    "PersistentVolumeClaim", "ConfigMap", "Secret", "ServiceAccount",
    "PodDisruptionBudget", "NetworkPolicy", "Ingress", "PriorityClass", "Namespace", "StorageClass",
    "HorizontalPodAutoscaler", "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding", "LimitRange",
    "ResourceQuota", "Service", "PersistentVolume", "RuntimeClass", "IngressClass",
    "ResourceClaim", "ResourceClaimTemplate", "DeviceClass",
})


# Kinds modelled in one version of their group only; the others are still named.
MODELLED_VERSIONS = {"ResourceClaim": "v1", "ResourceClaimTemplate": "v1", "DeviceClass": "v1"}


def modelled(obj) -> bool:
    return obj.kind in MODELLED_KINDS and MODELLED_VERSIONS.get(obj.kind, obj.version) == obj.version


def built_in(obj) -> bool:
    """An object of one of Kubernetes' own API groups (core, apps, batch, policy, autoscaling, *.k8s.io)."""
    return bool(obj.kind) and bool(obj.api_version) and not obj.is_custom


@rule(
    name="kind-validation-not-modelled", code="DGD637", severity="info", family="admission",
    title="Kinds whose API-server validation dgdlint does not read are named",
    rationale="""dgdlint checks every built-in object against Kubernetes' JSON schema and its metadata as
    the server does, and reads the server's own validation of the kinds a deployment of the Reasoner
    uses (workloads, claims, config, policies, services, autoscalers, RBAC, quotas, storage, priority,
    runtime and ingress classes, namespaces, DRA resource claims, claim templates and device classes of
    resource.k8s.io/v1). For any other built-in kind the server validates more than the schema says, so a
    manifest that passes here may still be refused when applied: this note says so instead of passing it
    silently.""",
    remediation="Apply such objects with a server-side dry run (kubectl apply --dry-run=server) to have the "
                "API server judge them, or leave the note: it does not fail the check.",
    reads=("every built-in object's kind",),
)
def kind_validation_not_modelled(model: Model):
    counts: dict[str, list] = {}
    for obj in model.objects:
        if not modelled(obj) and built_in(obj):
            counts.setdefault(obj.kind, []).append(obj)
    for kind, objects in counts.items():
        many = f"{len(objects)} {kind} objects are" if len(objects) > 1 else f"{objects[0].label} is"
        yield Hit(objects[0], ("kind",), f"{many} checked against Kubernetes' schema and object metadata only: the API "
                  f"server's own validation of a {kind} is not read by dgdlint")
