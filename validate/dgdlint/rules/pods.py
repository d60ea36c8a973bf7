"""Pod specs of built-in workloads as the API server validates them (its pod validation, written from
Kubernetes' own): container names that are DNS labels, an image for each container, ports in range with
valid and distinct names, env names of printable ASCII without '=', volumes and mounts (volumes.py), probes
and lifecycle hooks (probes.py), the pod's own settings and a container's policies (pod_fields.py), and the
restart policy a Job (OnFailure or Never) or a Deployment-like controller (Always) takes. A
DynamoGraphDeployment's pods are the operator's making (it adds volumes, ports and the image): in its pod
templates only what the operator leaves as written is read (container names, ports, env names, the volumes
written and mount paths but the compilation cache's it fills in, probes and hooks, a v1alpha1 service's
own probes with the main container's merged over them, pod settings and policies)."""

from __future__ import annotations

from dgdlint.model import Model, Workload, as_list, as_map, as_str
from dgdlint.rules.apps import apps_spec_problems
from dgdlint.rules.cron import cronjob_spec_problems
from dgdlint.rules.jobs import job_spec_problems
from dgdlint.rules.pod_annotations import pod_annotation_problems
from dgdlint.rules.pod_containers import OPERATOR_MAIN, pod_wide_problems
from dgdlint.rules.pod_fields import container_field_problems, pod_field_problems, template_metadata_problems
from dgdlint.rules.probes import container_behaviour_problems, merged_probe_problems
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.selectors import selector_problems, selects
from dgdlint.rules.syntax import (
    as_int,
    dns1123_label_problem,
    env_name_problem,
    negative_count_problems,
    port_name_problem,
)
from dgdlint.rules.volumes import filled_claim, mount_problems, volume_problems
from dgdlint.rules.windows import windows_pod_problems

_JOB_RESTART = ("OnFailure", "Never")
_JOB_KINDS = ("Job", "CronJob")
_ALWAYS_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet")


def _port_problems(raw: dict, path: tuple):
    names: set[str] = set()
    for index, port in enumerate(as_list(raw.get("ports"))):
        port, where = as_map(port), path + ("ports", index)
        name = as_str(port.get("name"))
        if name:
            problem = port_name_problem(name)
            if problem:
                yield where + ("name",), f"port name {name!r} {problem}"
            elif name in names:
                yield where + ("name",), f"port name {name!r} is used twice"
            names.add(name)
        number = as_int(port.get("containerPort"))
        if number is not None and not 1 <= number <= 65535:
            what = "is required (0 is none)" if number == 0 else "is not between 1 and 65535"
            yield where + ("containerPort",), f"containerPort {number} {what}"
        host = as_int(port.get("hostPort"))
        if host is not None and host != 0 and not 1 <= host <= 65535:
            yield where + ("hostPort",), f"hostPort {host} is not between 1 and 65535"


# The grace period the Dynamo operator gives a component's pods when their spec sets none (its component
# defaults' base pod spec, which the written pod spec then overrides): 130 s for an endpoint picker, 60 s else.
OPERATOR_GRACE_SECONDS = 60
OPERATOR_EPP_GRACE_SECONDS = 130


def operator_grace_period(component_type: str) -> int:
    return OPERATOR_EPP_GRACE_SECONDS if component_type == "epp" else OPERATOR_GRACE_SECONDS


