"""A pod's own settings and a container's policies as the API server validates them (written from
Kubernetes' core validation, v1.37): the DNS policy and config, host aliases, readiness and scheduling
gates, the names a pod refers to (service account, node, priority class, runtime class) or takes
(hostname, subdomain), the preemption and restart policies, the OS, host namespaces beside a process
namespace or a user namespace, host ports on the host network; and a container's termination message
policy, port protocols and resize policy. Each function yields (path, problem)."""

from __future__ import annotations

import re

from dgdlint.model import PodSettings, as_list, as_map, as_str
from dgdlint.rules.addresses import ip_problem
from dgdlint.rules.metadata import table_problems
from dgdlint.rules.syntax import as_int, dns1123_label_problem, dns1123_subdomain_problem, qualified_name_problem

DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
RESTART_POLICIES = ("Always", "OnFailure", "Never")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
OPERATING_SYSTEMS = ("linux", "windows")
PROTOCOLS = ("TCP", "UDP", "SCTP")
MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
RESIZE_RESOURCES = ("cpu", "memory")
RESIZE_POLICIES = ("NotRequired", "RestartContainer")
_NAMED = (("serviceAccountName", "service account"), ("nodeName", "node"),
          ("priorityClassName", "priority class"), ("runtimeClassName", "runtime class"))
# The pod fields read here (hostNetwork for its ports, os for windowsOptions).
_POD_KEYS = frozenset({"dnsPolicy", "dnsConfig", "hostAliases", "readinessGates", "schedulingGates", "hostname",
                       "subdomain", "preemptionPolicy", "restartPolicy", "os", "shareProcessNamespace", "hostUsers",
                       "hostNetwork", "serviceAccount"} | {key for key, _what in _NAMED})
_CONTAINER_KEYS = frozenset({"terminationMessagePolicy", "ports", "resizePolicy"})
# A search domain's labels (apimachinery's subdomain with underscores).
_SEARCH_LABEL = r"_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SEARCH_DOMAIN = re.compile(rf"{_SEARCH_LABEL}(\.{_SEARCH_LABEL})*")


def _one_of(value: object, allowed: tuple[str, ...], where: tuple, name: str, defaulted: bool = True):
    """A value of a known set; `defaulted`: the server fills an empty one in (as unset) before validating."""
    text = as_str(value)
    if text is None or (defaulted and text == ""):
        return
    if text not in allowed:
        yield where, f"{name} {text!r} is not one of {', '.join(allowed)}" if text else f"{name} is empty"


def _dns_problems(spec: dict, at, strict: bool):
    policy = as_str(spec.get("dnsPolicy"))
    yield from _one_of(policy, DNS_POLICIES, at("dnsPolicy"), "dnsPolicy")
    config = spec.get("dnsConfig")
    if policy == "None" and not isinstance(config, dict):
        yield at("dnsConfig"), "dnsPolicy None needs a dnsConfig with at least one nameserver"
        return
    if not isinstance(config, dict):
        return
    where = at("dnsConfig")
    servers = as_list(config.get("nameservers"))
    if policy == "None" and not servers:
        yield where + ("nameservers",), "dnsPolicy None needs at least one dnsConfig nameserver"
        return
    if len(servers) > 3:
        yield where + ("nameservers",), f"has {len(servers)} nameservers; at most 3"
    for index, server in enumerate(servers):
        problem = ip_problem(server, strict) if isinstance(server, str) else None
        if problem:
            yield where + ("nameservers", index), f"nameserver {server!r} {problem}"
    searches = [text for text in as_list(config.get("searches")) if isinstance(text, str)]
    if len(searches) > 32:
        yield where + ("searches",), f"has {len(searches)} search domains; at most 32"
    if len(" ".join(searches)) > 2048:
        yield where + ("searches",), "has more than 2048 characters of search domains (spaces included)"
    for index, search in enumerate(as_list(config.get("searches"))):
        name = as_str(search)
        if name is None or name == ".":
            continue
        trimmed = name[:-1] if name.endswith(".") else name
        if len(trimmed) > 253 or not _SEARCH_DOMAIN.fullmatch(trimmed):
            yield where + ("searches", index), f"search domain {name!r} is not a DNS name (lowercase labels of " \
                                               "letters, digits, '-' and '_', a label starting with at most one '_')"
    for index, option in enumerate(as_list(config.get("options"))):
        if not as_str(as_map(option).get("name")):
            yield where + ("options", index), "DNS option has no name"


