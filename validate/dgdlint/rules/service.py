"""Services as the API server validates them on create (written from Kubernetes 1.37's ValidateServiceCreate
and what it calls). The v1 defaults come first, as on the server: an empty type is ClusterIP, an empty
protocol TCP, an empty or zero targetPort the port, an empty session affinity None (which drops its config),
ClientIP's timeout 10800 when left out. So do the Service registry's steps before validation: clusterIP is
copied into an empty clusterIPs, an unset ipFamilyPolicy is SingleStack (RequireDualStack for a headless
Service without a selector), and requested node ports are allocated from the default node port range.

What depends on the cluster (its service CIDRs and IP families) is left alone: a clusterIP outside the
service range, an IPv6 family on an IPv4 cluster. Two ports of one port and protocol are
kubernetes-list-duplicate's (the list's keys), not this rule's."""

from __future__ import annotations

from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.release import DEFAULT_NODE_PORTS
from dgdlint.rules.addresses import endpoint_ip_problem, ip_problem, parse_cidr
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import (
    as_int,
    dns1123_label_problem,
    dns1123_subdomain_problem,
    label_value_problem,
    port_problem,
    qualified_name_problem,
)

TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")
PROTOCOLS = ("TCP", "UDP", "SCTP")
AFFINITIES = ("ClientIP", "None")
TRAFFIC_POLICIES = ("Cluster", "Local")
IP_FAMILIES = ("IPv4", "IPv6")
FAMILY_POLICIES = ("SingleStack", "PreferDualStack", "RequireDualStack")
MAX_AFFINITY_SECONDS = 86400
SOURCE_RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges"
TOPOLOGY_MODE, TOPOLOGY_HINTS = "service.kubernetes.io/topology-mode", "service.kubernetes.io/topology-aware-hints"


def _node_port_problem(number: int, port_range: tuple[int, int]) -> str | None:
    low, high = port_range
    if low <= number <= high:
        return None
    if port_range == DEFAULT_NODE_PORTS:
        return f"is outside the node port range {low}-{high} (kube-apiserver's default; give the cluster's own " \
               "with --service-node-port-range)"
    return f"is outside the node port range {low}-{high} (--service-node-port-range)"


def port_problems(spec: dict, kind: str, port_range: tuple[int, int] = DEFAULT_NODE_PORTS):
    """Each port: a DNS-label name (required, and unique, when there are several), a number in range, a known
    protocol, a target port number or name, an appProtocol of qualified-name syntax; a node port only where
    the type allocates one, in range, and not one another entry holds."""
    ports = [as_map(port) for port in as_list(spec.get("ports"))]
    names: set[str] = set()
    node_ports: dict[int, list[tuple[int | None, str]]] = {}  # node port -> (port, protocol) of each entry
    for index, port in enumerate(ports):
        at = ("spec", "ports", index)
        name = as_str(port.get("name")) or ""
        if not name and len(ports) > 1:
            yield at + ("name",), "has no name (each port needs one when the Service has several)"
        elif name and dns1123_label_problem(name):
            yield at + ("name",), f"port name {name!r} {dns1123_label_problem(name)}"
        elif name in names:
            yield at + ("name",), f"port name {name!r} is used twice"
        names.add(name)
        number = as_int(port.get("port"))
        if number is not None and not 1 <= number <= 65535:
            yield at + ("port",), f"port {number} is not between 1 and 65535"
        protocol = as_str(port.get("protocol")) or "TCP"
        if protocol not in PROTOCOLS:
            yield at + ("protocol",), f"protocol {protocol!r} is not one of {', '.join(PROTOCOLS)}"
        target = port.get("targetPort")
        if target not in (None, 0, "") and port_problem(target):
            yield at + ("targetPort",), f"targetPort: {port_problem(target)}"
        app = as_str(port.get("appProtocol"))
        if app is not None and qualified_name_problem(app):
            yield at + ("appProtocol",), f"appProtocol {app!r} {qualified_name_problem(app)}"
        node = as_int(port.get("nodePort"))
        if not node:
            continue
        allocates = kind in ("NodePort", "LoadBalancer")
        if kind == "ClusterIP":
            yield at + ("nodePort",), "has a nodePort, which type ClusterIP does not take"
        elif allocates and _node_port_problem(node, port_range):
            yield at + ("nodePort",), f"nodePort {node} {_node_port_problem(node, port_range)}"
        earlier = node_ports.setdefault(node, [])  # the validation's key is the protocol and node port; the
        # allocation gives a node port to the first port number that asks for it
        if any(other == protocol for _number, other in earlier) or (allocates and earlier and
                                                                     earlier[0][0] != number):
            yield at + ("nodePort",), f"nodePort {node} is taken by an earlier port (one node port serves one " \
                                      "port number, once per protocol)"
        earlier.append((number, protocol))


