"""What the Dynamo operator's admission webhook reads of a graph, normalized over both API shapes.

The webhook validates a v1beta1 object; a v1alpha1 manifest reaches it converted. This module answers
in v1beta1 terms (GPU memory service mode `InterPod`, a component's pod annotations, its Grove
settings) whichever shape the manifest has, each value with the path where the manifest holds it (or
would hold it). Like the rest of the model, it tolerates wrong types: rules run on objects that may
have failed the schema stage."""

from __future__ import annotations

from dataclasses import dataclass

from dgdlint.defaulting import ENABLE_GROVE, WORKLOAD_PROVIDER, provider_at_create, stored_provider
from dgdlint.model import Graph
from dgdlint.once import once
from dgdlint.release import NEWEST, Release
from dgdlint.webhook_component import ComponentView, Override, Value, override_at, value_at


@dataclass
class GraphView:
    """A graph as the operator's webhook reads it, for the release checked against."""

    graph: Graph
    release: Release = NEWEST
    previous: object = None  # on an update (dgdlint diff), the object as it was applied before; else None

    def allows(self, *path: str) -> bool:
        """Whether the release the check is for has this graph field (a rule about a field it lacks does
        not apply to it)."""
        return self.release.has_field(self.obj.version, tuple(path))

    def allows_component(self, *names: str) -> bool:
        return self.release.has_field(self.obj.version, self.component_schema_path(*names))

    @property
    def obj(self):
        return self.graph.obj

    @property
    def alpha(self) -> bool:
        return self.graph.shape == "services"

    @once
    def components(self) -> list[ComponentView]:
        return [ComponentView(component, self.alpha) for component in self.graph.components]

    def annotation(self, key: str) -> Value | None:
        annotations = self.obj.annotations
        if key not in annotations:
            return None
        return Value(annotations[key], ("metadata", "annotations", key))

    @once
    def workload_provider(self) -> tuple[str, str, tuple]:
        """(the workload provider the validating webhook reads, why that one, where the manifest decides
        it). On create the defaulting webhook derives it from `nvidia.com/enable-grove` and overwrites any
        value the manifest writes; an update keeps the stored one (update-workload-provider refuses a
        manifest that names another)."""
        provider = self.annotation(WORKLOAD_PROVIDER)
        if self.previous is not None:
            if provider is not None:
                return provider.text or "", f"annotation {WORKLOAD_PROVIDER}: {provider.text!r} selects another " \
                                            "provider", provider.path
            kept = stored_provider(self.previous)
            return kept, f"the graph keeps the workload provider {kept!r} it was created with", ("metadata",)
        if provider_at_create(self.obj.annotations) == "component":
            enable = self.annotation(ENABLE_GROVE)
            return "component", f"annotation {ENABLE_GROVE}: {enable.text!r} turns the Grove pathway off", \
                enable.path
        return "grove", "", ("metadata",)

    @once
    def grove_pathway(self) -> tuple[bool, str, tuple]:
        """(on the Grove pathway, why not, where that is decided), assuming the operator runs with Grove
        enabled: the workload provider decides (grovePathwayForDynamoGraphDeployment)."""
        provider, why, where = self.workload_provider
        return (True, "", where) if provider == "grove" else (False, why, where)

    @property
    def provider_override(self) -> Override | None:
        return override_at(self.obj, ("spec", "providerOverride"), "root")

    @property
    def topology_constraint(self) -> Value:
        return value_at(self.obj, ("spec", "topologyConstraint"))

    def cluster_topology_name(self) -> Value:
        key = "topologyProfile" if self.alpha else "clusterTopologyName"
        return value_at(self.obj, ("spec", "topologyConstraint", key))

    @property
    def kv_transfer_policy(self) -> Value:
        return value_at(self.obj, ("spec", "experimental", "kvTransferPolicy"))

    @property
    def restart(self) -> Value:
        return value_at(self.obj, ("spec", "restart"))

    def component_schema_path(self, *names: str) -> tuple:
        """The schema path of a component field, for `Release.has_field`."""
        return ("spec", "services", "*", *names) if self.alpha else ("spec", "components", "*", *names)


def graph_views(model) -> list[GraphView]:
    """The graphs as the webhook sees them; on an update (`dgdlint diff`), each beside its old object."""
    return model.memo("webhook-graph-views", lambda: [GraphView(graph, model.release, model.stored.get(graph.obj.ref))
                                                      for graph in model.graphs])
