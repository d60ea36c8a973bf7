"""Admission facts (DOMAIN section 4) that the operator enforces only at apply, or not at all, and that
hold without a CRD at hand: at least one component, quantities that parse, a known backend
framework, container requests and limits the API server takes for a pod. (Grove's name budget and the
rest of the operator's webhook: the webhook_* modules.)"""

from __future__ import annotations

from decimal import ROUND_CEILING

from dgdlint.model import Model, as_str
from dgdlint.quantity import is_quantity, parse_quantity
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import container_resource_name_problem

BACKEND_FRAMEWORKS = ("vllm", "sglang", "trtllm")


@rule(
    name="no-components", code="DGD601", severity="error", family="admission",
    title="A graph has at least one component",
    rationale="The operator rejects a DynamoGraphDeployment with no services/components.",
    remediation="Add the frontend and worker components.",
)
def no_components(model: Model):
    for graph in model.graphs:
        if not graph.components:
            key = graph.components_field
            yield Hit(graph.obj, ("spec", key) if key in graph.spec else ("spec",),
                      f"{graph.obj.label} has no {key}")


def _quantities(model: Model):
    for graph in model.graphs:
        for component in graph.components:
            for path, value in component.own_resource_quantities():
                yield graph.obj, component, path, value
            if component.shared_memory is not None:
                yield graph.obj, component, component.shared_memory_path, component.shared_memory


@rule(
    name="resource-quantity-invalid", code="DGD602", severity="error", family="admission",
    title="v1alpha1 resource and shared-memory sizes are Kubernetes quantities",
    rationale="""v1alpha1 service resources are strings; one that does not parse as a quantity ("16 GB",
    "96gi") is silently dropped by the operator, and the pod runs without that request or limit.""",
    remediation="Write quantities as Kubernetes does: \"16\", \"500m\", \"96Gi\", \"64Gi\".",
)
def resource_quantity_invalid(model: Model):
    for obj, component, path, value in _quantities(model):
        text = as_str(value)
        if text is None or not is_quantity(text):
            yield Hit(obj, path, f"{component.label}: {path[-1]} {text!r} is not a Kubernetes quantity and "
                                 "would be dropped")


@rule(
    name="backend-framework-invalid", code="DGD603", severity="error", family="admission",
    title="backendFramework is vllm, sglang or trtllm",
    rationale="""The operator accepts only these frameworks, and the field is immutable: a wrong value
    set once cannot be fixed in place.""",
    remediation="Set spec.backendFramework to vllm, sglang or trtllm (Cosmos3 uses vllm).",
)
def backend_framework_invalid(model: Model):
    for graph in model.graphs:
        # null is unset: the API server prunes it (a template that renders an empty value)
        if graph.spec.get("backendFramework") is not None and graph.backend_framework not in BACKEND_FRAMEWORKS:
            yield Hit(graph.obj, ("spec", "backendFramework"),
                      f"{graph.obj.label}: backendFramework {graph.backend_framework!r} is not one of "
                      f"{', '.join(BACKEND_FRAMEWORKS)}")


def _native(resource: str) -> bool:
    """A resource of Kubernetes itself: no domain, or a kubernetes.io one (cpu, memory, hugepages-2Mi)."""
    return "/" not in resource or "kubernetes.io/" in resource


def _container_entries(container, table: dict) -> dict:
    """The entries of a requests or limits table written in the container's own resources (a v1alpha1
    service's resources block is the operator's to translate, and left out)."""
    prefix = container.path + ("resources",)
    return {resource: (text, path) for resource, (text, path) in table.items() if path[:len(prefix)] == prefix}


