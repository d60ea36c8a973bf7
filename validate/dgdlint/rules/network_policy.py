"""NetworkPolicies as the API server validates them (written from Kubernetes' networking validation):
ports with a known protocol, a port number in range or a valid port name, an endPort only after a numeric
port and not below it; peers that name a pod or namespace selector or an IP block, never an IP block with
another; IP blocks of valid CIDRs whose exceptions lie strictly inside them; at most the two policy types."""

from __future__ import annotations

from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.rules.addresses import parse_cidr
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.selectors import selector_problems
from dgdlint.rules.syntax import as_int, port_problem

PROTOCOLS = ("TCP", "UDP", "SCTP")
POLICY_TYPES = ("Ingress", "Egress")


def port_problems(port: dict, path: tuple):
    protocol = as_str(port.get("protocol"))
    if protocol is not None and protocol not in PROTOCOLS:
        yield path + ("protocol",), f"protocol {protocol!r} is not one of {', '.join(PROTOCOLS)}"
    number, end = port.get("port"), as_int(port.get("endPort"))
    problem = port_problem(number)
    if problem:
        yield path + ("port",), problem
    if end is None:
        return
    if isinstance(number, str):
        yield path + ("endPort",), "has an endPort after a named port (it needs a port number)"
    elif number is None:
        yield path + ("endPort",), "has an endPort without a port"
    elif as_int(number) is not None:
        if end < number:
            yield path + ("endPort",), f"endPort {end} is below port {number}"
        if not 1 <= end <= 65535:
            yield path + ("endPort",), f"endPort {end} is not between 1 and 65535"


def ip_block_problems(block: dict, path: tuple, strict: bool = True):
    cidr = as_str(block.get("cidr"))
    if cidr is None:
        return  # missing: the schema's to report
    if not cidr:
        yield path + ("cidr",), "ipBlock.cidr is empty"
        return
    network, problem = parse_cidr(cidr, strict)
    if problem:
        yield path + ("cidr",), f"ipBlock.cidr {cidr!r} {problem}"
    for index, text in enumerate(as_list(block.get("except"))):
        text, where = as_str(text) or "", path + ("except", index)
        inner, problem = parse_cidr(text, strict)
        if problem:
            yield where, f"ipBlock.except {text!r} {problem}"
        if network is not None and inner is not None and not (inner.version == network.version and
                                                              inner.network_address in network and
                                                              inner.prefixlen > network.prefixlen):
            yield where, f"ipBlock.except {text!r} is not strictly inside the block's cidr {cidr}"


def peer_problems(peer: dict, path: tuple, strict: bool = True):
    named = [key for key in ("podSelector", "namespaceSelector", "ipBlock") if peer.get(key) is not None]
    if not named:
        yield path, "names no peer (a podSelector, namespaceSelector or ipBlock)"
    elif len(named) > 1 and "ipBlock" in named:
        yield path + ("ipBlock",), "has an ipBlock beside a selector (an ipBlock stands alone)"
    for key in ("podSelector", "namespaceSelector"):
        for where, problem in selector_problems(peer.get(key), path + (key,)):
            yield where, f"has an invalid {key}: {problem}"
    if isinstance(peer.get("ipBlock"), dict):
        yield from ip_block_problems(peer["ipBlock"], path + ("ipBlock",), strict)


def policy_problems(spec: dict, strict: bool = True):
    for where, problem in selector_problems(spec.get("podSelector"), ("spec", "podSelector")):
        yield where, f"has an invalid podSelector: {problem}"
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for index, entry in enumerate(as_list(spec.get(direction))):
            entry, where = as_map(entry), ("spec", direction, index)
            for port_index, port in enumerate(as_list(entry.get("ports"))):
                yield from port_problems(as_map(port), where + ("ports", port_index))
            for peer_index, peer in enumerate(as_list(entry.get(peers))):
                yield from peer_problems(as_map(peer), where + (peers, peer_index), strict)
    types = as_list(spec.get("policyTypes"))
    if len(types) > len(POLICY_TYPES):
        yield ("spec", "policyTypes"), f"lists {len(types)} policy types (two at most: Ingress and Egress)"
        return
    for index, kind in enumerate(types):
        if as_str(kind) not in POLICY_TYPES:
            yield ("spec", "policyTypes", index), f"policy type {as_str(kind)!r} is not Ingress or Egress"


@rule(
    name="network-policy-invalid", code="DGD626", severity="error", family="admission",
    title="Network policies are ones the API server takes",
    rationale="""The API server refuses a NetworkPolicy whose port has a protocol other than TCP, UDP or
    SCTP, a number outside 1-65535 or a name that is no port name, or an endPort after a named port or below
    its port; whose peer names nothing, or an ipBlock beside a selector; whose ipBlock CIDR is malformed,
    has leading zeros or bits set past its prefix length (refused from Kubernetes 1.36: with an older
    --kubernetes-version these are left alone, as the server only warns of them), or lists an exception
    not strictly inside it; whose selectors are invalid; or that lists policy types
    other than Ingress and Egress. The JSON schema takes all of these.""",
    remediation="Write CIDRs as networks (10.0.0.0/8), one peer kind per entry, and ports by number or by "
                "the container's port name.",
    reads=("NetworkPolicy",),
)
def network_policy_invalid(model: Model):
    strict = model.release.kubernetes_at_least("1.36")  # strict CIDRs; before, the server warned of them
    for obj in model.objects:
        if obj.kind == "NetworkPolicy" and obj.group == "networking.k8s.io":
            for path, problem in policy_problems(as_map(obj.value.get("spec")), strict):
                yield Hit(obj, path, f"{obj.label}: {problem}")