def pod_field_problems(pod: PodSettings, strict_ips: bool, restart: bool = True, user_namespaces: bool = True):
    """What the API server refuses in a pod's own settings (`strict_ips`: Kubernetes 1.36 or later; `restart`:
    whether to read the restart policy, which a Job or Deployment-like workload's rule reads its own way;
    `user_namespaces`: Kubernetes 1.33 or later, where the server keeps hostUsers)."""
    spec = pod.spec
    if spec.keys().isdisjoint(_POD_KEYS):
        return  # most pods set none of these: this runs for every pod of every file
    at = pod.field_path
    yield from _dns_problems(spec, at, strict_ips)
    for index, alias in enumerate(as_list(spec.get("hostAliases"))):
        alias, where = as_map(alias), at("hostAliases") + (index,)
        address = as_str(alias.get("ip"))
        problem = ip_problem(address, strict_ips) if address is not None else "is required"
        if problem:
            yield where + ("ip",), f"host alias IP {address or ''!r} {problem}"
        for number, name in enumerate(as_list(alias.get("hostnames"))):
            text = as_str(name)
            if text is not None and dns1123_subdomain_problem(text):
                yield where + ("hostnames", number), f"host alias name {text!r} {dns1123_subdomain_problem(text)}"
    for index, gate in enumerate(as_list(spec.get("readinessGates"))):
        condition = as_str(as_map(gate).get("conditionType"))
        problem = qualified_name_problem(condition) if condition else "is required"
        if problem:
            yield at("readinessGates") + (index, "conditionType"), f"readiness gate {condition or ''!r} {problem}"
    for index, gate in enumerate(as_list(spec.get("schedulingGates"))):  # a repeat: the list keys' check
        name = as_str(as_map(gate).get("name")) or ""
        problem = qualified_name_problem(name)
        if problem:
            yield at("schedulingGates") + (index,), f"scheduling gate {name!r} {problem}"
    for key in ("hostname", "subdomain"):
        text = as_str(spec.get(key))
        if text and dns1123_label_problem(text):
            yield at(key), f"{key} {text!r} {dns1123_label_problem(text)}"
    for key, what in _NAMED:
        text = as_str(spec.get(key))
        if key == "serviceAccountName" and not text:  # the server copies the deprecated field over
            text = as_str(spec.get("serviceAccount")) or text
        if text is not None and (text or key == "runtimeClassName") and dns1123_subdomain_problem(text):
            yield at(key), f"{key} {text!r} is no {what} name: {dns1123_subdomain_problem(text)}"
    yield from _one_of(spec.get("preemptionPolicy"), PREEMPTION_POLICIES, at("preemptionPolicy"), "preemptionPolicy",
                       defaulted=False)  # a pointer without a default: "" is refused
    if restart:
        yield from _one_of(spec.get("restartPolicy"), RESTART_POLICIES, at("restartPolicy"), "restartPolicy")
    yield from _os_problems(pod)
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        yield at("shareProcessNamespace"), "shareProcessNamespace and hostPID cannot both be true"
    if spec.get("hostUsers") is False and user_namespaces:  # before 1.33 the server drops hostUsers
        for key in ("hostNetwork", "hostPID", "hostIPC"):
            if spec.get(key) is True:
                yield at(key), f"{key}: true is refused beside hostUsers: false (a user namespace)"
    if spec.get("hostNetwork") is True:
        for index, container in enumerate(as_list(spec.get("containers"))):
            for number, port in enumerate(as_list(as_map(container).get("ports"))):
                port = as_map(port)
                host, own = as_int(port.get("hostPort")), as_int(port.get("containerPort"))
                if host and own is not None and host != own:
                    yield at("containers") + (index, "ports", number, "hostPort"), \
                        f"hostPort {host} is not its containerPort {own}, as hostNetwork: true needs"


