"""Security contexts as the API server validates them in a pod spec (written from Kubernetes' core
validation): user and group IDs from 0 to 2147483647, the known fsGroupChangePolicy, supplementalGroupsPolicy
and procMount values, seccomp and AppArmor profiles with their type (a localhost profile for the Localhost
type only, as a relative path), and a container that forbids privilege escalation without being privileged
or adding CAP_SYS_ADMIN. A DynamoGraphDeployment keeps these as written in the pods the operator makes."""

from __future__ import annotations

import re

from dgdlint.model import Model, PodSettings, as_list, as_map, as_str
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import descending_path_problem
from dgdlint.rules.windows import windows_security_problems
from dgdlint.scalars import go_trim_space

MAX_ID = 2**31 - 1
FS_GROUP_CHANGE_POLICIES = ("Always", "OnRootMismatch")
SUPPLEMENTAL_GROUPS_POLICIES = ("Merge", "Strict")
PROC_MOUNTS = ("Default", "Unmasked")
SELINUX_CHANGE_POLICIES = ("MountOption", "Recursive")
_SYSCTL_SEGMENT = r"[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL = re.compile(rf"({_SYSCTL_SEGMENT}[./])*{_SYSCTL_SEGMENT}", re.ASCII)
PROFILE_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")


def _id_problems(context: dict, where: tuple, names: tuple[str, ...]):
    for name in names:
        value = context.get(name)
        if type(value) is int and not 0 <= value <= MAX_ID:
            yield where + (name,), f"{name} {value} is not between 0 and {MAX_ID}"
    if "supplementalGroups" in names:
        for index, value in enumerate(as_list(context.get("supplementalGroups"))):
            if type(value) is int and not 0 <= value <= MAX_ID:
                yield where + ("supplementalGroups", index), f"supplemental group {value} is not between 0 and {MAX_ID}"


def _profile_problems(profile: object, where: tuple, what: str):
    """A seccompProfile or appArmorProfile: a known type, a localhost profile exactly for Localhost."""
    if not isinstance(profile, dict):
        return
    if profile.get("type") is None:
        return  # missing: the schema's to report
    kind, local = as_str(profile.get("type")) or "", profile.get("localhostProfile")
    if not kind:
        yield where, f"{what} has no type (one of {', '.join(PROFILE_TYPES)})"
    elif kind not in PROFILE_TYPES:
        yield where + ("type",), f"{what} type {kind!r} is not one of {', '.join(PROFILE_TYPES)}"
    elif kind == "Localhost":
        text = as_str(local)
        if text is None or (what == "appArmorProfile" and not go_trim_space(text)):
            yield where, f"{what} of type Localhost names no localhostProfile"
        elif what == "seccompProfile" and descending_path_problem(text):
            yield where + ("localhostProfile",), \
                f"{what} localhostProfile {text!r} must be a relative path without '..'"
        elif what == "appArmorProfile" and text != go_trim_space(text):
            yield where + ("localhostProfile",), f"{what} localhostProfile {text!r} must not be padded with spaces"
        if what == "appArmorProfile" and text is not None and len(text.encode("utf-8")) > 4095:
            yield where + ("localhostProfile",), \
                f"{what} localhostProfile is {len(text.encode('utf-8'))} bytes long; at most 4095 (a path)"
    elif local is not None:
        yield where + ("localhostProfile",), f"{what} of type {kind} takes no localhostProfile (Localhost only)"


# Namespaced sysctls (k8s.io/component-helpers' sysctl namespaces): a pod sharing the namespace with its node
# (hostNetwork, hostIPC) may not set them.
_IPC_SYSCTLS = {"kernel.sem", "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced", "kernel.shm",
                "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.msg"}


def _shared_namespace(name: str, spec: dict) -> str | None:
    separator = re.search(r"[./]", name)
    if separator and separator.group() == "/":  # net/ipv4/ip_forward: '/' separates, '.' is part of a name
        name = name.translate(str.maketrans("./", "/."))
    name = name.split("*", 1)[0]
    if spec.get("hostNetwork") is True and name.startswith("net."):
        return "network namespace (hostNetwork: true)"
    if spec.get("hostIPC") is True and (name in _IPC_SYSCTLS or name.startswith("fs.mqueue.")):
        return "IPC namespace (hostIPC: true)"
    return None


def _pod_context_problems(pod: PodSettings, recent: bool):
    context = as_map(pod.spec.get("securityContext"))
    if not context:
        return  # nothing below is read of an empty context (most pods write none)
    where = pod.field_path("securityContext")
    yield from _id_problems(context, where, ("runAsUser", "runAsGroup", "fsGroup", "supplementalGroups"))
    policies = [("fsGroupChangePolicy", FS_GROUP_CHANGE_POLICIES), ("seLinuxChangePolicy", SELINUX_CHANGE_POLICIES)]
    if recent:  # before Kubernetes 1.33 the server drops supplementalGroupsPolicy (a gate off by default)
        policies.append(("supplementalGroupsPolicy", SUPPLEMENTAL_GROUPS_POLICIES))
    for name, allowed in policies:
        value = as_str(context.get(name))
        if value is not None and value not in allowed:
            yield where + (name,), f"{name} {value!r} is not one of {', '.join(allowed)}"
    seen: set[str] = set()
    for index, sysctl in enumerate(as_list(context.get("sysctls"))):
        name = as_str(as_map(sysctl).get("name"))
        if name is None:
            continue  # missing: the schema's to report
        if not name or len(name) > 253 or not _SYSCTL.fullmatch(name):
            yield where + ("sysctls", index, "name"), \
                f"sysctl {name!r} is no sysctl name (dotted or slashed lowercase segments, 253 characters at most)"
        elif name in seen:
            yield where + ("sysctls", index, "name"), f"sysctl {name!r} is set twice"
        else:
            shared = _shared_namespace(name, pod.spec)
            if shared:
                yield where + ("sysctls", index, "name"), \
                    f"sysctl {name!r} belongs to the {shared}, which the pod shares with the node"
        seen.add(name)
    yield from _profile_problems(context.get("seccompProfile"), where + ("seccompProfile",), "seccompProfile")
    yield from _profile_problems(context.get("appArmorProfile"), where + ("appArmorProfile",), "appArmorProfile")


