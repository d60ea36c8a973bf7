"""Admission facts (DOMAIN section 4) that the operator enforces only at apply, or not at all, and that
hold without a CRD at hand: at least one component, quantities that parse, a known backend
framework. (Grove's name budget and the rest of the operator's webhook: the webhook_* modules.)"""

from __future__ import annotations

from dgdlint.model import Model, as_str
from dgdlint.quantity import is_quantity
from dgdlint.rules.registry import Hit, rule

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
