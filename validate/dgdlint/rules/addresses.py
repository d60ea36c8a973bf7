"""IP addresses and CIDRs as the API server reads them (written from k8s.io/utils' sloppy parsers, which
take IPv4 octets with leading zeros, and apimachinery's strict CIDR validation, on by default since
Kubernetes 1.36: no leading zeros, no IPv4-mapped IPv6, no bits set past the prefix length; before, the
server only warned of those), for CIDRs and for the addresses of legacy fields alike."""

from __future__ import annotations

import ipaddress

_BIG = 0xFFFFFF  # where the parser's number readers give up


def _number(text: str, hexadecimal: bool) -> tuple[int, int] | None:
    """(value, characters read) of the decimal or hexadecimal digits `text` starts with, as the parser's
    dtoi and xtoi read them (any number of digits, leading zeros too, below 0xFFFFFF); None when none."""
    value = read = 0
    digits = "0123456789abcdefABCDEF" if hexadecimal else "0123456789"
    for read, char in enumerate(text):  # noqa: B007
        if char not in digits:
            break
        value = value * (16 if hexadecimal else 10) + int(char, 16)
        if value >= _BIG:
            return None
    else:
        read = len(text)
    return (value, read) if read else None


def _ipv4(text: str) -> bytes | None:
    octets = []
    for index in range(4):
        if not text:
            return None
        if index:
            if text[0] != ".":
                return None
            text = text[1:]
        read = _number(text, hexadecimal=False)
        if read is None or read[0] > 0xFF:
            return None
        octets.append(read[0])
        text = text[read[1]:]
    return bytes(octets) if not text else None


def _ipv6(text: str) -> bytes | None:
    address, ellipsis, at = bytearray(16), -1, 0
    if text.startswith("::"):
        ellipsis, text = 0, text[2:]
        if not text:
            return bytes(address)
    while at < 16:
        read = _number(text, hexadecimal=True)
        if read is None or read[0] > 0xFFFF:
            return None
        value, length = read
        if length < len(text) and text[length] == ".":  # a trailing IPv4 address
            if (ellipsis < 0 and at != 12) or at + 4 > 16:
                return None
            ipv4 = _ipv4(text)
            if ipv4 is None:
                return None
            address[at:at + 4], text, at = ipv4, "", at + 4
            break
        address[at], address[at + 1], at = value >> 8, value & 0xFF, at + 2
        text = text[length:]
        if not text:
            break
        if text[0] != ":" or len(text) == 1:
            return None
        text = text[1:]
        if text[0] == ":":
            if ellipsis >= 0:
                return None
            ellipsis, text = at, text[1:]
            if not text:
                break
    if text:
        return None
    if at < 16:
        if ellipsis < 0:
            return None
        gap = 16 - at
        address[ellipsis + gap:16] = address[ellipsis:at]
        address[ellipsis:ellipsis + gap] = bytes(gap)
    elif ellipsis >= 0:
        return None
    return bytes(address)


def sloppy_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address Kubernetes' ParseIPSloppy reads in `text` (Go's old net.ParseIP, kept by k8s.io/utils):
    IPv4 when a '.' comes before any ':', octets with any number of leading zeros, IPv6 groups of any
    number of hex digits up to ffff; None when it reads none."""
    for char in text:
        if char == ".":
            ipv4 = _ipv4(text)
            return ipaddress.IPv4Address(ipv4) if ipv4 else None
        if char == ":":
            ipv6 = _ipv6(text)
            return ipaddress.IPv6Address(ipv6) if ipv6 else None
    return None


def is_ip_sloppy(text: str) -> bool:
    """Whether Kubernetes' ParseIPSloppy reads `text` as an address."""
    return sloppy_ip(text) is not None


def _strict(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address Go's netip.ParseAddr reads (no leading zeros, at most four hex digits a group): what the
    API server's strict validation asks of a text the sloppy parser took."""
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def ip_problem(text: str, strict: bool) -> str | None:
    """An address of a legacy field (hostAliases, dnsConfig): as k8s.io/utils reads it; with `strict` (1.36
    on) also as Go's netip reads it (no leading zeros), and not an IPv4-mapped IPv6 address."""
    if not is_ip_sloppy(text):
        return "is not a valid IP address such as 10.9.8.7 or 2001:db8::ffff"
    if not strict:
        return None
    address = _strict(text)
    if address is None:
        return "must not have leading 0s"
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return "must not be an IPv4-mapped IPv6 address"
    return None


def parse_cidr(text: str, strict: bool = True) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network | None,
                                                         str | None]:
    """(network, problem): the network the CIDR names (None when it names none) and what the API server says
    of it (None when fine). Read as ParseCIDRSloppy reads it (the address before the first '/', IPv4 tried
    first; a prefix length of decimal digits, leading zeros allowed); with `strict` (Kubernetes 1.36 on) also
    as Go's netip.ParsePrefix reads it (no leading zeros in the address or the length), not an IPv4-mapped
    address, and no bits set past the prefix length. Without it only a CIDR it cannot parse is refused."""
    invalid = "is not a valid CIDR such as 10.9.8.0/24 or 2001:db8::/64"
    address, slash, bits = text.partition("/")
    ipv4 = _ipv4(address)
    raw = ipv4 if ipv4 is not None else _ipv6(address)
    length = _number(bits, hexadecimal=False)
    if not slash or raw is None or length is None or length[1] != len(bits) or length[0] > 8 * len(raw):
        return None, invalid
    ip = ipaddress.ip_address(raw)
    network = ipaddress.ip_network(f"{ip}/{length[0]}", strict=False)
    if not strict:
        return network, None
    written = _strict(address)
    if written is None or (len(bits) > 1 and bits[0] == "0"):
        return network, "must not have leading 0s in the address or the prefix length"
    if isinstance(written, ipaddress.IPv6Address) and written.ipv4_mapped is not None:
        return network, "must not be an IPv4-mapped IPv6 address"
    if written != network.network_address:
        return network, f"has bits set past the prefix length (the network is {network})"
    return network, None


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The address `text` names (one is_ip_sloppy takes); an IPv4-mapped IPv6 address read as its IPv4
    address, as Go's net.IP reads one."""
    address = sloppy_ip(text)
    return (address.ipv4_mapped or address) if isinstance(address, ipaddress.IPv6Address) else address


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