def template_metadata_problems(pod: PodSettings):
    """The labels and annotations written for the pods a spec makes (a workload's pod template, a DGD
    component's podTemplate metadata or v1alpha1 extraPodMetadata, which the operator puts on its pods); a
    Pod's own are object-metadata-invalid's."""
    where = pod.metadata_path
    if where == ("metadata",):
        return
    metadata = as_map(pod.obj.get(where))
    for key in ("labels", "annotations"):
        if isinstance(metadata.get(key), dict):
            yield from table_problems(metadata[key], key, where + (key,))


def _os_problems(pod: PodSettings):
    os_settings = pod.spec.get("os")
    if not isinstance(os_settings, dict):
        return
    name = as_str(os_settings.get("name"))
    if name is None or name == "":
        yield pod.field_path("os") + ("name",), "os names no operating system (linux or windows)"
        return
    if name not in OPERATING_SYSTEMS:
        yield pod.field_path("os") + ("name",), f"os name {name!r} is not one of {', '.join(OPERATING_SYSTEMS)}"
        return
    if name != "linux":
        return  # a windows pod's restrictions: windows.py
    if as_map(pod.spec.get("securityContext")).get("windowsOptions") is not None:  # null is unset
        yield pod.field_path("securityContext") + ("windowsOptions",), "windowsOptions are refused in a linux pod"
    for kind in ("containers", "initContainers"):
        for index, container in enumerate(as_list(pod.spec.get(kind))):
            if as_map(as_map(container).get("securityContext")).get("windowsOptions") is not None:
                yield pod.field_path(kind) + (index, "securityContext", "windowsOptions"), \
                    "windowsOptions are refused in a linux pod"


def container_field_problems(raw: dict, where: tuple, pod_restart: str | None, init: bool, resize: bool):
    """A container's termination message policy, port protocols and (`resize`: Kubernetes 1.33 or later, where
    the server keeps the field) resize policy; `pod_restart` the pod's restartPolicy (unset: Always)."""
    if raw.keys().isdisjoint(_CONTAINER_KEYS):
        return
    yield from _one_of(raw.get("terminationMessagePolicy"), MESSAGE_POLICIES, where + ("terminationMessagePolicy",),
                       "terminationMessagePolicy")
    for index, port in enumerate(as_list(raw.get("ports"))):
        yield from _one_of(as_map(port).get("protocol"), PROTOCOLS, where + ("ports", index, "protocol"), "protocol")
    if not resize:
        return
    sidecar = init and as_str(raw.get("restartPolicy")) == "Always"
    seen: set[str] = set()
    for index, policy in enumerate(as_list(raw.get("resizePolicy"))):
        policy, at = as_map(policy), where + ("resizePolicy", index)
        resource, restart = as_str(policy.get("resourceName")) or "", as_str(policy.get("restartPolicy")) or ""
        if resource in seen:
            yield at, f"resizePolicy names {resource} twice"
        seen.add(resource)
        if resource not in RESIZE_RESOURCES:
            yield at, f"resizePolicy resource {resource!r} is not cpu or memory"
        if restart not in RESIZE_POLICIES:
            yield at, f"resizePolicy restartPolicy {restart!r} is not NotRequired or RestartContainer"
        elif restart == "RestartContainer" and (pod_restart == "Never" or (init and not sidecar)):
            why = "an init container that is no sidecar" if init and not sidecar else "a pod with restartPolicy Never"
            yield at, f"resizePolicy restartPolicy RestartContainer is refused in {why}"
