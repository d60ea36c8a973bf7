"""Kubernetes' name and value syntax (written from apimachinery's and the core validation's helpers): DNS
labels and subdomains, URL path segments, qualified names (label and annotation keys), label values, port
names and numbers, paths inside a volume. Each `*_problem` function says what is wrong with its value, or
None when it is fine. The label and DNS name checks live a layer down, in dgdlint/label_syntax.py (node
selection reads labels with them), and rules import them from here with the rest."""

from __future__ import annotations

import re

from dgdlint.label_syntax import dns1123_label_problem as dns1123_label_problem
from dgdlint.label_syntax import dns1123_subdomain_problem as dns1123_subdomain_problem
from dgdlint.label_syntax import label_value_problem as label_value_problem
from dgdlint.label_syntax import qualified_name_problem as qualified_name_problem


def path_segment_name_problem(name: str) -> str | None:
    """apimachinery's IsPathSegmentName, the whole name check of RBAC roles and bindings (and of the role a
    binding refers to): the name is one segment of a URL path, so it is not '.' or '..' and holds no '/' or
    '%'. Nothing else is checked: 'a:b', upper case and any length are taken."""
    if name in (".", ".."):
        return f"must not be {name!r} (it is one segment of a URL path)"
    found = [f"'{mark}'" for mark in ("/", "%") if mark in name]
    return f"must not contain {' or '.join(found)} (it is one segment of a URL path)" if found else None


def dns1035_label_problem(name: str) -> str | None:
    """Kubernetes' IsDNS1035Label: a DNS label that starts with a letter."""
    return dns1123_label_problem(name) or (None if name[:1].isalpha() else "must start with a lowercase letter")


_CONFIG_MAP_KEY = re.compile(r"[-._a-zA-Z0-9]+", re.ASCII)
_PRINTABLE_WITHOUT_EQUALS = re.compile(r"[ -<>-~]+", re.ASCII)  # ASCII 32-126 less '='

_PORT_NAME = re.compile(r"[-a-z0-9]+", re.ASCII)

STANDARD_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")


def container_resource_name_problem(name: str) -> str | None:
    """Kubernetes' ValidateContainerResourceName: cpu, memory, ephemeral-storage, hugepages-<size>, or a
    qualified name with a domain (an extended resource, whose name with `requests.` before it is one too)."""
    problem = qualified_name_problem(name)
    if problem:
        return problem
    if "/" not in name:
        if name in STANDARD_CONTAINER_RESOURCES or name.startswith("hugepages-"):
            return None
        return "is not a container resource (cpu, memory, ephemeral-storage, hugepages-<size>, or one with a domain)"
    if "kubernetes.io/" not in name and (name.startswith("requests.") or qualified_name_problem(f"requests.{name}")):
        return "is no extended resource name"
    return None


def config_map_key_problem(key: str) -> str | None:
    """Kubernetes' IsConfigMapKey (a key of a config map or secret, and the file it becomes)."""
    if len(key) > 253:
        return "must be no more than 253 characters"
    if not _CONFIG_MAP_KEY.fullmatch(key):
        return "must consist of letters, digits, '-', '_' or '.'"
    if key in (".", ".."):
        return f"must not be {key!r}"
    if key.startswith(".."):
        return "must not start with '..'"
    return None


def env_name_problem(name: str) -> str | None:
    """Kubernetes' relaxed environment variable name (the rule since 1.32): printable ASCII other than '='."""
    if not _PRINTABLE_WITHOUT_EQUALS.fullmatch(name):
        return "must be printable ASCII characters other than '='"
    return None


def port_name_problem(name: str) -> str | None:
    """Kubernetes' IsValidPortName (an IANA service name)."""
    if len(name) > 15:
        return "must be no more than 15 characters"
    if not _PORT_NAME.fullmatch(name):
        return "must contain only lowercase letters, digits and '-'"
    if not re.search(r"[a-z]", name):
        return "must contain at least one letter"
    if "--" in name:
        return "must not contain consecutive hyphens"
    if name.startswith("-") or name.endswith("-"):
        return "must not begin or end with a hyphen"
    return None


def as_int(value: object) -> int | None:
    """An integer as written (a bool is none); None for anything else, which the schema reports."""
    return value if type(value) is int else None


def negative_count_problems(spec: dict, names: tuple, base: tuple):
    """(path, problem) for each count or duration of `names` in `spec` written as a negative integer."""
    for name in names:
        value = as_int(spec.get(name))
        if value is not None and value < 0:
            yield base + (name,), f"has {name} {value}; it must not be negative"


def port_problem(port: object) -> str | None:
    """Kubernetes' ValidatePortNumOrName: a number from 1 to 65535, or a port name (None when missing or of
    another type: the schema's to report)."""
    if type(port) is int:
        return None if 1 <= port <= 65535 else f"port {port} is not between 1 and 65535"
    if isinstance(port, str):
        problem = port_name_problem(port)
        return f"port name {port!r} {problem}" if problem else None
    return None


def descending_path_problem(path: str) -> str | None:
    """Kubernetes' local descending path: relative, without a '..' element ('/' separates, as on Linux)."""
    if path.startswith("/"):
        return "must be a relative path"
    if ".." in path.split("/"):
        return "must not contain a '..' element"
    return None


def non_reserved_path_problem(path: str) -> str | None:
    """Kubernetes' local non-reserved path (a file of a secret, config map or projected volume): a descending
    path that does not start with '..' either."""
    return descending_path_problem(path) or ("must not start with '..'" if path.startswith("..") else None)