def cluster_ip_problems(spec: dict, strict: bool):
    """clusterIP and clusterIPs agree; the addresses are valid, at most one per family, 'None' alone; IP
    families and the policy are known values that fit the addresses (the registry's pre-validation)."""
    single = as_str(spec.get("clusterIP")) or ""
    written = [as_str(ip) or "" for ip in as_list(spec.get("clusterIPs"))]
    ips = written or ([single] if single else [])
    where = ("spec", "clusterIPs") if written else ("spec", "clusterIP")
    if single and written and written[0] != single:
        yield where, f"clusterIPs' first value {written[0]!r} is not clusterIP {single!r}"
    elif not single and written:
        yield where, "has clusterIPs without clusterIP (set both, the first of clusterIPs equal to clusterIP)"
    families = [as_str(family) for family in as_list(spec.get("ipFamilies"))]
    for index, family in enumerate(families):
        if family not in IP_FAMILIES:
            yield ("spec", "ipFamilies", index), f"IP family {family!r} is not IPv4 or IPv6"
        elif family in families[:index]:
            yield ("spec", "ipFamilies", index), f"IP family {family} is listed twice"
    policy = as_str(spec.get("ipFamilyPolicy"))
    if spec.get("ipFamilyPolicy") is not None and policy not in FAMILY_POLICIES:
        yield ("spec", "ipFamilyPolicy"), f"ipFamilyPolicy {policy!r} is not one of {', '.join(FAMILY_POLICIES)}"
    bad = False
    for index, ip in enumerate(ips):
        at = where + (index,) if written else where
        if index == 0 and ip == "None":
            if len(ips) > 1:
                bad = True
                yield where, "has 'None' among other cluster IPs ('None' must be the only one)"
            continue
        if ip_problem(ip, strict):
            bad = True
            yield at, f"cluster IP {ip!r} {ip_problem(ip, strict)}"
    if len(ips) > 2:
        yield where, f"lists {len(ips)} cluster IPs (two at most, one per IP family)"
    if bad or len(ips) > 2:
        return
    versions = ["IPv6" if ":" in ip else "IPv4" for ip in ips]
    if len(ips) == 2 and versions[0] == versions[1]:
        yield where, f"lists two {versions[0]} cluster IPs (one per IP family at most)"
    if ips != ["None"]:
        for index, (version, family) in enumerate(zip(versions, families, strict=False)):
            if family in IP_FAMILIES and version != family:
                yield where + (index,) if written else where, f"cluster IP {ips[index]!r} is not {family}, " \
                                                               f"as ipFamilies[{index}] says"
    if policy is None:  # the registry's default
        policy = "RequireDualStack" if single == "None" and not as_map(spec.get("selector")) else "SingleStack"
    if policy == "SingleStack" and (len(ips) == 2 or len(families) == 2):
        yield ("spec", "ipFamilyPolicy"), "ipFamilyPolicy is SingleStack (the default) with two cluster IPs or " \
                                          "IP families (it must be PreferDualStack or RequireDualStack)"


def external_name_problems(spec: dict):
    """An ExternalName Service: a DNS subdomain as externalName (a trailing dot taken), no cluster IPs, no IP
    families or policy."""
    for key in ("clusterIP", "clusterIPs"):
        if as_str(spec.get(key)) or as_list(spec.get(key)):
            yield ("spec", key), f"{key} is set, which type ExternalName does not take"
            break
    if as_list(spec.get("ipFamilies")):
        yield ("spec", "ipFamilies"), "ipFamilies is set, which type ExternalName does not take"
    if spec.get("ipFamilyPolicy") is not None:
        yield ("spec", "ipFamilyPolicy"), "ipFamilyPolicy is set, which type ExternalName does not take"
    name = (as_str(spec.get("externalName")) or "").removesuffix(".")
    if not name:
        yield ("spec", "externalName"), "type ExternalName needs an externalName (the DNS name it stands for)"
    elif dns1123_subdomain_problem(name):
        yield ("spec", "externalName"), f"externalName {name!r} {dns1123_subdomain_problem(name)}"


