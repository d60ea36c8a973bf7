"""Object metadata as the API server validates it for every object it stores (written from apimachinery's
ValidateObjectMeta and the core validation's finalizer check, v1.37): a name (or generateName) that is a
lowercase RFC 1123 subdomain (an RBAC role's or binding's: one URL path segment; a Service's and a
Namespace's: a DNS label), label keys and values and annotation keys of Kubernetes' syntax, annotations of at
most 256 KiB, finalizers that are qualified names (a built-in kind's: a standard one or one with a domain),
owner references with what they need and one controller at most, and, for custom resources (whose CRD schemas
leave metadata to the server), maps where maps belong."""

from __future__ import annotations

from dgdlint.cosmos import placeholder_in
from dgdlint.go_time import rfc3339_problem
from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import (
    dns1035_label_problem,
    dns1123_label_problem,
    dns1123_subdomain_problem,
    label_value_problem,
    path_segment_name_problem,
    qualified_name_problem,
)

# Built-in kinds whose names are RFC 1123 subdomains (others, such as RBAC roles, allow more).
_SUBDOMAIN_KINDS = {"Pod", "Job", "CronJob", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ConfigMap",
                    "Secret", "PersistentVolumeClaim", "ServiceAccount", "PodDisruptionBudget", "NetworkPolicy",
                    "Ingress", "HorizontalPodAutoscaler", "LimitRange", "ResourceQuota", "PriorityClass",
                    "StorageClass", "RuntimeClass", "IngressClass", "PersistentVolume", "ResourceClaim",
                    "ResourceClaimTemplate", "DeviceClass"}
