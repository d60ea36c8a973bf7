"""Topology and restart settings of a graph as the Dynamo operator's webhook checks them without the
cluster: topology constraints that hang together, a KV transfer policy's topology name, a restart
order that names each component once (checked by `dgdlint diff`, since only an update may set
spec.restart)."""

from __future__ import annotations

from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import dns1123_subdomain_problem
from dgdlint.rules.webhook_grove import topology_overrides
from dgdlint.webhook_model import graph_views


@rule(
    name="topology-constraint-incomplete", code="DGD615", severity="error", family="admission",
    title="Topology constraints are set where the operator needs them, in one way",
    rationale="""The operator's webhook rejects a component `topologyConstraint` without a graph-level
    `spec.topologyConstraint`, a graph-level one with no `packDomain` when no component sets one, and
    on the Grove pathway a typed topology constraint beside a provider override that writes Grove's
    topology itself (one or the other, never both).""",
    remediation="Set spec.topologyConstraint (with packDomain unless components set theirs), and write the "
                "topology either in the typed fields or in provider overrides.",
)
def topology_constraint_incomplete(model: Model):
    for view in graph_views(model):
        spec_constraint = view.topology_constraint
        constrained = [c for c in view.components if c.topology_constraint.present]
        if not spec_constraint.present and not constrained:
            continue
        if view.grove_pathway[0]:
            for override in topology_overrides(view):
                yield Hit(view.obj, override.path + ("value",),
                          f"{view.obj.label}: this providerOverride writes Grove's topologyConstraint while the "
                          "graph also sets typed topology constraints; use one or the other")
        if not spec_constraint.present:
            first = constrained[0]
            yield Hit(view.obj, ("spec",),
                      f"{first.component.label} sets a topologyConstraint, but the graph has "
                      "no spec.topologyConstraint",
                      related=[view.obj.location(first.topology_constraint.path, "the component's constraint")])
        elif not constrained and not as_str(as_map(spec_constraint.value).get("packDomain")):
            yield Hit(view.obj, spec_constraint.path,
                      f"{view.obj.label}: spec.topologyConstraint has no packDomain and no component sets one")


@rule(
    name="kv-transfer-policy-name-invalid", code="DGD616", severity="error", family="admission",
    title="A KV transfer policy names its cluster topology with a valid resource name",
    rationale="""`spec.experimental.kvTransferPolicy.clusterTopologyName` names a Grove
    ClusterTopologyBinding; the operator's webhook rejects a name that is not a lowercase RFC 1123
    subdomain, before it looks the binding up.""",
    remediation="Use the binding's name as Kubernetes spells it: lowercase letters, digits, `-` and `.`.",
)
def kv_transfer_policy_name_invalid(model: Model):
    for view in graph_views(model):
        path = view.kv_transfer_policy.path + ("clusterTopologyName",)
        name = as_str(view.obj.get(path)) if view.allows(*path) else None
        problem = dns1123_subdomain_problem(name) if name else None
        if problem:
            yield Hit(view.obj, path, f"{view.obj.label}: kvTransferPolicy.clusterTopologyName {name!r} {problem}")


def restart_order_problems(view):
    """(path, problem) of a restart order, as the webhook checks it on an update (on create the CRD
    refuses spec.restart altogether)."""
    strategy_path = view.restart.path + ("strategy",)
    strategy = as_map(view.obj.get(strategy_path))
    order = as_list(strategy.get("order"))
    if not order:
        return
    order_path = strategy_path + ("order",)
    label = view.obj.label
    if as_str(strategy.get("type")) == "Parallel":
        yield order_path, f"{label}: a restart order cannot be given with a Parallel strategy"
        return
    names = [as_str(item) or "" for item in order]
    components = {c.component.name for c in view.components}
    if len(set(names)) != len(names):
        repeated = sorted({n for n in names if names.count(n) > 1})
        yield order_path, f"{label}: the restart order repeats {', '.join(repeated)}"
    if len(set(names)) != len(components):
        yield order_path, f"{label}: the restart order has {len(set(names))} distinct components, the graph " \
                          f"{len(components)}"
    for index, name in enumerate(names):
        if name not in components:
            yield order_path + (index,), f"{label}: the restart order names {name!r}, which is not a component " \
                                         f"({', '.join(sorted(components))})"
