"""Names and label values the Dynamo operator derives from a graph when it reconciles it (read from the
operator's internal/dynamo/graph.go and controllers, and from Grove's name generation). None is checked when
the graph is created: the API server takes the graph, then refuses each object the operator (or Grove) makes
of it, on every reconcile, and the graph's pods never come.

- A component's Service: `<graph>-<component, lowercased>` with dots made '-' (GetDCDResourceName,
  NormalizeKubeResourceName), for a frontend always and for every component with Kubernetes discovery (the
  operator's default; the graph's `nvidia.com/dynamo-discovery-backend` decides when written). Off the Grove
  pathway a worker's (worker, prefill, decode) is its DCD's name, which ends with an 8-character hash of the
  worker spec. A DNS label: a DNS-1035 one, starting with a letter, before Kubernetes 1.36.
- On the Grove pathway the PodCliqueSet (the graph's name, shortened by the operator when long) gets the
  headless Service `<PodCliqueSet>-0`, the pods' subdomain, and the pods host names
  `<PodCliqueSet>-0-<component, lowercased>-<n>`: DNS labels, so a dot in either name is refused there.
  Off it, the DynamoComponentDeployment and its Deployment are `<graph>-<component, lowercased>`: subdomains.
- Labels on the operator's objects and pods: `nvidia.com/selector: <graph>-<component, lowercased>` (so
  also `nvidia.com/dynamo-graph-deployment-name: <graph>`, which is shorter), `nvidia.com/dynamo-component:
  <component>` and, unless a component has globalDynamoNamespace, `nvidia.com/dynamo-namespace:
  <namespace>-<graph with dots made '-'>` (ComputeDynamoNamespace): label values, at most 63 characters."""

from __future__ import annotations

import re

from dgdlint.model import Model, as_str
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import (
    dns1035_label_problem,
    dns1123_label_problem,
    dns1123_subdomain_problem,
    label_value_problem,
)
from dgdlint.rules.webhook_grove import GROVE_NAME_BUDGET, PCS_NAME_SHORTENED_SINCE, go_lower, pcs_name
from dgdlint.webhook_model import GraphView, graph_views

DISCOVERY_BACKEND = "nvidia.com/dynamo-discovery-backend"
LABEL_VALUE_LIMIT = 63
WORKER_TYPES = ("worker", "prefill", "decode")
WORKER_HASH = "0" * 8  # stands for the worker spec hash a worker DCD's name ends with (8 characters)
# A v1beta1 component name as the CRD takes it (the schema stage reports any other)
_V1BETA1_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?")
_HOST_PART = re.compile(r"[-a-z0-9]+")  # what a lowercased component name may hold in a host name
_SUBDOMAIN_PART = re.compile(r"[-.a-z0-9]+")  # ... and in a DynamoComponentDeployment's name


def normalized(name: str) -> str:
    """The operator's NormalizeKubeResourceName: dots made '-', lowercased."""
    return go_lower(name.replace(".", "-"))


def label_value_trouble(value: str) -> str | None:
    """What the API server says of `value` as a label value, in this rule's words (None when it takes it)."""
    if len(value) > LABEL_VALUE_LIMIT:
        return f"is {len(value)} characters, over a label value's {LABEL_VALUE_LIMIT}"
    problem = label_value_problem(value)
    return f"is no label value: it {problem}" if problem else None


def _kubernetes_discovery(view: GraphView) -> bool:
    written = view.annotation(DISCOVERY_BACKEND)
    return written is None or written.text == "kubernetes"


def _graph_problems(view: GraphView, name: str, service_problem, pcs: str | None):
    """What the graph's own name (with its namespace) breaks."""
    if pcs is not None and len(pcs) <= GROVE_NAME_BUDGET:  # a longer one is grove-name-budget's
        problem = service_problem(f"{pcs}-0")
        if problem:
            yield f"on the Grove pathway the PodCliqueSet {pcs!r} gets the headless Service '{pcs}-0' (its pods' " \
                  f"subdomain, and the start of their host names), which {problem}"
    if any(component.field("globalDynamoNamespace").value is not True for component in view.components):
        label = f"{view.obj.namespace}-{name.replace('.', '-')}"
        trouble = label_value_trouble(label)
        if trouble:
            yield f"the label nvidia.com/dynamo-namespace={label} (<namespace>-<name>) on the operator's objects " \
                  f"and pods {trouble}"


