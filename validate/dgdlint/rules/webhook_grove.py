"""The Grove pathway as the Dynamo operator's webhook sees it: the names Grove's resources get, the
settings that exist only on the Grove pathway, and provider overrides (Grove objects patched into
what the operator renders)."""

from __future__ import annotations

from dgdlint.model import Model, as_map
from dgdlint.rules.registry import Hit, rule
from dgdlint.webhook_component import GROVE_API_VERSION, ComponentView, Override
from dgdlint.webhook_model import GraphView, graph_views

GROVE_NAME_BUDGET = 45
MIN_PCS_NAME = 8
# The operator shortens a long graph name since upstream commit cce641360 (#8563) of 2026-05-11; a release
# from before it (1.1.0, 2026-05-04) counts the graph name whole.
PCS_NAME_SHORTENED_SINCE = "2026-05-11"


def _fnv32a(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def go_lower(text: str) -> str:
    """Go's strings.ToLower: each character's own lowercase, so U+0130 (İ) becomes i where Python's
    str.lower() adds a combining dot, and no final-sigma context."""
    if text.isascii():  # (each ASCII letter's own lowercase is str.lower()'s)
        return text.lower()
    return "".join("i" if char == "\u0130" else char.lower() for char in text)


def go_len(text: str) -> int:
    """Go's len of a string: its UTF-8 bytes (a v1alpha1 service name may hold any letter)."""
    return len(text.encode("utf-8", "surrogatepass"))


def _role_names(component: ComponentView) -> list[str]:
    """The PodClique names Grove renders for a component (the operator's role expansion)."""
    name, nodes = component.component.name, component.node_count
    if nodes > 1 and component.inter_pod_gms:
        names = []
        for rank in range(nodes):
            names.append(f"{name}-gms-{rank}")
            names.append(f"{name}-ldr" if rank == 0 else f"{name}-wkr-{rank}")
        return names
    if nodes > 1:
        return [f"{name}-ldr", f"{name}-wkr"]
    if component.inter_pod_gms:
        return [f"{name}-gms-0", name]
    return [name]


def longest_clique_name(component: ComponentView) -> str:
    longest = go_lower(component.component.name)
    if component.uses_scaling_group:
        for role in map(go_lower, _role_names(component)):
            if go_len(role) > go_len(longest):
                longest = role
    return longest


def _component_budget(component: ComponentView) -> int:
    own = go_len(go_lower(component.component.name))
    return own + go_len(longest_clique_name(component)) if component.uses_scaling_group else own


def pcs_name(dgd_name: str, components: list[ComponentView], shortens: bool = True) -> str:
    """The PodCliqueSet name the operator gives a graph: its own name when it fits what the longest
    component leaves of the budget, else shortened with a hash of the full name (by releases that do)."""
    if not shortens:
        return dgd_name
    budget = max(MIN_PCS_NAME, GROVE_NAME_BUDGET - max((_component_budget(c) for c in components), default=0))
    if go_len(dgd_name) <= budget:
        return dgd_name
    return f"{dgd_name[:budget - 5]}-{_fnv32a(dgd_name.encode()) & 0xFFFF:04x}"


@rule(
    name="grove-name-budget", code="DGD604", severity="error", family="admission",
    title="Grove resource names fit the 45-character budget",
    rationale="""On the Grove pathway a component's pods are named from the PodCliqueSet, the scaling group
    and the PodClique, and the operator's webhook rejects a graph where they exceed 45 characters. The
    PodCliqueSet takes the graph's name, shortened by the operator with a hash suffix when it does not
    fit beside the longest component (never below 8 characters), so a long graph name is fine; what
    cannot be shortened is the component part: its name, and for a multinode, inter-pod GPU memory
    service or forced scaling-group component also its longest PodClique name (`<name>-ldr`,
    `<name>-wkr-<rank>`, `<name>-gms-<rank>`). The operator counts bytes: a letter outside ASCII, which
    only a v1alpha1 service name can hold, counts as its UTF-8 bytes (ö as 2). Releases from before the
    shortening (upstream #8563, 2026-05-11; 1.1.0 among them) count the graph name whole. With
    `nvidia.com/enable-grove: "false"` at create (on an update: the workload provider the graph was
    created with) no Grove resources exist and nothing counts.""",
    remediation="Shorten the component name (and with it its PodClique names); for a release that does not shorten "
                "graph names (1.1.0), the graph name too.",
)
def grove_name_budget(model: Model):
    for view in graph_views(model):
        if not view.grove_pathway[0]:
            continue
        components = view.components
        pcs = pcs_name(view.obj.name, components, model.release.at_least(PCS_NAME_SHORTENED_SINCE))
        for component in components:
            name = component.component.name
            total = go_len(pcs) + go_len(go_lower(name))
            detail = f"PodCliqueSet {pcs!r} + {go_lower(name)!r}"
            if component.uses_scaling_group:
                longest = longest_clique_name(component)
                total += go_len(longest)
                detail += f" + PodClique {longest!r}"
            if total > GROVE_NAME_BUDGET:
                yield Hit(view.obj, component.component.name_path,
                          f"{component.component.label}: {detail} is {total} {_unit(pcs + name)}, over "
                          f"Grove's {GROVE_NAME_BUDGET}; the operator rejects the graph")


def _unit(names: str) -> str:
    return "characters" if names.isascii() else "bytes (UTF-8, as the operator counts)"


def _grove_only_settings(view: GraphView):
    """(path, what) of every setting the webhook accepts only on the Grove pathway (that the release has)."""
    if view.obj.get(("spec", "priorityClassName")) and view.allows("spec", "priorityClassName"):
        yield ("spec", "priorityClassName"), f"{view.obj.label}: spec.priorityClassName"
    for component in view.components:
        label = component.component.label
        if component.field("minAvailable").present and view.allows_component("minAvailable"):
            yield component.field("minAvailable").path, f"{label}: minAvailable"
        if component.forced_scaling_group:
            yield component.force_scaling_group.path, f"{label}: grove.forceScalingGroup"
        if component.inter_pod_gms:
            yield component.gms.path + ("mode",), f"{label}: the inter-pod GPU memory service layout"
    topology_name = view.kv_transfer_policy.path + ("clusterTopologyName",)
    if view.obj.get(topology_name) and view.allows(*topology_name):
        yield topology_name, f"{view.obj.label}: kvTransferPolicy.clusterTopologyName"


@rule(
    name="grove-pathway-required", code="DGD613", severity="error", family="admission",
    title="Grove-only settings are used on the Grove pathway",
    rationale="""`spec.priorityClassName`, a component's `minAvailable`, `grove.forceScalingGroup`, the
    inter-pod GPU memory service layout and a KV transfer policy's `clusterTopologyName` are carried out
    by Grove. The operator's webhook rejects them when the graph does not run on Grove: a graph asks for
    that at create with `nvidia.com/enable-grove: "false"` (the operator then writes
    `nvidia.com/workload-provider: component`, overwriting what the manifest says). On an update
    (`dgdlint diff`) the provider the graph was created with decides, not the annotation.""",
    remediation='Remove the setting, or let the graph run on Grove (remove `nvidia.com/enable-grove: "false"`).',
)
def grove_pathway_required(model: Model):
    for view in graph_views(model):
        grove, reason, where = view.grove_pathway
        if grove:
            continue
        for path, what in _grove_only_settings(view):
            yield Hit(view.obj, path, f"{what} requires the Grove pathway, but {reason}",
                      related=[view.obj.location(where, "Grove turned off here")])


def expected_target(override: Override, component: ComponentView | None) -> tuple[str | None, str | None]:
    """(the Grove object an override patches in its place, or None with why it has no place)."""
    if override.scope == "root":
        return "PodCliqueSet", None
    if override.scope == "component":
        return ("PodCliqueScalingGroupConfig" if component.uses_scaling_group else "PodCliqueTemplateSpec"), None
    if not component.is_multinode:
        return None, f"a {override.scope} override needs a multinode component"
    if component.inter_pod_gms:
        return None, f"a {override.scope} override is not supported for an inter-pod GPU memory service component"
    return "PodCliqueTemplateSpec", None


def value_problems(override: Override, target: str):
    """(relative path, problem) of a value against what the target lets a user own: only the topology."""
    value = override.value
    if not isinstance(value, dict):
        yield (), "must be an object"
        return
    nest = ("spec", "template") if target == "PodCliqueSet" else ()
    node, at = value, ()
    for key in nest + ("topologyConstraint",):
        for other in sorted(k for k in node if k != key):
            yield at + (other,), "is owned by Dynamo (only the topologyConstraint may be overridden)"
        if not isinstance(node.get(key), dict):
            yield at + (key,), "is required (an object)"
            return
        node, at = node[key], at + (key,)


# Grove's TopologyConstraint and TopologyPackConstraint (grove operator/api v0.1.0-alpha.12-rc1, the version
# the operator builds with), by the JSON field names their Go decoder matches case-insensitively: each
# field a string, or an object of its own fields (None: a string; unknown fields are ignored).
_TOPOLOGY_FIELDS = {"topologyname": None, "packdomain": None,
                    "pack": {"required": None, "preferred": None}}


def _kind(value) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else "a string"


def _decode_problem(node, fields: dict, at: tuple):
    """The first value under `node` that Go's json.Unmarshal cannot put into the Grove type `fields`
    describes, as (relative path, what it is), in the order the decoder meets them; None when it fits.
    null fits any field."""
    for key, value in node.items():
        inner = fields.get(str(key).lower(), False)
        if inner is False or value is None:
            continue
        if inner is None and not isinstance(value, str):
            return at + (key,), f"must be a string for Grove's API, not {_kind(value)}"
        if isinstance(inner, dict):
            if not isinstance(value, dict):
                return at + (key,), f"must be an object for Grove's API, not {_kind(value)}"
            found = _decode_problem(value, inner, at + (key,))
            if found:
                return found
    return None


def grove_shape_problem(value, target: str):
    """validateKnownGroveShape: the value decoded into the Grove type of its target fails on a field of
    the wrong type. Only the topology constraint is checked: anything else a value sets is refused as
    Dynamo's own (value_problems), whatever its type."""
    if not isinstance(value, dict):
        return None
    node, at = value, ()
    for key in (("spec", "template") if target == "PodCliqueSet" else ()) + ("topologyConstraint",):
        node, at = node.get(key), at + (key,)
        if node is None:
            return None
        if not isinstance(node, dict):
            return at, f"must be an object for Grove's API, not {_kind(node)}"
    return _decode_problem(node, _TOPOLOGY_FIELDS, at)


def _overrides(view: GraphView):
    """The graph's provider overrides, when the release has them."""
    if view.provider_override is not None and view.allows("spec", "providerOverride"):
        yield view.provider_override, None
    for component in view.components if view.allows_component("providerOverride") else ():
        if component.provider_override is not None:
            yield component.provider_override, component
        for override in component.role_overrides():
            yield override, component


@rule(
    name="provider-override-invalid", code="DGD614", severity="error", family="admission",
    title="Provider overrides patch the Grove object of their place, and only its topology",
    rationale="""A `providerOverride` patches the Grove object the operator renders for its place: the
    PodCliqueSet at the graph, the PodClique template or scaling-group config at a component, a
    PodClique template at a multinode leader or worker. The operator's webhook rejects one on a graph
    that does not run on Grove, without `apiVersion: grove.io/v1alpha1`, with a `target` other than
    its place's object, at a multinode role of a component that is not multinode or uses the inter-pod
    GPU memory service layout, and a value that sets anything but the topology constraint
    (`spec.template.topologyConstraint` at the graph, `topologyConstraint` elsewhere) or that Grove's
    own type does not take (`packDomain: 5`: the topology fields are strings).""",
    remediation="Use `apiVersion: grove.io/v1alpha1`, leave `target` out (the operator fills it in), and put only "
                "`topologyConstraint` in the value.",
)
def provider_override_invalid(model: Model):
    for view in graph_views(model):
        grove, reason, where = view.grove_pathway
        for override, component in _overrides(view):
            owner = component.component.label if component else view.obj.label
            if not grove:
                yield Hit(view.obj, override.path, f"{owner}: a providerOverride requires the Grove workload "
                                                   f"provider, but {reason}",
                          related=[view.obj.location(where, "Grove turned off here")])
                continue
            if override.api_version != GROVE_API_VERSION:
                shown = "is missing" if not override.api_version else f"is {override.api_version!r}"
                yield Hit(view.obj, override.path + (("apiVersion",) if override.api_version else ()),
                          f"{owner}: providerOverride apiVersion {shown}; the operator accepts {GROVE_API_VERSION!r}")
                continue
            target, why_none = expected_target(override, component)
            if target is None:
                yield Hit(view.obj, override.path, f"{owner}: {why_none}")
                continue
            if override.target and override.target != target:
                yield Hit(view.obj, override.path + ("target",),
                          f"{owner}: providerOverride target is {override.target!r}; at this place it must be "
                          f"{target!r} (or left out)")
                continue
            shape = grove_shape_problem(override.value, target)
            if shape is not None:  # the operator stops at the decode error, before the ownership checks
                relative, problem = shape
                yield Hit(view.obj, override.path + ("value",) + relative,
                          f"{owner}: providerOverride value.{'.'.join(relative)} {problem} ({target})")
                continue
            for relative, problem in value_problems(override, target):
                yield Hit(view.obj, override.path + ("value",) + relative,
                          f"{owner}: providerOverride value{'.' if relative else ''}"
                          f"{'.'.join(relative)} {problem}")


def grove_override_writes_topology(override: Override, component: ComponentView | None) -> bool:
    target = override.target or expected_target(override, component)[0]
    value = as_map(override.value)
    if target == "PodCliqueSet":
        return "topologyConstraint" in as_map(as_map(value.get("spec")).get("template"))
    return target is not None and "topologyConstraint" in value


def topology_overrides(view: GraphView):
    """The provider overrides of a graph that write a Grove topology constraint."""
    for override, component in _overrides(view):
        if override.api_version == GROVE_API_VERSION and grove_override_writes_topology(override, component):
            yield override
