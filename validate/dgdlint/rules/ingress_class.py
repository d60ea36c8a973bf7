"""IngressClasses as the API server validates them on create (written from Kubernetes 1.37's networking
validation, after the v1 default of a parameters reference's scope, Cluster): a controller that is a
domain-prefixed path of at most 250 characters, and parameters that name a kind and a name as one URL path
segment each (the Ingress backend's reference check, read from ingress.py), an apiGroup that is a DNS
subdomain, a scope of Cluster or Namespace, a namespace (a DNS label) with Namespace and none with Cluster."""

from __future__ import annotations

import re

from dgdlint.model import Model, as_map, as_str
from dgdlint.rules.ingress import reference_problems
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import dns1123_label_problem, dns1123_subdomain_problem

MAX_CONTROLLER = 250
SCOPES = ("Cluster", "Namespace")
_HTTP_PATH = re.compile(r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+", re.ASCII)  # RFC 3986 path characters


def controller_problems(controller: str):
    """What the server says of a controller name: a domain-prefixed path (example.com/ingress-nginx)."""
    if len(controller) > MAX_CONTROLLER:
        yield f"is {len(controller)} characters long; at most {MAX_CONTROLLER} are taken"
    host, slash, path = controller.partition("/")
    if not controller:
        yield "is empty (one is required: its domain-prefixed name, such as k8s.io/ingress-nginx)"
    elif not slash or not host or not path:
        yield "must be a domain-prefixed path (such as k8s.io/ingress-nginx)"
    else:
        problem = dns1123_subdomain_problem(host)
        if problem:
            yield f"has a domain {host!r} that {problem}"
        if not _HTTP_PATH.fullmatch(path):
            yield f"has a path {path!r} with characters a URL path does not take"


def _parameters_problems(parameters: dict):
    at = ("spec", "parameters")
    yield from reference_problems(parameters, at, "parameters")
    scope = as_str(parameters.get("scope")) if parameters.get("scope") is not None else "Cluster"  # the v1 default
    namespace = parameters.get("namespace")
    if scope not in SCOPES:
        yield at + ("scope",), f"parameters scope {scope!r} is not one of {', '.join(SCOPES)}"
    elif scope == "Namespace":
        if namespace is None:
            yield at, "parameters have scope Namespace and name no namespace"
        elif isinstance(namespace, str) and dns1123_label_problem(namespace):
            yield at + ("namespace",), f"parameters namespace {namespace!r} {dns1123_label_problem(namespace)}"
    elif namespace is not None:
        yield at + ("namespace",), "parameters name a namespace, and their scope is Cluster (the default when " \
                                   "none is given); set scope: Namespace or drop the namespace"


def ingress_class_problems(obj):
    spec = as_map(obj.value.get("spec"))
    controller = spec.get("controller")
    if controller is None:  # the schema takes a spec without one
        yield ("spec",), "names no controller (one is required: its domain-prefixed name, such as " \
                         "k8s.io/ingress-nginx)"
    elif isinstance(controller, str):
        for problem in controller_problems(controller):
            yield ("spec", "controller"), f"controller {controller!r} {problem}"
    if isinstance(spec.get("parameters"), dict):
        yield from _parameters_problems(spec["parameters"])


@rule(
    name="ingress-class-invalid", code="DGD645", severity="error", family="admission",
    title="Ingress classes are ones the API server takes",
    rationale="""An Ingress for the frontend names an IngressClass, often shipped beside the deployment. The
    API server refuses one without a controller, or whose controller is no domain-prefixed path
    (k8s.io/ingress-nginx) or is longer than 250 characters; and parameters without a kind or a name, with
    '/' or '%' in them, with an apiGroup that is no DNS subdomain (an empty one included), with a scope
    other than Cluster or Namespace, with scope Namespace and no namespace or one that is no DNS label, or
    with a namespace and scope Cluster (the default). The JSON schema takes all of these.""",
    remediation="Give the controller's name as its documentation says (k8s.io/ingress-nginx), and parameters "
                "with a kind, a name and, for scope Namespace, the namespace.",
    reads=("IngressClass",),
)
def ingress_class_invalid(model: Model):
    for obj in model.objects:
        if obj.kind == "IngressClass" and obj.group == "networking.k8s.io":
            for path, problem in ingress_class_problems(obj):
                yield Hit(obj, path, f"{obj.label}: {problem}")