def _container_problems(container, workload: Workload | None, pod_spec: dict | None = None,
                        set_elsewhere: tuple[str, ...] = (), resize: bool = True, grace_default: int | None = None,
                        filled: str | None = None):
    """What the pod validation refuses in one container; for a DGD's (`workload` None) only what the operator
    leaves as written: the name, the ports and the env names (it adds volumes, ports and the image), its
    hooks against the grace period the operator gives a pod whose spec sets none (`grace_default`), and
    its mounts but those of volume `filled` without a path (the operator gives them one)."""
    raw = container.raw
    name = as_str(raw.get("name"))
    if name:
        problem = dns1123_label_problem(name)
        if problem:
            yield container.path + ("name",), f"container name {name!r} {problem}"
    elif name == "" and workload is not None:  # left out: the schema's; a DGD's main container the operator names
        yield container.path + ("name",), "container has an empty name (a name is required)"
    if workload is not None and not as_str(raw.get("image")):
        yield container.path, f"container {name or '(unnamed)'} has no image (one is required)"
    yield from _port_problems(raw, container.path)
    grace, source = as_map(pod_spec).get("terminationGracePeriodSeconds"), ""
    if type(grace) is not int:  # unset: the server's default of 30; a DGD's, the operator's (`grace_default`)
        grace, source = (30, ", the API server's default") if workload is not None else \
            (grace_default, ", which the operator sets when the pod spec sets none")
    yield from container_behaviour_problems(raw, container.path, grace, "initContainers" in container.path,
                                            set_elsewhere, source)
    for index, entry in enumerate(as_list(raw.get("env"))):
        env_name = as_str(as_map(entry).get("name"))
        if env_name and env_name_problem(env_name):
            yield container.path + ("env", index, "name"), f"env name {env_name!r} {env_name_problem(env_name)}"
    yield from mount_problems(raw, container.path, workload.pod.mountable() if workload is not None else None,
                              as_map(pod_spec).get("volumes"), filled)
    restart = as_str(as_map(pod_spec).get("restartPolicy"))
    yield from container_field_problems(raw, container.path, restart, "initContainers" in container.path, resize)


_JOB_SPEC = {"Job": ("spec",), "CronJob": ("spec", "jobTemplate", "spec")}
_NON_NEGATIVE_JOB_FIELDS = ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                            "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes")


def _count_problems(workload: Workload):
    """Counts and durations out of range: a Job's (not negative), the pod's activeDeadlineSeconds (from 1).
    A negative terminationGracePeriodSeconds is taken, even in a Pod (checked against the API server)."""
    if workload.obj.kind in _JOB_SPEC:
        spec_path = _JOB_SPEC[workload.obj.kind]
        spec = as_map(workload.obj.get(spec_path))
        yield from negative_count_problems(spec, _NON_NEGATIVE_JOB_FIELDS, spec_path)
    deadline = as_int(workload.pod.spec.get("activeDeadlineSeconds"))
    if deadline is not None and not 1 <= deadline <= 2**31 - 1:
        yield workload.pod.field_path("activeDeadlineSeconds"), \
            f"has activeDeadlineSeconds {deadline}; it must be between 1 and 2147483647"


def _selector_problems(workload: Workload):
    """A Deployment-like controller's selector: not empty, and selecting its own pod template's labels."""
    if workload.obj.kind not in _ALWAYS_KINDS:
        return
    spec = as_map(workload.obj.value.get("spec"))
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        return  # missing: the schema's to report
    if not as_map(selector.get("matchLabels")) and not as_list(selector.get("matchExpressions")):
        yield ("spec", "selector"), "has an empty selector, which selects no pods of its own"
        return
    invalid = [(where, f"has an invalid selector: {problem}")
               for where, problem in selector_problems(selector, ("spec", "selector"))]
    yield from invalid
    labels = as_map(as_map(as_map(spec.get("template")).get("metadata")).get("labels"))
    if not invalid and selects(selector, labels) is False:  # None: an operator it cannot read (missing)
        yield ("spec", "template", "metadata", "labels") if labels else ("spec", "template"), \
            "has a selector that does not select its pod template's labels"


