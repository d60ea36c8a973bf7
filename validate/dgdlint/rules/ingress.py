"""Ingresses as the API server validates them on create (written from Kubernetes' networking validation):
rules or a default backend; hosts that are DNS names (a leading `*.` allowed), never IP addresses; HTTP
rules with paths, each with a known pathType and a path that type takes; backends that name a service
(with a port name or number, not both) or a resource, not both; TLS hosts and secret names, the class name,
and the legacy class annotation agreeing with ingressClassName. Also the Ingress the operator makes of an
enabled v1alpha1 component `ingress` that names a controller class (host `<hostPrefix><host>.<hostSuffix>`,
the suffix `local` when left out)."""

from __future__ import annotations

from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.rules.addresses import is_ip_sloppy
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import as_int, dns1123_label_problem, dns1123_subdomain_problem, port_problem
from dgdlint.webhook_model import graph_views

PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")
_BAD_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
_BAD_ENDINGS = ("/..", "/.")
CLASS_ANNOTATION = "kubernetes.io/ingress.class"
_OPERATOR_SUFFIX = "local"  # the operator's default ingress host suffix


def host_problem(host: str) -> str | None:
    if is_ip_sloppy(host):
        return "is an IP address (a rule's host is a DNS name)"
    if "*" in host:
        rest = host[2:] if host.startswith("*.") else ""
        if len(host) > 253 or not rest or dns1123_subdomain_problem(rest):
            return "must be '*.' followed by a lowercase RFC 1123 subdomain"
        return None
    return dns1123_subdomain_problem(host)


def _path_problems(entry: dict, path: tuple):
    kind, text = as_str(entry.get("pathType")), as_str(entry.get("path")) or ""
    if kind is None:
        return  # missing: the schema's to report (the API server looks no further at this path)
    if kind not in PATH_TYPES:
        yield path + ("pathType",), f"pathType {kind!r} is not one of {', '.join(PATH_TYPES)}"
    elif kind == "ImplementationSpecific":
        if text and not text.startswith("/"):
            yield path + ("path",), f"path {text!r} is not absolute (it starts with '/')"
    else:
        if not text.startswith("/"):
            yield path + ("path",), f"path {text!r} is not absolute (it starts with '/')"
        for sequence in _BAD_SEQUENCES:
            if sequence in text:
                yield path + ("path",), f"path {text!r} contains {sequence!r}, which {kind} paths may not"
        for ending in _BAD_ENDINGS:
            if text.endswith(ending):
                yield path + ("path",), f"path {text!r} ends with {ending!r}, which {kind} paths may not"
    yield from _backend_problems(as_map(entry.get("backend")), path + ("backend",))


def _segment_problem(text: str) -> str | None:
    if text in (".", ".."):
        return f"may not be {text!r}"
    if "/" in text or "%" in text:
        return "may not contain '/' or '%'"
    return None


def reference_problems(reference: dict, path: tuple, what: str):
    """A typed reference to another object (a resource backend, an IngressClass's parameters): an apiGroup
    that is a DNS subdomain when given (an empty one too), a kind and a name that are one URL path segment."""
    group = as_str(reference.get("apiGroup"))
    if group == "":
        yield path + ("apiGroup",), f"{what} apiGroup is empty (leave it out for the core group)"
    elif group is not None and dns1123_subdomain_problem(group):
        yield path + ("apiGroup",), f"{what} apiGroup {group!r} {dns1123_subdomain_problem(group)}"
    for key in ("kind", "name"):
        text = as_str(reference.get(key)) or ""
        problem = "is required" if not text else _segment_problem(text)
        if problem:
            yield path + (key,), f"{what} {key} {text!r} {problem}" if text else f"{what} {key} {problem}"


def _backend_problems(backend: dict, path: tuple):
    service, resource = backend.get("service"), backend.get("resource")
    if service is not None and resource is not None:
        yield path, "names both a service and a resource (one backend)"
    elif isinstance(resource, dict):
        yield from reference_problems(resource, path + ("resource",), "resource")
    elif isinstance(service, dict):
        name = as_str(service.get("name")) or ""
        problem = "is required" if not name else dns1123_label_problem(name)
        if problem:
            yield path + ("service", "name"), f"service name {name!r} {problem}" if name else "service name is required"
        port = as_map(service.get("port"))
        port_name, number = as_str(port.get("name")) or "", as_int(port.get("number")) or None  # 0 is unset
        if port_name and number is not None:
            yield path + ("service", "port"), "names a port by name and by number (one of them)"
        elif port_name and port_problem(port_name):
            yield path + ("service", "port", "name"), port_problem(port_name)
        elif number is not None and port_problem(number):
            yield path + ("service", "port", "number"), port_problem(number)
        elif not port_name and number is None:
            yield path + ("service", "port"), "names no port (a name or a number is required)"
    elif service is None and resource is None:
        yield path, "names no backend (a service or a resource)"


def _tls_problems(spec: dict):
    for index, entry in enumerate(as_list(spec.get("tls"))):
        entry, where = as_map(entry), ("spec", "tls", index)
        for host_index, host in enumerate(as_list(entry.get("hosts"))):
            host = as_str(host) or ""
            problem = dns1123_subdomain_problem(host) if "*" not in host else host_problem(host)
            if problem:
                yield where + ("hosts", host_index), f"TLS host {host!r} {problem}"
        secret = as_str(entry.get("secretName")) or ""
        if secret and dns1123_subdomain_problem(secret):
            yield where + ("secretName",), f"TLS secretName {secret!r} {dns1123_subdomain_problem(secret)}"


