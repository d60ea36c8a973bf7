"""The Dynamo operator release a check is for, as far as rules need it: which DGD fields it has.

Only the newest operator's webhook source is at hand, so a rule about a field applies to a release
exactly when that release's DGD schema has the field: `runtimeVersionOverride` is not in 1.1.0's
schema, so no rule requires or advises it there. The release comes from the schema the check uses
(the bundled release chosen, or the DGD CRD given); with no DGD schema at all the newest release is assumed, and every
field is taken to exist."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

DGD_KEY = ("nvidia.com", "DynamoGraphDeployment")
DEFAULT_NODE_PORTS = (30000, 32767)  # kube-apiserver's default --service-node-port-range


_GO_INT = re.compile(r"[+-]?[0-9]+")  # what Go's strconv.Atoi reads (no spaces or underscores, unlike int())


def parse_node_port_range(text: str) -> tuple[int, int]:
    """A --service-node-port-range as kube-apiserver reads it (apimachinery's PortRange): `LOW-HIGH`,
    `LOW+OFFSET` (LOW to LOW+OFFSET) or one port, at most 65535, HIGH not below LOW; an empty one is the
    default (the server falls back to it when the flag gives no port). ValueError says what is wrong."""
    value = text.strip()
    if not value:
        return DEFAULT_NODE_PORTS
    low_text, sign, high_text = value.partition("-") if "-" in value else value.partition("+")
    numbers = (low_text, high_text) if sign else (low_text,)
    if ("-" in value and "+" in value) or not all(_GO_INT.fullmatch(number) for number in numbers):
        raise ValueError(f"{text!r} is not a port range: write LOW-HIGH such as 30000-32767")
    low = int(low_text)
    high = low if not sign else (int(high_text) if sign == "-" else low + int(high_text))
    if low < 0 or high > 65535 or low > 65535:
        raise ValueError(f"{text!r}: a port range stays within 0-65535")
    if high < low:
        raise ValueError(f"{text!r}: the range ends before it starts")
    return low, high


@dataclass(frozen=True)
class Release:
    """The Dynamo release and Kubernetes version a check is for, and the DGD schemas of that release."""

    name: str
    # DGD apiVersion version (v1alpha1, v1beta1) -> the JSON schema of the object, or a schema stage's CRD
    # version whose `.schema` is read only when a rule asks; empty: every field exists
    dgd_schemas: Mapping[str, object] = field(default_factory=dict)
    date: str = ""  # the release's source commit date (ISO), when known; "" reads as the newest
    kubernetes: str = ""  # the Kubernetes version checked against (--kubernetes-version); "" reads as the newest
    node_ports: tuple[int, int] = DEFAULT_NODE_PORTS  # the cluster's --service-node-port-range, first and last

    def at_least(self, since: str) -> bool:
        """Whether the release's source is from `since` (an ISO date) or later; unknown dates count as new.
        For operator behaviour no schema field shows, such as a change in how it names objects."""
        return not self.date or self.date >= since

    def kubernetes_at_least(self, version: str) -> bool:
        """Whether the Kubernetes version checked against is `version` (MAJOR.MINOR) or later; unset counts
        as the newest. For API server validation that changed between Kubernetes releases."""
        if not self.kubernetes:
            return True
        def minor(text: str) -> tuple[int, ...]:
            return tuple(int(part) for part in re.findall(r"[0-9]+", text)[:2])
        return minor(self.kubernetes) >= minor(version)

    @property
    def known(self) -> bool:
        return bool(self.dgd_schemas)

    def has_field(self, version: str, path: tuple[str, ...]) -> bool:
        """Whether a DGD of this apiVersion version can hold `path` (`*` for a list item or map value)."""
        if not self.dgd_schemas:
            return True
        node = self.dgd_schemas.get(version)
        node = getattr(node, "schema", node)
        if node is None:
            return False  # the release does not serve this version (the schema stage says so)
        for part in path:
            if not isinstance(node, dict):
                return False
            if part == "*":
                following = node.get("items", node.get("additionalProperties"))
            else:
                following = (node.get("properties") or {}).get(part)
                if following is None:
                    # a closed object lacks the field; an open one (preserve-unknown-fields) may hold it
                    return node.get("additionalProperties") is not False and "properties" not in node
            if not isinstance(following, dict):
                return following is True or following is None
            node = following
        return True


NEWEST = Release("newest")


def release_of(schema_stage) -> Release:
    """The release of the DGD schema a schema stage uses (the newest when it has none), with the Kubernetes
    version and the node port range the stage checks against."""
    if schema_stage is None:
        return NEWEST
    release = _release_of(schema_stage)
    node_ports = getattr(schema_stage, "node_ports", None)
    return replace(release, node_ports=tuple(node_ports)) if node_ports else release


def _release_of(schema_stage) -> Release:
    kubernetes = str(getattr(schema_stage, "kubernetes_version", None) or "")
    schemas = {version: crd for (group, kind, version), crd in getattr(schema_stage, "crds", {}).items()
               if (group, kind) == DGD_KEY}
    if not schemas:
        return Release(NEWEST.name, kubernetes=kubernetes) if kubernetes else NEWEST
    bundled = getattr(schema_stage, "release", None)
    if bundled is not None and hasattr(bundled, "label"):
        return Release(bundled.label(), schemas, str(getattr(bundled, "date", "") or ""), kubernetes)
    return Release(", ".join(getattr(schema_stage, "crd_sources", None) or []) or "the given CRD", schemas,
                   kubernetes=kubernetes)