def container_resource_problems(container):
    """(path, problem) for each request or limit the API server refuses in a pod: a name that is no container
    resource (cpu, memory, ephemeral-storage, hugepages-<size> or one with a domain), a negative quantity, a
    fraction of an extended resource (a GPU), a request above its limit, and for extended resources and
    hugepages a request that is not its limit (or has none)."""
    requests = _container_entries(container, container.requests)
    limits = _container_entries(container, container.limits)
    values = {}
    for table_name, table in (("requests", requests), ("limits", limits)):
        for resource, (text, path) in table.items():
            named = container_resource_name_problem(str(resource))
            if named:  # ValidateContainerResourceName, whatever the quantity
                yield path, f"{table_name} resource name {resource!r} {named}"
            value = parse_quantity(text)
            if value is None:
                continue  # not a quantity: the schema stage and resource-quantity-invalid say so
            values[(table_name, resource)] = value
            if value < 0:
                yield path, f"{table_name} {resource} {text!r} is negative"
            elif not _native(resource) and value != value.to_integral_value():
                yield path, f"{table_name} {resource} {text!r} is not a whole number (an extended resource)"
    for resource, (text, path) in requests.items():
        request, limit = values.get(("requests", resource)), values.get(("limits", resource))
        exact = not _native(resource) or resource.startswith("hugepages-")  # no overcommit of these
        if request is None or request < 0:
            continue
        if resource not in limits:
            if exact:
                yield path, f"requests {resource} {text!r} has no limit; {resource} needs a limit equal to it"
            continue
        if limit is None or limit < 0:
            continue
        if exact and request != limit:
            yield path, f"requests {resource} {text!r} is not its limit {limits[resource][0]!r}; they must be equal"
        elif request > limit:
            yield path, f"requests {resource} {text!r} is above its limit {limits[resource][0]!r}"
    yield from _huge_page_problems(container, requests, limits, values)


def _huge_page_problems(container, requests: dict, limits: dict, values: dict):
    """Hugepages in whole pages of their size (a quantity rounded up to a byte, as the server reads it), and only
    beside a cpu or memory request or limit (in a DGD the operator may add those, so that is left to it)."""
    pages = [(table, resource) for table, resource in values if resource.startswith("hugepages-")]
    for table, resource in pages:
        size = parse_quantity(resource[len("hugepages-"):])
        value = values[(table, resource)]
        text, path = (requests if table == "requests" else limits)[resource]
        whole = size is not None and size > 0 and size == size.to_integral_value()
        if value >= 0 and (not whole or value.to_integral_value(rounding=ROUND_CEILING) % size != 0):
            yield path, f"{table} {resource} {text!r} is not a whole number of {resource[len('hugepages-'):]} pages"
    if pages and not container.obj.is_custom and not any(
            resource in ("cpu", "memory") for resource in (*container.requests, *container.limits)):
        yield container.path + ("resources",), "asks for hugepages without a cpu or memory request or limit " \
                                               "(hugepages need one of them)"


@rule(
    name="container-resources-invalid", code="DGD605", severity="error", family="admission",
    title="Container requests and limits are ones the API server takes for a pod",
    rationale="""The API server refuses a pod whose container asks for a resource that is no container resource
    (cpu, memory, ephemeral-storage, hugepages-<size>, or an extended one with a domain such as
    `nvidia.com/gpu`: a bare `gpu` is refused), a negative quantity, a fraction of an
    extended resource such as `nvidia.com/gpu`, a request above its limit, or (for extended resources and
    hugepages, which are never overcommitted) a request without an equal limit, hugepages that are not a
    whole number of their pages or come without a cpu or memory request or limit. A Job is refused when it
    is applied; a DynamoGraphDeployment is accepted, and its pods are refused when the operator creates
    them, so the graph never comes up.""",
    remediation="Give a GPU as a whole-number limit (the request defaults to it), and keep each request at or "
                "under its limit.",
    reads=("DynamoGraphDeployment", "Job", "Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet",
           "CronJob"),
)
def container_resources_invalid(model: Model):
    for owner, container, _pod in model.all_containers():
        for path, problem in container_resource_problems(container):
            name = f" container {container.name}" if container.name else ""
            yield Hit(container.obj, path, f"{owner.label}{name}: {problem}")


@rule(
    name="env-value-and-value-from", code="DGD606", severity="error", family="admission",
    title="An env entry has a value or a valueFrom, not both",
    rationale="""The API server refuses a pod whose env entry sets a non-empty `value` and a `valueFrom`.
    A Job is refused when applied; a DynamoGraphDeployment is accepted, and its pods are refused when the
    operator creates them.""",
    remediation="Keep `valueFrom` (for a secret) or `value`, not both.",
    reads=("DynamoGraphDeployment", "Job", "Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet",
           "CronJob"),
)
def env_value_and_value_from(model: Model):
    for where, container, entry in model.declared_env():
        if entry.value_from is not None and entry.written:
            # the value itself is never repeated: it may be a secret
            yield Hit(container.obj, entry.path + ("valueFrom",),
                      f"{where}: env {entry.name} sets both value and valueFrom")