def ingress_problems(spec: dict, annotations: dict):
    rules = as_list(spec.get("rules"))
    if not rules and spec.get("defaultBackend") is None:
        yield ("spec",), "has neither rules nor a defaultBackend"
    if isinstance(spec.get("defaultBackend"), dict):
        yield from _backend_problems(spec["defaultBackend"], ("spec", "defaultBackend"))
    for index, entry in enumerate(rules):
        entry, where = as_map(entry), ("spec", "rules", index)
        host = as_str(entry.get("host")) or ""
        problem = host_problem(host) if host else None
        if problem:
            yield where + ("host",), f"host {host!r} {problem}"
        http = entry.get("http")
        if isinstance(http, dict):
            paths = as_list(http.get("paths"))
            if not paths:
                yield where + ("http",), "has an http rule without paths"
            for path_index, item in enumerate(paths):
                yield from _path_problems(as_map(item), where + ("http", "paths", path_index))
    yield from _tls_problems(spec)
    class_name = as_str(spec.get("ingressClassName"))
    if class_name is not None and dns1123_subdomain_problem(class_name):
        yield ("spec", "ingressClassName"), f"ingressClassName {class_name!r} {dns1123_subdomain_problem(class_name)}"
    legacy = as_str(annotations.get(CLASS_ANNOTATION))
    if legacy is not None and class_name is not None and legacy != class_name:
        yield ("metadata", "annotations", CLASS_ANNOTATION), \
            f"annotation {CLASS_ANNOTATION} {legacy!r} differs from ingressClassName {class_name!r}"


def operator_ingress_problems(ingress: dict, path: tuple):
    """What the API server refuses in the Ingress the operator makes of a v1alpha1 component's `ingress`: it
    makes one when the ingress is enabled and names a controller class (a virtual service or not). A prefix
    and a suffix written are used as written, an empty one too; the suffix is `local` only when left out."""
    host = as_str(ingress.get("host")) or ""
    if not host:
        return  # ingress-host-missing: the webhook refuses it first
    suffix = as_str(ingress.get("hostSuffix")) if ingress.get("hostSuffix") is not None else _OPERATOR_SUFFIX
    made = f"{as_str(ingress.get('hostPrefix')) or ''}{host}.{suffix or ''}"
    problem = host_problem(made)
    if problem:
        yield path + ("host",), f"makes an Ingress with host {made!r}, which {problem}"
    class_name = as_str(ingress.get("ingressControllerClassName")) or ""
    if dns1123_subdomain_problem(class_name):
        yield path + ("ingressControllerClassName",), \
            f"makes an Ingress of class {class_name!r}, which {dns1123_subdomain_problem(class_name)}"
    secret = as_str(as_map(ingress.get("tls")).get("secretName")) or ""
    if secret and dns1123_subdomain_problem(secret):
        yield path + ("tls", "secretName"), \
            f"makes an Ingress with TLS secret {secret!r}, which {dns1123_subdomain_problem(secret)}"


@rule(
    name="ingress-spec-invalid", code="DGD627", severity="error", family="admission",
    title="Ingresses are ones the API server takes",
    rationale="""The API server refuses an Ingress with neither rules nor a default backend; a rule host that
    is an IP address or no DNS name (`*.` may lead); an HTTP rule without paths; a path without a pathType,
    with one it does not know, or that its type does not take (Exact and Prefix paths are absolute, without
    '//', '/./', '/../' or '%2f', and do not end in '/.' or '/..'); a backend that names no service or
    resource, or both; a service backend without a valid name, or with a port name and number together or
    neither; TLS hosts and secret names, or a class name, that are not DNS names; a
    kubernetes.io/ingress.class annotation other than ingressClassName. A v1alpha1 component's enabled
    `ingress` with an ingressControllerClassName passes with the graph, and the Ingress the operator makes of
    it (host `<hostPrefix><host>.<hostSuffix>`, the suffix `local` when left out) is refused.""",
    remediation="Give every path a pathType (Prefix for '/'), hosts as lowercase DNS names, and each backend "
                "a service name and port number.",
    reads=("Ingress", "DynamoGraphDeployment (an enabled v1alpha1 component ingress)"),
)
def ingress_spec_invalid(model: Model):
    for obj in model.objects:
        if obj.kind == "Ingress" and obj.group == "networking.k8s.io":
            for path, problem in ingress_problems(as_map(obj.value.get("spec")), obj.annotations):
                yield Hit(obj, path, f"{obj.label}: {problem}")
    for view in graph_views(model):
        for component in view.components:
            ingress = component.field("ingress") if component.alpha else None
            if ingress is None or not isinstance(ingress.value, dict) or ingress.value.get("enabled") is not True \
                    or ingress.value.get("ingressControllerClassName") is None:
                continue  # the operator makes no Ingress of it
            for path, problem in operator_ingress_problems(ingress.value, ingress.path):
                yield Hit(view.obj, path, f"{component.component.label}: the ingress {problem}")