def traffic_problems(spec: dict, kind: str, recent: bool, port_range: tuple[int, int] = DEFAULT_NODE_PORTS):
    """Traffic policies only where they apply, of the values Kubernetes knows; a health check node port only
    for a LoadBalancer with externalTrafficPolicy Local; trafficDistribution of the known values."""
    external = as_str(spec.get("externalTrafficPolicy")) or ""
    accessible = kind in ("NodePort", "LoadBalancer") or (kind == "ClusterIP" and as_list(spec.get("externalIPs")))
    if external and not accessible:
        yield ("spec", "externalTrafficPolicy"), "externalTrafficPolicy is set on a Service not reachable from " \
            "outside (only NodePort, LoadBalancer or ClusterIP with externalIPs take it)"
    elif external and external not in TRAFFIC_POLICIES:
        yield ("spec", "externalTrafficPolicy"), f"externalTrafficPolicy {external!r} is not Cluster or Local"
    internal = spec.get("internalTrafficPolicy")
    if internal is not None and as_str(internal) not in TRAFFIC_POLICIES:
        yield ("spec", "internalTrafficPolicy"), f"internalTrafficPolicy {as_str(internal)!r} is not Cluster or Local"
    health = as_int(spec.get("healthCheckNodePort"))
    if health and not (kind == "LoadBalancer" and external == "Local"):
        yield ("spec", "healthCheckNodePort"), "healthCheckNodePort is set, which only a LoadBalancer with " \
                                              "externalTrafficPolicy Local takes"
    elif health and _node_port_problem(health, port_range):
        yield ("spec", "healthCheckNodePort"), \
            f"healthCheckNodePort {health} {_node_port_problem(health, port_range)}"
    known = ("PreferClose", "PreferSameZone", "PreferSameNode") if recent else ("PreferClose",)
    distribution = spec.get("trafficDistribution")
    if distribution is not None and as_str(distribution) not in known:
        yield ("spec", "trafficDistribution"), f"trafficDistribution {as_str(distribution)!r} is not one of " \
                                               f"{', '.join(known)}"


def load_balancer_problems(spec: dict, annotations: dict, kind: str, strict: bool):
    """Source ranges (the field, else the annotation), allocateLoadBalancerNodePorts and loadBalancerClass
    only on a LoadBalancer; source ranges as CIDRs (spaces around each taken), the class a qualified name."""
    balancer = kind == "LoadBalancer"
    ranges = as_list(spec.get("loadBalancerSourceRanges"))
    annotation = as_str(annotations.get(SOURCE_RANGES))
    at: tuple = ()
    values: list[tuple[tuple, str]] = []  # (where in `at`, the CIDR as written)
    if ranges:
        at = ("spec", "loadBalancerSourceRanges")
        values = [((index,), as_str(text) or "") for index, text in enumerate(ranges)]
    elif annotation is not None:  # read only when the field is empty
        at = ("metadata", "annotations", SOURCE_RANGES)
        values = [((), text) for text in annotation.split(",")] if annotation.strip() else []
    if at and not balancer:
        yield at, f"{at[-1]} is set, which only type LoadBalancer takes"
    for inside, text in values:
        _network, problem = parse_cidr(text.strip(), strict)
        if problem:
            yield at + inside, f"source range {text.strip()!r} {problem}"
    if spec.get("allocateLoadBalancerNodePorts") is not None and not balancer:
        yield ("spec", "allocateLoadBalancerNodePorts"), "allocateLoadBalancerNodePorts is set, which only type " \
                                                         "LoadBalancer takes"
    name = spec.get("loadBalancerClass")
    if name is not None and not balancer:
        yield ("spec", "loadBalancerClass"), "loadBalancerClass is set, which only type LoadBalancer takes"
    elif isinstance(name, str) and qualified_name_problem(name):
        yield ("spec", "loadBalancerClass"), f"loadBalancerClass {name!r} {qualified_name_problem(name)}"


