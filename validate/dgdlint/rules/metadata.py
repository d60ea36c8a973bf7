"""Object metadata as the API server validates it for every object it stores: a name (or generateName)
that is a lowercase RFC 1123 subdomain, label keys and values and annotation keys of Kubernetes' syntax,
and, for custom resources (whose CRD schemas leave metadata to the server), maps where maps belong."""

from __future__ import annotations

from dgdlint.model import Model
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import dns1123_subdomain_problem, label_value_problem, qualified_name_problem

# Built-in kinds whose names are RFC 1123 subdomains (others, such as RBAC roles, allow more).
_SUBDOMAIN_KINDS = {"Pod", "Job", "CronJob", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ConfigMap",
                    "Secret", "PersistentVolumeClaim", "ServiceAccount", "PodDisruptionBudget", "NetworkPolicy",
                    "Ingress"}


def _problems(obj):
    metadata = obj.value.get("metadata")
    custom = obj.is_custom
    if not isinstance(metadata, dict):
        if metadata is not None and custom:
            yield ("metadata",), "metadata must be a mapping"
        yield ("kind",), "has no metadata.name (nor generateName)"  # placed at the kind: no metadata to point at
        return
    name, generate = metadata.get("name"), metadata.get("generateName")
    if name is None and generate is None:
        yield ("metadata",), "has no metadata.name (nor generateName)"
    elif name is not None and not isinstance(name, str):
        if custom:
            yield ("metadata", "name"), "metadata.name must be a string"
    elif isinstance(name, str) and (custom or obj.kind in _SUBDOMAIN_KINDS):
        problem = dns1123_subdomain_problem(name)
        if problem:
            yield ("metadata", "name"), f"metadata.name {problem}"
    for key in ("labels", "annotations"):
        table = metadata.get(key)
        if table is None:
            continue
        if not isinstance(table, dict):
            if custom:  # a built-in kind's schema says so already
                yield ("metadata", key), f"metadata.{key} must be a mapping of strings"
            continue
        yield from table_problems(table, key, ("metadata", key))


def table_problems(table: dict, key: str, at: tuple):
    """A labels or annotations map (`key`): keys and label values of Kubernetes' syntax."""
    for entry, value in table.items():
        problem = qualified_name_problem(str(entry).lower() if key == "annotations" else str(entry))
        if problem:
            yield at + (entry,), f"{key[:-1]} key {str(entry)!r} {problem}"
        elif key == "labels" and isinstance(value, str):
            problem = label_value_problem(value)
            if problem:  # the value of a label is never a secret: shown
                yield at + (entry,), f"label {entry} value {value!r} {problem}"


@rule(
    name="object-metadata-invalid", code="DGD607", severity="error", family="admission",
    title="Names, labels and annotation keys are ones the API server stores",
    rationale="""The API server refuses an object without a name (or generateName), a name that is not a
    lowercase RFC 1123 subdomain (a DynamoGraphDeployment, a Job, a claim), a label key or value or an
    annotation key outside Kubernetes' syntax, and, for a custom resource, metadata whose labels or
    annotations are not mappings. A custom resource's CRD schema does not describe its metadata, so no
    schema check finds these.""",
    remediation="Name the object in lowercase letters, digits, '-' and '.'; keep label keys and values to "
                "letters, digits, '-', '_' and '.' (63 at most).",
    reads=("metadata of every object",),
)
def object_metadata_invalid(model: Model):
    for obj in model.objects:
        for path, problem in _problems(obj):
            yield Hit(obj, path, f"{obj.label}: {problem}")
