"""IP addresses and CIDRs as the API server reads them (written from k8s.io/utils' sloppy parsers, which
take IPv4 octets with leading zeros, and apimachinery's strict CIDR validation, on by default since
Kubernetes 1.36: no leading zeros, no IPv4-mapped IPv6, no bits set past the prefix length; before, the
server only warned of those), for CIDRs and for the addresses of legacy fields alike."""

from __future__ import annotations

import ipaddress
import re

_IPV4_SLOPPY = re.compile(r"([0-9]+)\.([0-9]+)\.([0-9]+)\.([0-9]+)", re.ASCII)


def is_ip_sloppy(text: str) -> bool:
    """Whether Kubernetes' ParseIPSloppy reads `text` as an address (IPv4 octets may have leading zeros)."""
    ipv4 = _IPV4_SLOPPY.fullmatch(text)
    if ipv4:
        return all(int(octet) <= 255 for octet in ipv4.groups())
    if ":" not in text or "%" in text:
        return False
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _leading_zero_octet(address: str) -> bool:
    return "." in address and ":" not in address and any(len(o) > 1 and o.startswith("0") for o in address.split("."))


def ip_problem(text: str, strict: bool) -> str | None:
    """An address of a legacy field (hostAliases, dnsConfig): as k8s.io/utils reads it; with `strict` (1.36
    on) without leading zeros or an IPv4-mapped IPv6 form."""
    if not is_ip_sloppy(text):
        return "is not a valid IP address such as 10.9.8.7 or 2001:db8::ffff"
    if strict and _leading_zero_octet(text):
        return "must not have leading 0s"
    if strict and ":" in text and ipaddress.IPv6Address(text).ipv4_mapped is not None:
        return "must not be an IPv4-mapped IPv6 address"
    return None


def parse_cidr(text: str, strict: bool = True) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network | None,
                                                         str | None]:
    """(network, problem): the network the CIDR names (None when it names none) and what the API server says
    of it (None when fine); without `strict` (Kubernetes before 1.36) only a CIDR it cannot parse is refused."""
    invalid = "is not a valid CIDR such as 10.9.8.0/24 or 2001:db8::/64"
    address, slash, bits = text.partition("/")
    if not slash or not bits.isascii() or not bits.isdigit() or not is_ip_sloppy(address):
        return None, invalid
    leading_zero = (len(bits) > 1 and bits.startswith("0")) or _leading_zero_octet(address)
    if ":" in address:
        ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.IPv6Address(address)
    else:
        ip = ipaddress.IPv4Address(".".join(str(int(octet)) for octet in address.split(".")))
    if int(bits) > ip.max_prefixlen:
        return None, invalid
    network = ipaddress.ip_network(f"{ip}/{int(bits)}", strict=False)
    if not strict:
        return network, None
    if leading_zero:
        return network, "must not have leading 0s in the address or the prefix length"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return network, "must not be an IPv4-mapped IPv6 address"
    if ip != network.network_address:
        return network, f"has bits set past the prefix length (the network is {network})"
    return network, None


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The address `text` names (one is_ip_sloppy takes); an IPv4-mapped IPv6 address read as its IPv4
    address, as Go's net.IP reads one."""
    if ":" not in text:
        return ipaddress.IPv4Address(".".join(str(int(octet)) for octet in text.split(".")))
    address = ipaddress.IPv6Address(text)
    return address.ipv4_mapped or address


def endpoint_ip_problem(text: str) -> str | None:
    """Kubernetes' ValidateEndpointIP for an address is_ip_sloppy takes (a Service's externalIPs): not
    unspecified, loopback, link-local or link-local multicast (224.0.0.0/24, or IPv6 multicast of
    link-local scope, ff02::/16 and the like)."""
    address = _address(text)
    if address.is_unspecified:
        return "must not be unspecified (0.0.0.0 or ::)"
    if address.is_loopback:
        return "must not be a loopback address (127.0.0.0/8, ::1)"
    if address.version == 4 and address in ipaddress.IPv4Network("169.254.0.0/16") or \
            address.version == 6 and address in ipaddress.IPv6Network("fe80::/10"):
        return "must not be a link-local address (169.254.0.0/16, fe80::/10)"
    if address.version == 4 and address in ipaddress.IPv4Network("224.0.0.0/24") or \
            address.version == 6 and address.packed[0] == 0xFF and address.packed[1] & 0x0F == 0x02:
        return "must not be a link-local multicast address (224.0.0.0/24, or IPv6 multicast of link-local scope " \
               "such as ff02::1)"
    return None