def _restart_problem(workload: Workload):
    policy = as_str(workload.pod.spec.get("restartPolicy"))
    where = workload.pod.field_path("restartPolicy") if policy else workload.pod.path
    if workload.obj.kind in _JOB_KINDS and policy not in _JOB_RESTART:
        what = f"restartPolicy {policy}" if policy else "no restartPolicy (Always, by default)"
        yield where, f"has {what}; a Job's pods take OnFailure or Never"
    elif workload.obj.kind in _ALWAYS_KINDS and policy and policy != "Always":
        yield where, f"has restartPolicy {policy}; a {workload.obj.kind}'s pods take Always only"


def _operator_names(graph, component) -> list:
    """(name, container) of a component's containers in the pod the operator makes: a v1alpha1 service's main
    container is named `main`; the others keep their names."""
    named = []
    for container in component.all_containers:
        main = container is component.main
        name = OPERATOR_MAIN if main and graph.shape == "services" else as_str(container.raw.get("name"))
        named.append((name or (OPERATOR_MAIN if main else ""), container))
    return named



@rule(
    name="pod-spec-invalid", code="DGD609", severity="error", family="admission",
    title="Workload pod specs are ones the API server takes",
    rationale="""The API server refuses a Job, Pod or Deployment-like workload whose container name is not a
    DNS label, whose container has no image, whose port is out of range or badly or twice named, whose env
    name is not printable ASCII without '=', whose mount names a volume the pod does not have, or whose
    restart policy its kind does not take: a Job's pods restart OnFailure or Never, and leaving it unset
    means Always, which a Job refuses. A Job's name takes 63 characters at most (its pods' job-name label)
    unless manualSelector is true, a CronJob's 52. A Deployment, StatefulSet, DaemonSet or ReplicaSet whose selector
    is empty, invalid (a label key or value out of syntax, an operator without the values it needs) or
    does not select its own pod template's labels is refused. A Job's counts and durations
    (backoffLimit, parallelism, ttlSecondsAfterFinished, ...) must not be negative; its selector is the
    server's unless manualSelector is true (then it must select the template's labels), and its pods carry
    no job-name label of another name; completionMode is NonIndexed or Indexed, and only an Indexed Job
    takes backoffLimitPerIndex, maxFailedIndexes and a successPolicy (and a name that, with its last index,
    is a pod hostname); a podFailurePolicy has known actions (FailIndex with backoffLimitPerIndex), rules
    on exit codes (In or NotIn, ordered, unique, no 0 with In, of a container the pod has) or on pod
    conditions, restartPolicy Never, and podReplacementPolicy Failed; managedBy is a domain-prefixed path. A pod's
    activeDeadlineSeconds is at least 1. A probe or lifecycle hook has one handler (an exec one with a
    command), ports in range or valid port names, HTTP or HTTPS as its scheme; a liveness or startup
    probe's successThreshold is 1, a readiness probe sets no terminationGracePeriodSeconds, counts are not
    negative, a sleep hook lasts no longer than the pod's grace period; an init container has probes and
    hooks only as a sidecar; imagePullPolicy is Always, IfNotPresent or Never. A volume has a DNS-label name and
    one source with what it needs (a secretName, a config map name, a claimName, a host path, an image reference
    and a known pull policy, an nfs server and absolute path, a csi node publish secret's name; for an in-tree
    disk or network file system the names, IDs and monitors it needs, a LUN or partition from 0 to 255, an
    iSCSI qualified name, an Azure disk's caching mode and kind with a URI of that kind, https:// unless
    Managed, a Quobyte registry of host:port pairs, a gitRepo directory inside the volume), file modes up
    to 0777 and items with a key and a path inside the volume, a downward API file with one fieldRef a volume
    file takes or one resourceFieldRef naming its container, a projected source of one kind (from Kubernetes
    1.37 a cluster trust bundle naming a bundle or a signer, a pod certificate with a signer, a known key
    type, a maxExpirationSeconds from an hour to 91 days, a day for a kubernetes.io signer, and a relative
    file path at least) and no two projected files at one path, an ephemeral volume a claim template with labels
    and annotations only and a claim's spec (in a Pod, a claim name, <pod>-<volume>, of at most 253 characters);
    a mount names a volume, and its subPath stays inside it; a raw block device (volumeDevices) names a claim or
    ephemeral volume of the pod, once, has a devicePath without '..', and is neither mounted nor at a mountPath. A
    pod's dnsPolicy is one of four (None with a dnsConfig nameserver), its dnsConfig has at most 3
    nameservers that are IP addresses and search domains that are DNS names; host aliases have IP addresses
    and DNS names; a pod template's label keys and values and annotation keys are of Kubernetes' syntax (a
    DGD's podTemplate metadata and extraPodMetadata go on its pods), and the annotations the server reads as
    pod settings are valid (seccomp and AppArmor profiles, AppArmor of a container the pod has, a 32-bit
    deletion cost, a JSON list of valid tolerations, the mirror-pod annotation only with a nodeName) and
    agree with the seccompProfile and appArmorProfile fields; readiness and scheduling gates are
    qualified names; hostname
    and subdomain are DNS labels; service account, node, priority and runtime class names are DNS names;
    preemptionPolicy, restartPolicy and os.name take their known values (a linux pod sets no
    windowsOptions, a windows pod no hostPID or hostIPC, nor hostUsers or shareProcessNamespace at all); a
    pod whose os is not linux with a host process container has only those, each as the pod sets it, on the
    host network; shareProcessNamespace goes without hostPID, hostUsers: false without host namespaces;
    on the host network a hostPort is its containerPort. A container's terminationMessagePolicy is File or
    FallbackToLogsOnError, its port protocols TCP, UDP or SCTP, its resizePolicy names cpu or memory once
    each, NotRequired or RestartContainer (not in a pod that never restarts, nor in an init container that
    is no sidecar). Container names are unique across containers and init containers (a v1alpha1
    component's main container is `main`, whatever it is written as); a host port is taken once per protocol
    and host IP by the containers; an init container's restartPolicyRules need its restartPolicy; a pod
    template takes no ephemeral containers, and a pod is created with none and with no node name while
    scheduling gates remain; a hostnameOverride is a DNS subdomain of at most 64 characters, without
    setHostnameAsFQDN or the host network; pod-level resources are cpu, memory and hugepages (not a GPU), a
    request within its limit, each container's limit within the pod's; dynamic resource allocation's claims
    are named once (DNS labels) with one source, and a container uses only the pod's, each once. A pod has
    a container; a container's own restartPolicy is Always, Never or OnFailure, and its restartPolicyRules
    (at most 20) need it, with a known action and exit codes In or NotIn; a created pod's images have no
    leading or trailing spaces; a pod with hostUsers: false has no raw block devices. A CronJob's schedule is
    five fields or a descriptor as the server's cron parser reads them, without TZ or CRON_TZ; its timeZone a
    zone the server can load (not Local); its counts not negative, its concurrencyPolicy Allow, Forbid or
    Replace, its job template without a selector of its own. A Deployment, ReplicaSet, StatefulSet or
    DaemonSet has counts that are not negative, a progress deadline past minReadySeconds, an update strategy
    of a known type with what it takes (integers or percentages, maxUnavailable at most 100%, not everything
    0), a StatefulSet a known pod management and claim retention, a DNS-label service name; its pods take no
    activeDeadlineSeconds. A pod's overhead is read as a container's limits are. None of this is in the JSON
    schemas. A
    DynamoGraphDeployment is accepted with such a container name, port, env name, probe, volume or pod
    setting, and its pods are refused when the operator creates them (a v1alpha1 service's own probe is read
    with its mainContainer's merged over it field by field, as the operator converts it); a main container's
    mount of the compilation cache's claim without a mountPath is not, the operator gives it the cache's
    path.""",
    remediation="Name containers in lowercase letters, digits and '-'; mount only the pod's volumes; give a "
                "Job restartPolicy: Never (or OnFailure).",
    reads=("Job", "CronJob", "Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet",
           "DynamoGraphDeployment (container names, ports, env names, volumes, mount paths, probes and hooks, "
           "pod settings and container policies)"),
)
def pod_spec_invalid(model: Model):
    strict_ips, resize = model.release.kubernetes_at_least("1.36"), model.release.kubernetes_at_least("1.33")
    user_namespaces = resize  # hostUsers is kept from 1.33 too (UserNamespacesSupport)
    attributes_class = model.release.kubernetes_at_least("1.34")  # VolumeAttributesClass on by default
    # ClusterTrustBundleProjection and PodCertificateRequest: on by default from 1.37, dropped before
    certificates = model.release.kubernetes_at_least("1.37")
    for workload in model.workloads:
        own_restart = workload.obj.kind not in _JOB_KINDS + _ALWAYS_KINDS  # else _restart_problem's
        for path, problem in (*_restart_problem(workload), *_count_problems(workload), *job_spec_problems(workload),
                              *cronjob_spec_problems(workload), *apps_spec_problems(workload),
                              *_selector_problems(workload),
                              *volume_problems(workload.pod, attributes_class, certificates)):
            yield Hit(workload.obj, path, f"{workload.label} {problem}")
        named = [(as_str(c.raw.get("name")) or "", c) for c in workload.all_containers]
        for path, problem in (*pod_field_problems(workload.pod, strict_ips, own_restart, user_namespaces),
                              *windows_pod_problems(workload.pod, [(c.raw, c.path) for c in workload.all_containers],
                                                    user_namespaces),
                              *template_metadata_problems(workload.pod),
                              *pod_wide_problems(workload.pod, workload.containers, workload.init_containers,
                                                 model.release, template=workload.obj.kind != "Pod"),
                              *pod_annotation_problems(workload.pod, named, workload.obj.kind == "Pod")):
            yield Hit(workload.obj, path, f"{workload.label}: {problem}")
        for container in workload.all_containers:
            for path, problem in _container_problems(container, workload, workload.pod.spec,
                                                     resize=resize):
                yield Hit(workload.obj, path, f"{workload.label}: {problem}")
    for graph in model.graphs:
        for component in graph.components:
            # a v1alpha1 service's own probes, with its main container's merged over them, are the pod's
            service = as_map(graph.obj.get(component.path)) if graph.shape == "services" else {}
            own = tuple(kind for kind in ("livenessProbe", "readinessProbe") if isinstance(service.get(kind), dict))
            main = OPERATOR_MAIN if graph.shape == "services" else None
            # the written volumes; the operator adds its own beside them
            for path, problem in (*volume_problems(component.pod, attributes_class, certificates),
                                  *pod_field_problems(component.pod, strict_ips, user_namespaces=user_namespaces),
                                  *windows_pod_problems(component.pod, [(c.raw, c.path) for c in
                                                                        component.all_containers], user_namespaces),
                                  *template_metadata_problems(component.pod),
                                  *pod_wide_problems(component.pod, [component.main, *component.sidecars],
                                                     component.init_containers, model.release, False, main),
                                  *pod_annotation_problems(component.pod, _operator_names(graph, component), True,
                                                           (OPERATOR_MAIN,))):
                yield Hit(graph.obj, path, f"{component.label}: {problem}")
            for container in component.all_containers:
                replaced = own if container is component.main else ()
                for path, problem in _container_problems(container, None, component.pod.spec, replaced, resize,
                                                         operator_grace_period(component.type),
                                                         filled_claim(component, container)):
                    yield Hit(graph.obj, path, f"{component.label}: {problem}")
            for kind in own:
                for path, problem in merged_probe_problems(kind, service[kind], component.path + (kind,),
                                                           component.main.raw.get(kind), component.main.path + (kind,)):
                    yield Hit(graph.obj, path, f"{component.label}: {problem}")