def service_problems(obj, recent: bool, strict: bool, port_range: tuple[int, int] = DEFAULT_NODE_PORTS):
    spec, annotations = as_map(obj.value.get("spec")), as_map(as_map(obj.value.get("metadata")).get("annotations"))
    kind = as_str(spec.get("type")) or "ClusterIP"
    if kind not in TYPES:
        yield ("spec", "type"), f"type {kind!r} is not one of {', '.join(TYPES)}"
    single, written = as_str(spec.get("clusterIP")) or "", as_list(spec.get("clusterIPs"))
    headless = [as_str(ip) for ip in written] == ["None"] if written else single == "None"
    if headless and kind in ("NodePort", "LoadBalancer"):
        yield ("spec", "clusterIPs", 0) if written else ("spec", "clusterIP"), \
            f"a {kind} Service cannot be headless (clusterIP None)"
    if kind == "ExternalName":
        yield from external_name_problems(spec)
    else:
        yield from cluster_ip_problems(spec, strict)
    if not as_list(spec.get("ports")) and not headless and kind != "ExternalName":
        yield ("spec", "ports"), "has no ports (only a headless or ExternalName Service may have none)"
    yield from port_problems(spec, kind, port_range)
    for key, value in as_map(spec.get("selector")).items():
        if qualified_name_problem(str(key)):
            yield ("spec", "selector", key), f"selector key {str(key)!r} {qualified_name_problem(str(key))}"
        elif isinstance(value, str) and label_value_problem(value):
            yield ("spec", "selector", key), f"selector {key} value {value!r} {label_value_problem(value)}"
    affinity = as_str(spec.get("sessionAffinity")) or "None"
    timeout = as_int(as_map(as_map(spec.get("sessionAffinityConfig")).get("clientIP")).get("timeoutSeconds"))
    if affinity not in AFFINITIES:
        yield ("spec", "sessionAffinity"), f"sessionAffinity {affinity!r} is not ClientIP or None"
    elif affinity == "ClientIP" and timeout is not None and not 0 < timeout <= MAX_AFFINITY_SECONDS:
        yield ("spec", "sessionAffinityConfig", "clientIP", "timeoutSeconds"), \
            f"session affinity timeoutSeconds {timeout} is not between 1 and {MAX_AFFINITY_SECONDS}"
    for index, text in enumerate(as_list(spec.get("externalIPs"))):
        text = as_str(text) or ""
        problem = ip_problem(text, strict) or endpoint_ip_problem(text)
        if problem:
            yield ("spec", "externalIPs", index), f"external IP {text!r} {problem}"
    yield from traffic_problems(spec, kind, recent, port_range)
    yield from load_balancer_problems(spec, annotations, kind, strict)
    mode, hints = as_str(annotations.get(TOPOLOGY_MODE)), as_str(annotations.get(TOPOLOGY_HINTS))
    if mode is not None and hints is not None and mode != hints:
        yield ("metadata", "annotations", TOPOLOGY_MODE), f"annotation {TOPOLOGY_MODE} {mode!r} differs from " \
                                                          f"{TOPOLOGY_HINTS} {hints!r} (they must agree)"


@rule(
    name="service-spec-invalid", code="DGD631", severity="error", family="admission",
    title="Services are ones the API server takes",
    rationale="""The API server refuses a Service of an unknown type; an ExternalName Service without a
    DNS-subdomain externalName or with cluster IPs or IP families; ports without names when there are
    several, with duplicate or non-DNS-label names, a number outside 1-65535, an unknown protocol, a target
    port that is no port number or name, or a nodePort on a ClusterIP Service, outside the node port range
    (30000-32767, kube-apiserver's default, or the cluster's own given with --service-node-port-range) or
    held by another port;
    clusterIP and clusterIPs that disagree, are no addresses, hold two of one family or put 'None' beside
    another, or a headless NodePort or LoadBalancer; unknown IP families or policies, or SingleStack with
    two families; invalid selector labels; a session affinity timeout outside 1-86400 seconds; external
    IPs that are loopback, link-local or unspecified; traffic policies on Services they do not apply to or
    of unknown values; a health check node port without a Local LoadBalancer; source ranges that are no
    CIDRs; LoadBalancer-only fields on other types; and an unknown trafficDistribution. The JSON schema
    takes all of these (strict addresses and CIDRs from Kubernetes 1.36, as --kubernetes-version says).""",
    remediation="Fix the field as the message says: name every port when there are several, leave nodePort, "
                "clusterIP and load balancer fields to the types that take them.",
    reads=("Service spec (type, ports, clusterIP(s), IP families, selector, session affinity, traffic policies, "
           "external IPs, load balancer fields) and its source-range and topology annotations",),
)
def service_spec_invalid(model: Model):
    recent = model.release.kubernetes_at_least("1.34")  # PreferSameZone and PreferSameNode on by default
    strict = model.release.kubernetes_at_least("1.36")  # strict addresses and CIDRs
    for obj in model.objects:
        if obj.kind == "Service" and obj.group == "":
            for path, problem in service_problems(obj, recent, strict, model.release.node_ports):
                yield Hit(obj, path, f"{obj.label}: {problem}")
