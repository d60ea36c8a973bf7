"""What the API server checks across a pod's containers and in its resource fields (written from Kubernetes'
core validation, v1.37): container names unique across regular and init containers; host ports unique per
protocol and host IP among the regular containers (an init container runs alone, so only against itself);
restart rules only beside a restart policy; no ephemeral container on create; a node name only once the
scheduling gates are cleared; a hostname override; and dynamic resource allocation's claims, the pod's and
those its containers use (pod-level resources and overhead: pod_resources.py). Each function yields
(path, problem)."""

from __future__ import annotations

from dgdlint.model import PodSettings, as_list, as_map, as_str
from dgdlint.rules.pod_resources import overhead_problems, pod_resource_problems
from dgdlint.rules.syntax import dns1123_label_problem, dns1123_subdomain_problem
from dgdlint.scalars import go_trim_space

OPERATOR_MAIN = "main"  # the name the Dynamo operator gives a component's main container


def container_name_problems(regular: list[tuple[str, tuple]], init: list[tuple[str, tuple]]):
    """An init container named like a regular container (or an earlier init container) is refused.
    Duplicates within one list are the list keys' check, except a name the operator gives (`main`)."""
    seen = {name for name, _where in regular if name}
    for name, where in init:
        if name and name in seen:
            yield where + ("name",), f"init container name {name!r} is also a container's name (names are " \
                                     "unique across containers and init containers)"
        elif name:
            seen.add(name)


def host_port_problems(regular: list[tuple[dict, tuple]], init: list[tuple[dict, tuple]]):
    """Two ports taking one host port (same protocol and host IP) in the regular containers, which run
    together; an init container runs alone, so its ports are checked against its own only."""
    groups = [regular] + [[container] for container in init]
    for group in groups:
        taken: dict[str, tuple] = {}
        for raw, where in group:
            for index, port in enumerate(as_list(raw.get("ports"))):
                port = as_map(port)
                host = port.get("hostPort")
                if type(host) is not int or host == 0:
                    continue
                key = f"{as_str(port.get('protocol')) or 'TCP'}/{as_str(port.get('hostIP')) or ''}/{host}"
                if key in taken:
                    yield where + ("ports", index, "hostPort"), \
                        f"hostPort {host} ({key.split('/')[0]}) is taken twice in the pod"
                else:
                    taken[key] = where + ("ports", index)


CONTAINER_RESTART_POLICIES = ("Always", "Never", "OnFailure")
EXIT_CODE_OPERATORS = ("In", "NotIn")


def restart_problems(raw: dict, where: tuple, init: bool, rules_kept: bool, restart_all: bool):
    """A container's own restartPolicy and restartPolicyRules. `rules_kept`: Kubernetes 1.35 or later, where the
    server keeps the rules and takes a restart policy on any container; before, only an init container has one,
    Always (a sidecar). `restart_all`: 1.36 or later, where a rule may restart all containers, and a sidecar's
    rules are read as any container's."""
    policy, rules = raw.get("restartPolicy"), as_list(raw.get("restartPolicyRules"))
    if not rules_kept:
        if init and policy is not None and policy != "Always":
            yield where + ("restartPolicy",), f"init container restartPolicy {as_str(policy)!r} is not Always " \
                                              "(the only one an init container takes before Kubernetes 1.35)"
        return
    if policy is None:
        if rules:
            yield where + ("restartPolicy",), "sets restartPolicyRules without a restartPolicy (they need one)"
        return
    if init and policy == "Always" and not restart_all:
        if rules:
            yield where + ("restartPolicyRules",), "a sidecar (restartPolicy Always) takes no restartPolicyRules " \
                                                   "before Kubernetes 1.36"
        return
    if policy not in CONTAINER_RESTART_POLICIES:
        yield where + ("restartPolicy",), f"restartPolicy {as_str(policy)!r} is not one of " \
                                          f"{', '.join(CONTAINER_RESTART_POLICIES)}"
    if len(rules) > 20:
        yield where + ("restartPolicyRules",), f"has {len(rules)} restartPolicyRules; at most 20"
    actions = ("Restart", "RestartAllContainers") if restart_all else ("Restart",)
    for index, rule in enumerate(rules):
        rule, at = as_map(rule), where + ("restartPolicyRules", index)
        if rule.get("action") not in actions:
            yield at + ("action",), f"restart rule action {as_str(rule.get('action'))!r} is not one of " \
                                    f"{', '.join(actions)}"
        codes = rule.get("exitCodes")
        if not isinstance(codes, dict):
            yield at + ("exitCodes",), "restart rule has no exitCodes"
            continue
        if codes.get("operator") not in EXIT_CODE_OPERATORS:
            yield at + ("exitCodes", "operator"), f"exitCodes operator {as_str(codes.get('operator'))!r} is not In " \
                                                  "or NotIn"
        if len(as_list(codes.get("values"))) > 255:
            yield at + ("exitCodes", "values"), f"has {len(as_list(codes.get('values')))} exit codes; at most 255"


def create_problems(pod: PodSettings, template: bool):
    """What a pod may not have when it is created: ephemeral containers (added later, through their own
    subresource), and a node name while scheduling gates remain. `template`: a workload's pod template, which
    the server validates as a template (it refuses ephemeral containers there too, and leaves the node name
    to each pod's creation)."""
    spec = pod.spec
    if as_list(spec.get("ephemeralContainers")):
        what = "a pod template takes no ephemeral containers" if template else \
            "ephemeral containers cannot be set when a pod is created"
        yield pod.field_path("ephemeralContainers"), what
    if not template and as_str(spec.get("nodeName")) and as_list(spec.get("schedulingGates")):
        yield pod.field_path("nodeName"), "nodeName cannot be set while schedulingGates remain"