def _component_problems(view: GraphView, component, graph: str, service_problem, pcs: str | None):
    """What one component's name (with the graph's) breaks."""
    name, kind = component.component.name, component.component.type
    lowered = go_lower(name)
    if pcs is not None and not _HOST_PART.fullmatch(lowered):
        yield f"on the Grove pathway its pods' host names are '{pcs}-0-{lowered}-<n>', DNS labels of lowercase " \
              "letters, digits and '-'"
    elif pcs is None and not _SUBDOMAIN_PART.fullmatch(lowered):
        yield f"the operator names its DynamoComponentDeployment and Deployment '{graph}-{lowered}', DNS " \
              "subdomains of lowercase letters, digits, '-' and '.'"
    if kind == "frontend" or _kubernetes_discovery(view):
        service = normalized(f"{graph}-{lowered}")
        worker_dcd = kind in WORKER_TYPES and pcs is None
        named = f"{service}-{WORKER_HASH}" if worker_dcd else service
        problem = service_problem(named)
        if problem:
            shown = f"{service}-<8-character hash>" if worker_dcd else service
            yield f"the operator names its Service {shown!r} ({len(named)} characters), which {problem}"
    for key, value in (("nvidia.com/selector", f"{graph}-{lowered}"), ("nvidia.com/dynamo-component", name)):
        trouble = label_value_trouble(value)
        if trouble:
            yield f"the label {key}={value} on its objects and pods {trouble}"


@rule(
    name="operator-derived-name-invalid", code="DGD510", severity="error", family="hygiene",
    title="Names the operator derives from the graph are ones the API server takes",
    rationale="""The operator names objects after the graph and its components, and labels them, when it
    reconciles the graph; the API server takes the graph and refuses these later, on every reconcile, so the
    graph's pods never come. A component's Service is `<graph>-<component>` lowercased with dots made '-'
    (for a frontend always, for every component with Kubernetes discovery, the operator's default, unless
    the graph's `nvidia.com/dynamo-discovery-backend` says otherwise; off the Grove pathway a worker's adds
    '-' and an 8-character hash): a DNS label of at most 63 characters, starting with a letter before
    Kubernetes 1.36. On the Grove pathway the PodCliqueSet (the graph's name, shortened when long) gets the
    headless Service `<PodCliqueSet>-0`, the pods' subdomain, and the pods host names
    `<PodCliqueSet>-0-<component>-<n>`: a dot in the graph's name, or a component name with more than
    letters, digits and '-', is refused there (off it, the DynamoComponentDeployment `<graph>-<component>`
    takes dots). The labels `nvidia.com/selector: <graph>-<component>`, `nvidia.com/dynamo-component:
    <component>` and `nvidia.com/dynamo-namespace: <namespace>-<graph>` (not with globalDynamoNamespace on
    every component) are label values of at most 63 characters: a long graph name, component name or
    namespace breaks them.""",
    remediation="Name the graph in lowercase letters, digits and '-', starting with a letter, short enough "
                "that `<namespace>-<graph>` and `<graph>-<component>` fit in 63 characters; name components "
                "in letters, digits and '-'.",
    reads=("DynamoGraphDeployment metadata.name and metadata.namespace, component names and types, "
           "globalDynamoNamespace, the annotations nvidia.com/enable-grove and nvidia.com/dynamo-discovery-backend",),
)
def operator_derived_name_invalid(model: Model):
    relaxed = model.release.kubernetes_at_least("1.36")  # RelaxedServiceNameValidation on by default
    service_problem = dns1123_label_problem if relaxed else dns1035_label_problem
    for view in graph_views(model):
        graph = as_str(view.obj.metadata.get("name"))
        if not graph or dns1123_subdomain_problem(graph):
            continue  # a generated name is not known yet; an invalid one is object-metadata-invalid's
        pcs = pcs_name(graph, view.components, view.release.at_least(PCS_NAME_SHORTENED_SINCE)) \
            if view.grove_pathway[0] else None
        for problem in _graph_problems(view, graph, service_problem, pcs):
            yield Hit(view.obj, ("metadata", "name"), f"{view.obj.label}: {problem}")
        for component in view.components:
            name = component.component.name
            if not isinstance(name, str) or not name or (not view.alpha and not _V1BETA1_NAME.fullmatch(name)):
                continue  # the schema stage's
            problems = list(_component_problems(view, component, graph, service_problem, pcs))
            if problems:
                yield Hit(view.obj, component.component.name_path,
                          f"{component.component.label}: {'; '.join(problems)}")