# Built-in kinds whose names are RFC 1123 labels in every release: a Namespace's (ValidateNamespaceName).
_NAMESPACE_KINDS = {"Namespace"}
# RBAC roles and bindings: names (and generateNames) that are one URL path segment (rbac's ValidateRBACName).
_PATH_SEGMENT_KINDS = {"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}
# Built-in kinds whose names are DNS labels: a Service's (ValidateServiceCreate: an RFC 1123 label since
# RelaxedServiceNameValidation, on by default from Kubernetes 1.36; before, an RFC 1035 label, starting with
# a letter).
_LABEL_KINDS = {"Service"}
ANNOTATIONS_LIMIT = 262_144  # bytes of keys and values together (apimachinery's TotalAnnotationSizeLimitB)
# Finalizers a built-in kind takes without a domain (the core validation's standard ones).
STANDARD_FINALIZERS = ("kubernetes", "orphan", "foregroundDeletion")
_GENERATED_BASE = 58  # the server keeps this much of a generateName and adds 5 random letters or digits
_OWNER_FIELDS = ("apiVersion", "kind", "name", "uid")


def name_check(obj, relaxed_service_names: bool = True):
    """The function that says what is wrong with a name of `obj`'s kind as a DNS name, None for kinds whose
    names are no DNS names (RBAC roles and bindings, read below) or that this rule leaves alone."""
    if obj.kind in _LABEL_KINDS and obj.group == "":
        return dns1123_label_problem if relaxed_service_names else dns1035_label_problem
    if obj.kind in _NAMESPACE_KINDS and obj.group == "":
        return dns1123_label_problem
    if obj.is_custom or obj.kind in _SUBDOMAIN_KINDS:
        return dns1123_subdomain_problem
    return None


def _problems(obj, relaxed_service_names: bool = True):
    metadata = obj.value.get("metadata")
    custom = obj.is_custom
    check = name_check(obj, relaxed_service_names)
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
    elif isinstance(name, str) and check:
        problem = check(name)
        if problem:
            yield ("metadata", "name"), f"metadata.name {problem}"
    elif isinstance(name, str) and obj.kind in _PATH_SEGMENT_KINDS:
        problem = path_segment_name_problem(name)
        if problem:
            yield ("metadata", "name"), f"metadata.name {name!r} {problem}"
    yield from _namespace_problems(obj, metadata.get("namespace"))
    if check:
        yield from _generate_name_problems(as_str(generate), not name, check)
    elif obj.kind in _PATH_SEGMENT_KINDS and as_str(generate):
        # the name made of it adds letters and digits only: the prefix is checked alone, as the server does
        problem = path_segment_name_problem(as_str(generate))
        if problem:
            yield ("metadata", "generateName"), f"metadata.generateName {as_str(generate)!r} {problem}"
    yield from _finalizer_problems(metadata.get("finalizers"), custom)
    yield from _owner_problems(metadata.get("ownerReferences"))
    if custom:  # a built-in kind's times are its schema stage's (found by their type in the kind's schema)
        yield from _time_problems(metadata)
    for key in ("labels", "annotations"):
        table = metadata.get(key)
        if table is None:
            continue
        if not isinstance(table, dict):
            if custom:  # a built-in kind's schema says so already
                yield ("metadata", key), f"metadata.{key} must be a mapping of strings"
            continue
        yield from table_problems(table, key, ("metadata", key))


def _time_problems(metadata: dict):
    """metav1.Time fields of a custom resource's metadata: Go reads them as RFC 3339 text when it decodes the
    object, and refuses the whole object otherwise (a null is no time)."""
    for key in ("creationTimestamp", "deletionTimestamp"):
        value = metadata.get(key)
        if isinstance(value, str) and (problem := rfc3339_problem(value)):
            yield ("metadata", key), f"metadata.{key} {value!r} is not an RFC 3339 time: it {problem}"


def _namespace_problems(obj, namespace: object):
    """A namespace written in a namespaced object is a DNS label (ValidateObjectMeta's ValidateNamespaceName:
    the object cannot be created in it, there being no such namespace); a cluster-wide kind's is cleared by
    the server, unread."""
    if obj.cluster_scoped or not isinstance(namespace, str) or namespace == "" or placeholder_in(namespace):
        return
    problem = dns1123_label_problem(namespace)
    if problem:
        yield ("metadata", "namespace"), f"metadata.namespace {namespace!r} {problem}"


def _generate_name_problems(generate: str | None, generated: bool, check=dns1123_subdomain_problem):
    """A generateName is read as a name's prefix (a trailing '-' masked as apimachinery masks it: its last two
    characters become one letter); with no name, the server names the object with its first 58 characters
    and five random lowercase letters or digits, and that name must be valid too (`check`: the kind's name
    check)."""
    if not generate:
        return
    masked = generate[:-2] + "a" if len(generate) > 1 and generate.endswith("-") else generate
    problem = check(masked)
    if problem:
        yield ("metadata", "generateName"), f"metadata.generateName {generate!r} {problem} (a trailing '-' " \
                                            "is taken)"
    elif generated and check(generate[:_GENERATED_BASE] + "bbbbb"):
        yield ("metadata", "generateName"), f"metadata.generateName {generate!r} makes names the server " \
            f"refuses: {check(generate[:_GENERATED_BASE] + 'bbbbb')}"


def _finalizer_problems(finalizers: object, custom: bool):
    """Each finalizer a qualified name; in a built-in kind, one without a domain prefix is a standard one (a
    custom resource is only warned); orphan and foregroundDeletion not both."""
    names = [(index, text) for index, text in enumerate(as_list(finalizers)) if isinstance(text, str)]
    for index, text in names:
        problem = qualified_name_problem(text)
        if problem:
            yield ("metadata", "finalizers", index), f"finalizer {text!r} {problem}"
        elif not custom and "/" not in text and text not in STANDARD_FINALIZERS:
            yield ("metadata", "finalizers", index), f"finalizer {text!r} is neither a standard one " \
                f"({', '.join(STANDARD_FINALIZERS)}) nor qualified with a domain (example.com/{text})"
    if {"orphan", "foregroundDeletion"} <= {text for _index, text in names}:
        yield ("metadata", "finalizers"), "finalizers orphan and foregroundDeletion cannot both be set"


def _owner_problems(references: object):
    """Each owner reference names an apiVersion (<group>/<version> or <version>), kind, name and uid, and is
    no v1 Event; one at most has controller: true."""
    controller = None
    for index, reference in enumerate(as_list(references)):
        reference, at = as_map(reference), ("metadata", "ownerReferences", index)
        for key in _OWNER_FIELDS:
            if not as_str(reference.get(key)):
                yield at + (key,), f"owner reference has no {key} (one is required)"
        version = as_str(reference.get("apiVersion")) or ""
        group, slash, rest = version.partition("/")
        if version and (version == "/" or "/" in rest or (slash and not rest)):
            yield at + ("apiVersion",), f"owner reference apiVersion {version!r} is not <group>/<version> or " \
                                        "<version>"
        elif (version in ("v1", "/v1")) and as_str(reference.get("kind")) == "Event":
            yield at + ("kind",), "owner reference names a v1 Event, which cannot own objects"
        if reference.get("controller") is True:
            name = f"{as_str(reference.get('kind')) or ''}/{as_str(reference.get('name')) or ''}"
            if controller is not None:
                yield ("metadata", "ownerReferences"), f"owner references {controller} and {name} both have " \
                                                      "controller: true (one at most)"
            else:
                controller = name


# ObjectMeta's pointer fields: any value sets them, 0 included.
_POINTER_FIELDS = ("deletionGracePeriodSeconds", "deletionTimestamp")


def template_field_set(key: str, value: object) -> bool:
    """Whether a template's metadata field is set as the API server tells (ValidateTemplateObjectMeta compares
    each field with its Go zero value): a null never; a pointer field or a list by any value, 0 and [] included;
    a string or a number unless it is "" or 0 (checked against a real API server)."""
    if value is None:
        return False
    if key in _POINTER_FIELDS or isinstance(value, (list, dict)):
        return True
    return not (value == "" or (isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0))


def annotations_size(table: dict) -> int:
    """The bytes the server counts in an annotations map: each key and string value in UTF-8."""
    return sum(len(str(key).encode("utf-8", "surrogatepass"))
               + (len(value.encode("utf-8", "surrogatepass")) if isinstance(value, str) else 0)
               for key, value in table.items())


def table_problems(table: dict, key: str, at: tuple):
    """A labels or annotations map (`key`): keys and label values of Kubernetes' syntax, annotations of at
    most 256 KiB together (keys and values, counted in bytes)."""
    for entry, value in table.items():
        problem = qualified_name_problem(str(entry).lower() if key == "annotations" else str(entry))
        if problem:
            yield at + (entry,), f"{key[:-1]} key {str(entry)!r} {problem}"
        elif key == "labels" and isinstance(value, str):
            problem = label_value_problem(value)
            if problem:  # the value of a label is never a secret: shown
                yield at + (entry,), f"label {entry} value {value!r} {problem}"
    if key == "annotations" and len(table) and annotations_size(table) > ANNOTATIONS_LIMIT:
        yield at, f"annotations take {annotations_size(table)} bytes (keys and values); the API server " \
                  f"takes at most {ANNOTATIONS_LIMIT}"


@rule(
    name="object-metadata-invalid", code="DGD607", severity="error", family="admission",
    title="Names, labels and annotation keys are ones the API server stores",
    rationale="""The API server refuses an object without a name (or generateName), a name that is not a lowercase
    RFC 1123 subdomain (a DynamoGraphDeployment, a Job, a claim, a LimitRange, a ResourceQuota, a DRA claim
    template or device class), a Service name
    that is no DNS label (63 characters at most, no dots or upper case; starting with a letter before Kubernetes
    1.36), an RBAC role or binding name that is no URL path segment ('.', '..', or with '/' or '%'), a namespace
    that is no DNS label in a namespaced object (no such namespace can exist), a label key
    or value or an annotation key outside Kubernetes' syntax, annotations of more than 256 KiB together, a
    finalizer that is no qualified name (in a built-in kind, one without a domain that is not kubernetes, orphan
    or foregroundDeletion; orphan and foregroundDeletion not together), an owner reference without apiVersion,
    kind, name or uid (or naming a v1 Event), two owner references that are controllers, a generateName that is
    no name prefix or makes names it refuses, and, for a custom resource, metadata whose labels or annotations
    are not mappings. A custom resource's CRD schema does not describe its metadata, so no schema check finds
    these.""",
    remediation="Name the object in lowercase letters, digits, '-' and '.'; keep label keys and values to "
                "letters, digits, '-', '_' and '.' (63 at most).",
    reads=("metadata of every object (name, generateName, namespace, labels, annotations, finalizers, "
           "ownerReferences)",),
)
def object_metadata_invalid(model: Model):
    relaxed = model.release.kubernetes_at_least("1.36")  # RelaxedServiceNameValidation on by default
    for obj in model.objects:
        for path, problem in _problems(obj, relaxed):
            yield Hit(obj, path, f"{obj.label}: {problem}")