def hostname_override_problems(pod: PodSettings):
    spec = pod.spec
    override = spec.get("hostnameOverride")
    if override is None:
        return
    where = pod.field_path("hostnameOverride")
    if spec.get("setHostnameAsFQDN") is True:
        yield where, "hostnameOverride may not be set with setHostnameAsFQDN: true"
    if spec.get("hostNetwork") is True:
        yield where, "hostnameOverride may not be set on the host network"
    text = as_str(override) or ""
    if len(text) > 64:
        yield where, f"hostnameOverride is {len(text)} characters long; at most 64"
    problem = dns1123_subdomain_problem(text)
    if problem:
        yield where, f"hostnameOverride {text!r} {problem}"


def resource_claim_problems(pod: PodSettings, containers: list[tuple[dict, tuple]]):
    """Dynamic resource allocation (from 1.34): the pod's claims each named (a DNS label, once) with one source,
    a claim or a claim template named as objects are; a container's claims name one of the pod's, each claim
    (or claim and request) once, a request a DNS label."""
    names: set[str] = set()
    for index, claim in enumerate(as_list(pod.spec.get("resourceClaims"))):
        claim, where = as_map(claim), pod.field_path("resourceClaims") + (index,)
        name = as_str(claim.get("name")) or ""
        if not name:
            yield where + ("name",), "resource claim has no name"
        elif name in names:
            yield where + ("name",), f"resource claim name {name!r} is used twice"
        else:
            problem = dns1123_label_problem(name)
            if problem:
                yield where + ("name",), f"resource claim name {name!r} {problem}"
            names.add(name)
        sources = [key for key in ("resourceClaimName", "resourceClaimTemplateName") if claim.get(key) is not None]
        if len(sources) != 1:
            yield where, "resource claim needs exactly one of resourceClaimName and resourceClaimTemplateName"
        for key in sources:
            text = as_str(claim.get(key)) or ""
            problem = dns1123_subdomain_problem(text)
            if problem:
                yield where + (key,), f"{key} {text!r} {problem}"
    for raw, at in containers:
        used: set[str] = set()
        for index, claim in enumerate(as_list(as_map(raw.get("resources")).get("claims"))):
            claim, where = as_map(claim), at + ("resources", "claims", index)
            name, request = as_str(claim.get("name")) or "", as_str(claim.get("request")) or ""
            if not name:
                yield where, "container resource claim has no name"
                continue
            key = f"{name}/{request}" if request else name
            if request:
                problem = dns1123_label_problem(request)
                if problem:
                    yield where + ("request",), f"claim request {request!r} {problem}"
            if name in used or key in used or (not request and any(u.startswith(name + "/") for u in used)):
                yield where, f"container resource claim {key!r} is used twice"
            used.add(key)
            if name not in names:
                yield where, f"container resource claim {name!r} is not one of the pod's resourceClaims"


def pod_wide_problems(pod: PodSettings, regular: list, init: list, release, template: bool,
                      main_name: str | None = None):
    """Every check above for one pod: `regular` and `init` its Containers; `template` a workload's pod template
    (a Pod, and a DGD component's pod as the operator creates it, are not); `main_name` the name the operator
    gives the first regular container whatever it is written as (a v1alpha1 component's main container)."""
    names = [(main_name if main_name and index == 0 else as_str(c.raw.get("name")) or "", c.path)
             for index, c in enumerate(regular)]
    if main_name:
        for name, where in names[1:]:
            if name == main_name:
                yield where + ("name",), f"container name {name!r} is the one the operator gives the main container"
    yield from container_name_problems(names, [(as_str(c.raw.get("name")) or "", c.path) for c in init])
    yield from host_port_problems([(c.raw, c.path) for c in regular], [(c.raw, c.path) for c in init])
    rules_kept, restart_all = release.kubernetes_at_least("1.35"), release.kubernetes_at_least("1.36")
    for container in regular:
        yield from restart_problems(container.raw, container.path, False, rules_kept, restart_all)
    for container in init:
        yield from restart_problems(container.raw, container.path, True, rules_kept, restart_all)
    if not regular and pod.spec.get("containers") == []:  # missing from a written spec: the schema's to report
        yield pod.field_path("containers"), "has no containers (a pod needs at least one)"
    elif not regular and pod.obj.get(pod.path) is None:  # no spec at all, where the schema asks for none
        yield pod.field_path("containers"), "has no pod spec, so no containers (a pod needs at least one)"
    yield from create_problems(pod, template)
    if not template:  # a template's images are read as each pod is created
        for container in (*regular, *init):
            image = container.raw.get("image")
            if isinstance(image, str) and image != go_trim_space(image):
                yield container.path + ("image",), f"image {image!r} has leading or trailing spaces"
    if pod.spec.get("hostUsers") is False and release.kubernetes_at_least("1.33"):
        for container in (*regular, *init):
            if as_list(container.raw.get("volumeDevices")):
                yield container.path + ("volumeDevices",), "volumeDevices are refused in a pod with hostUsers: false"
    if release.kubernetes_at_least("1.35"):
        yield from hostname_override_problems(pod)
    yield from overhead_problems(pod)
    if release.kubernetes_at_least("1.34"):
        yield from pod_resource_problems(pod, [(c.raw, c.path) for c in regular], [c.raw for c in init], template)
        yield from resource_claim_problems(pod, [(c.raw, c.path) for c in (*regular, *init)])
