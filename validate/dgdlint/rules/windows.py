"""Windows settings of a pod as the API server validates them (written from Kubernetes' core validation,
v1.37: validateWindowsSecurityContextOptions, validateWindowsHostProcessPod, validateWindows). The server
reads windowsOptions in every pod whose os is not linux (a pod without os included): a runAsUserName of a
known shape, a gmsaCredentialSpecName that is a DNS subdomain, a credential spec neither empty nor over 64
KiB; a pod with host process containers has only those, on the host network. A pod whose os is windows sets
none of the Linux-only fields (a linux pod's windowsOptions are pod_fields.py's)."""

from __future__ import annotations

import re

from dgdlint.model import PodSettings, as_list, as_map, as_str
from dgdlint.rules.syntax import dns1123_subdomain_problem

CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # Go's [[:cntrl:]]
# A NetBIOS domain: 1 to 15 characters without \ / : * ? " < > |, not starting with '.'.
NETBIOS_DOMAIN = re.compile(r'[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}')
# A DNS domain: labels of letters (either case), digits and '-', 63 characters each.
_DNS_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
DNS_DOMAIN = re.compile(rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*")
USER_FORBIDDEN = re.compile(r'["/\\:;|=,+*?<>@\[\]]')
USER_LONGEST, DOMAIN_LONGEST = 104, 255  # characters (bytes, as Go counts them)
CREDENTIAL_SPEC_LONGEST = 64 * 1024
# What a windows pod may not set: in its securityContext, in a container's, and in its own spec.
POD_LINUX_ONLY = ("appArmorProfile", "seLinuxOptions", "seccompProfile", "fsGroup", "fsGroupChangePolicy",
                  "sysctls", "runAsUser", "runAsGroup", "supplementalGroups", "supplementalGroupsPolicy",
                  "seLinuxChangePolicy")
CONTAINER_LINUX_ONLY = ("appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities",
                        "readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation", "procMount", "runAsUser",
                        "runAsGroup")


def _os(pod: PodSettings) -> str | None:
    return as_str(as_map(pod.spec.get("os")).get("name"))


def user_name_problem(name: str) -> str | None:
    """What the server says of a runAsUserName ([DOMAIN\\]USER), None when fine."""
    if not name:
        return "is empty"
    if CONTROL.search(name):
        return "holds control characters"
    parts = name.split("\\")
    if len(parts) > 2:
        return "holds more than one backslash (DOMAIN\\USER at most)"
    domain, user = parts if len(parts) == 2 else ("", parts[0])
    if len(domain.encode()) > DOMAIN_LONGEST:
        return f"has a domain longer than {DOMAIN_LONGEST} characters"
    if len(parts) == 2 and not (NETBIOS_DOMAIN.fullmatch(domain) or DNS_DOMAIN.fullmatch(domain)):
        return f"has a domain, {domain!r}, that is neither a NetBIOS nor a DNS name"
    if not user:
        return "names no user"
    if len(user.encode()) > USER_LONGEST:
        return f"has a user name longer than {USER_LONGEST} characters"
    if not user.strip(". "):
        return "has a user name of only dots and spaces"
    if USER_FORBIDDEN.search(user):
        return 'has a user name with one of " / \\ : ; | = , + * ? < > @ [ ]'
    return None


def _options_problems(options: dict, where: tuple):
    if not options:
        return  # no windowsOptions (nearly every pod)
    spec_name = as_str(options.get("gmsaCredentialSpecName"))
    if spec_name is not None and dns1123_subdomain_problem(spec_name):
        yield where + ("gmsaCredentialSpecName",), \
            f"gmsaCredentialSpecName {spec_name!r} {dns1123_subdomain_problem(spec_name)} (a GMSA resource's name)"
    spec = as_str(options.get("gmsaCredentialSpec"))
    if spec == "":
        yield where + ("gmsaCredentialSpec",), "gmsaCredentialSpec is empty"
    elif spec is not None and len(spec.encode()) > CREDENTIAL_SPEC_LONGEST:
        yield where + ("gmsaCredentialSpec",), \
            f"gmsaCredentialSpec is {len(spec.encode())} bytes long; at most {CREDENTIAL_SPEC_LONGEST} (64 KiB)"
    user = as_str(options.get("runAsUserName"))
    if user is not None and user_name_problem(user):
        shown = user if not CONTROL.search(user) else user.encode("unicode_escape").decode()
        yield where + ("runAsUserName",), f"runAsUserName {shown!r} {user_name_problem(user)}"


def windows_security_problems(pod: PodSettings, containers: list[tuple[dict, tuple]], recent: bool = True):
    """(path, problem) for the windowsOptions of a pod whose os is not linux and its containers, and the
    Linux-only security settings of a windows pod; `recent`: Kubernetes 1.33 or later (before, the server
    drops supplementalGroupsPolicy)."""
    os_name = _os(pod)
    if os_name == "linux":
        return
    context, where = as_map(pod.spec.get("securityContext")), pod.field_path("securityContext")
    yield from _options_problems(as_map(context.get("windowsOptions")), where + ("windowsOptions",))
    for container, path in containers:
        options = as_map(as_map(container.get("securityContext")).get("windowsOptions"))
        yield from _options_problems(options, path + ("securityContext", "windowsOptions"))
    if os_name != "windows":
        return
    for name in POD_LINUX_ONLY:
        if name == "supplementalGroupsPolicy" and not recent:
            continue
        value = context.get(name)
        if value is not None and (name != "sysctls" or as_list(value)):  # an empty list of sysctls is none
            yield where + (name,), f"{name} is refused in a windows pod (os: windows)"
    for container, path in containers:
        own = as_map(container.get("securityContext"))
        for name in CONTAINER_LINUX_ONLY:
            if own.get(name) is not None:
                yield path + ("securityContext", name), f"{name} is refused in a windows pod (os: windows)"


def windows_pod_problems(pod: PodSettings, containers: list[tuple[dict, tuple]], user_namespaces: bool = True):
    """(path, problem) for host process containers in a pod whose os is not linux (all of the pod's, the same
    as the pod's own setting, on the host network) and a windows pod's Linux-only namespaces settings;
    `user_namespaces`: Kubernetes 1.33 or later, where the server keeps hostUsers. `containers` are the ones
    known (a DGD's operator may add others)."""
    os_name = _os(pod)
    if os_name == "linux":
        return
    spec = pod.spec
    pod_value = as_map(as_map(spec.get("securityContext")).get("windowsOptions")).get("hostProcess")
    pod_value = pod_value if isinstance(pod_value, bool) else None
    host_process = 0
    for container, path in containers:
        own = as_map(as_map(container.get("securityContext")).get("windowsOptions")).get("hostProcess")
        own = own if isinstance(own, bool) else None
        if own is not None and pod_value is not None and own != pod_value:
            yield path + ("securityContext", "windowsOptions", "hostProcess"), \
                f"hostProcess: {str(own).lower()} differs from the pod's hostProcess: {str(pod_value).lower()}"
        if own is True or (own is None and pod_value is True):
            host_process += 1
    if host_process:
        if host_process != len(containers):
            yield pod.path, f"mixes host process containers with others ({host_process} of {len(containers)}); " \
                            "a pod with one has only host process containers"
        if spec.get("hostNetwork") is not True:
            yield pod.field_path("hostNetwork"), "has host process containers (windowsOptions.hostProcess) " \
                                                 "without hostNetwork: true, which they need"
    if os_name != "windows":
        return
    for name in ("hostUsers", "shareProcessNamespace"):
        if spec.get(name) is not None and (name != "hostUsers" or user_namespaces):
            yield pod.field_path(name), f"{name} is refused in a windows pod (os: windows)"
    for name in ("hostPID", "hostIPC"):
        if spec.get(name) is True:
            yield pod.field_path(name), f"{name}: true is refused in a windows pod (os: windows)"