def _container_context_problems(container: dict, path: tuple, host_users: bool, recent: bool):
    context = as_map(container.get("securityContext"))
    if not context:
        return  # nothing below is read of an empty context (most containers write none)
    where = path + ("securityContext",)
    yield from _id_problems(context, where, ("runAsUser", "runAsGroup"))
    proc_mount = as_str(context.get("procMount")) if recent else None  # before 1.33: made Default
    if proc_mount is not None and proc_mount not in PROC_MOUNTS:
        yield where + ("procMount",), f"procMount {proc_mount!r} is not Default or Unmasked"
    elif proc_mount == "Unmasked" and host_users:
        yield where + ("procMount",), "procMount Unmasked needs the pod's hostUsers: false"
    yield from _profile_problems(context.get("seccompProfile"), where + ("seccompProfile",), "seccompProfile")
    yield from _profile_problems(context.get("appArmorProfile"), where + ("appArmorProfile",), "appArmorProfile")
    if context.get("allowPrivilegeEscalation") is False:
        if context.get("privileged") is True:
            yield where + ("allowPrivilegeEscalation",), "forbids privilege escalation yet is privileged"
        added = as_list(as_map(context.get("capabilities")).get("add"))
        if "CAP_SYS_ADMIN" in added:
            yield where + ("capabilities", "add", added.index("CAP_SYS_ADMIN")), \
                "forbids privilege escalation yet adds CAP_SYS_ADMIN"


def security_problems(pod: PodSettings, containers: list[tuple[dict, tuple]], recent: bool = True):
    """(path, problem) for a pod spec's security contexts; `containers`: (container, its path); `recent`:
    Kubernetes 1.33 or later (procMount and supplementalGroupsPolicy are read)."""
    yield from _pod_context_problems(pod, recent)
    host_users = pod.spec.get("hostUsers") is not False
    for container, path in containers:
        yield from _container_context_problems(container, path, host_users, recent)
    yield from windows_security_problems(pod, containers, recent)


def _containers(containers) -> list[tuple[dict, tuple]]:
    return [(container.raw, container.path) for container in containers]


@rule(
    name="security-context-invalid", code="DGD629", severity="error", family="admission",
    title="Security contexts are ones the API server takes",
    rationale="""The API server refuses a pod whose user or group IDs (runAsUser, runAsGroup, fsGroup,
    supplementalGroups) are outside 0-2147483647, whose fsGroupChangePolicy, seLinuxChangePolicy,
    supplementalGroupsPolicy or procMount it does not know (the last two from Kubernetes 1.33; procMount
    Unmasked also needs hostUsers: false), whose sysctls are misnamed, repeated or of a namespace it shares
    with the node (net.* with hostNetwork, IPC ones with hostIPC), whose seccomp or AppArmor
    profile has no type or an unknown one, a Localhost type without its localhostProfile (a relative path
    for seccomp) or another type with one, or whose container sets allowPrivilegeEscalation: false while
    being privileged or adding CAP_SYS_ADMIN. In a pod whose os is not linux (none named included),
    windowsOptions have a runAsUserName of a user, or of a NetBIOS or DNS domain and a user separated by
    one backslash (a user of at most 104 characters, not only dots and spaces, without quotes, slashes,
    backslashes, brackets or any of : ; | = , + * ? < > @), a gmsaCredentialSpecName that is a DNS subdomain
    and a credential spec neither empty nor over 64 KiB; a windows pod sets none of the Linux-only settings
    (seccomp, AppArmor and SELinux, user and group IDs, fsGroup, sysctls, capabilities, privileged,
    allowPrivilegeEscalation, readOnlyRootFilesystem, procMount). A Job or Deployment is refused when
    applied; a
    DynamoGraphDeployment is accepted and the pods the operator makes of it are refused.""",
    remediation="Use the runtime's default seccomp profile (type: RuntimeDefault, no localhostProfile), and "
                "drop allowPrivilegeEscalation: false from a privileged container or the privilege.",
    reads=("pod and container securityContext (windowsOptions too) of Job, CronJob, Pod, Deployment, "
           "StatefulSet, DaemonSet, ReplicaSet", "DynamoGraphDeployment component pod templates"),
)
def security_context_invalid(model: Model):
    recent = model.release.kubernetes_at_least("1.33")
    for owner in model.pod_owners():
        for path, problem in security_problems(owner.pod, _containers(owner.all_containers), recent):
            yield Hit(owner.obj, path, f"{owner.label}: {problem}")
