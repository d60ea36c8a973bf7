"""What the operator's ConvertTo restores from `nvidia.com/dgd-spec` into a v1alpha1 graph's v1beta1 object,
of what the validating webhook reads (api/v1alpha1, operator commit 2a6da14).

A v1alpha1 graph reaches the webhook converted (ConvertTo). restoreDGDHubSpec decodes the record as a
v1beta1 spec (conversion_record.read_spec); restoredDGDHubComponentsByName takes its components by name
(the last of a name wins), and each service that is not null gets, from the component of its name,
in ConvertFromDynamoComponentDeploymentSharedSpec -> restoreSharedHubOnlyFields:

- pod template containers the service does not build (restoreSharedPodTemplateMissingHubOnlyContainers):
  each record container with more than its name, whose name the pod lacks, appended; not a
  `sidecar-frontend` when the service has no frontendSidecar. With a frontendSidecar, the record's
  `sidecar-frontend` container lends its fields but name, image, args and env to the generated one
  (restoreSharedHubOnlyFrontendSidecarContainerFields): its resource claims among them;
- `frontendSidecar` (a container name) when the service has none, unless the record's pod template
  holds a container of that name the pod lacks (restoreSharedHubOnlyFrontendSidecar);
- `experimental.grove`: the record's whole `experimental` when the service converts to none and the
  record's has no gpuMemoryService, failover or checkpoint, else its grove beside the converted
  block; the webhook reads `grove.forceScalingGroup`.

A record component with a pod template also makes the conversion build the service's pod template
(PodTemplateOrigin), and drops the `main` container it generated when that holds nothing but its name
(dropGeneratedMainContainer, hub_containers.py): the pod then lacks `main`, and a template left with
nothing is nil. Not modelled, each with no refusal claimed: the template's metadata other than labels
and annotations, volume-mount fields and container order, none of which the webhook reads, and the
component order. ConvertTo's own error returns (merging two containers
of the same Go type) cannot fail on decoded input, so no conversion error is reported."""

from __future__ import annotations

from dataclasses import dataclass, field

from dgdlint.conversion_record import SPEC_RECORD, SpecRecord, read_spec
from dgdlint.hub_containers import MAIN, drops_generated_main, name_only, template_left
from dgdlint.model import as_list, as_map
from dgdlint.once import once
from dgdlint.release import NEWEST, Release
from dgdlint.webhook_component import FRONTEND_SIDECAR_CONTAINER, ComponentView, Value
from dgdlint.webhook_model import GraphView

# Where restored values are said to be: inside the annotation, then the record's spec path.
RECORD_PATH = ("metadata", "annotations", SPEC_RECORD)
CONVERTED_VIEWS = "webhook-converted-views"  # the model's memo of converted_views


@dataclass
class HubRestore:
    """What one service's v1beta1 component gets from the record, as the webhook reads it."""

    index: int  # the record's component (spec.components[index])
    saved: dict = field(default_factory=dict, repr=False)  # that component, decoded
    added: list[tuple[str, int]] = field(default_factory=list)  # containers appended: (name, record index)
    claims: tuple | None = None  # where restored resource claims are (the record path), the first
    frontend_sidecar: Value | None = None  # the restored v1beta1 frontendSidecar
    grove: Value | None = None  # the restored grove.forceScalingGroup
    no_pod_template: bool = False  # the service's pod template is nil (it builds none, or nothing is left of it)
    main_dropped: bool = False  # the generated main container dropped (dropGeneratedMainContainer)

    def spec_path(self, *names) -> tuple:
        return RECORD_PATH + ("spec", "components", self.index, *names)

    @property
    def restores(self) -> bool:
        return bool(self.added or self.claims or self.frontend_sidecar or self.grove or self.main_dropped)


def _builds_pod_template(service: dict) -> bool:
    """hasPodTemplateContent without the record (False only when certainly none: an extraPodSpec that
    may be non-empty counts as content)."""
    mounts = [m for m in as_list(service.get("volumeMounts")) if as_map(m).get("useAsCompilationCache") is not True]
    return bool(service.get("resources") is not None or as_list(service.get("envs")) or mounts
                or any(service.get(key) is not None for key in ("envFromSecret", "livenessProbe", "readinessProbe",
                                                                "extraPodMetadata", "frontendSidecar"))
                or service.get("extraPodSpec") not in (None, {}))


def _grove(restore: HubRestore, service: dict, saved: dict) -> Value | None:
    experimental = saved.get("experimental")
    if not isinstance(experimental, dict) or experimental.get("grove") is None:
        return None
    # convertExperimentalToHub builds an experimental block from these; the record's grove joins it
    converted = (as_map(service.get("gpuMemoryService")).get("enabled") is True
                 or as_map(service.get("failover")).get("enabled") is True or service.get("checkpoint") is not None)
    hub_only = all(experimental.get(key) is None for key in ("gpuMemoryService", "failover", "checkpoint"))
    if not converted and not hub_only:
        return None
    grove = as_map(experimental["grove"])
    return Value(grove.get("forceScalingGroup"), restore.spec_path("experimental", "grove", "forceScalingGroup"))


def restore_service(index: int, saved: dict, service: dict, names: list[str]) -> HubRestore:
    """restoreSharedHubOnlyFields for a service (raw v1alpha1) whose pod has containers `names` (as
    dgdlint reads them), from the record's component `saved` (decoded, at spec.components[index])."""
    restore = HubRestore(index, saved)
    has_sidecar = service.get("frontendSidecar") is not None
    template = saved.get("podTemplate")
    containers = as_list(as_map(as_map(template).get("spec")).get("containers"))
    restore.main_dropped = drops_generated_main(service, template)
    present = {name for name in names if name != MAIN or not restore.main_dropped}
    for position, container in enumerate(containers):
        container = as_map(container)
        name = container.get("name") or ""
        if name_only(container) is True or name in present or (name == FRONTEND_SIDECAR_CONTAINER and not has_sidecar):
            continue
        present.add(name)
        restore.added.append((name, position))
        if as_list(as_map(container.get("resources")).get("claims")) and restore.claims is None:
            restore.claims = restore.spec_path("podTemplate", "spec", "containers", position, "resources", "claims")
    if has_sidecar:
        # the generated sidecar-frontend takes the fields of the record's first container of that name
        found = [i for i, c in enumerate(containers) if as_map(c).get("name") == FRONTEND_SIDECAR_CONTAINER]
        if found and as_list(as_map(as_map(containers[found[0]]).get("resources")).get("claims")):
            restore.claims = restore.spec_path("podTemplate", "spec", "containers", found[0], "resources", "claims")
    sidecar = saved.get("frontendSidecar")
    if not has_sidecar and sidecar is not None:
        # a record container of that name is restored beside it, or the name is not restored: never refused
        if not any(as_map(c).get("name") == sidecar for c in containers):
            restore.frontend_sidecar = Value(sidecar, restore.spec_path("frontendSidecar"))
    restore.grove = _grove(restore, service, saved)
    restore.no_pod_template = template is None and not _builds_pod_template(service)
    if restore.main_dropped:
        # restoreSharedPodTemplateHubOnlyFields: a zero template left is nil unless the record's is zero too
        left = [name for name in names if name != MAIN] + [name for name, _ in restore.added]
        restore.no_pod_template = template_left(service, template, left) == "none"
    return restore


def hub_restores(record: SpecRecord, services: dict[str, object], names: dict[str, list[str]]) -> dict[str, HubRestore]:
    """The services (name -> raw v1alpha1 service) that get v1beta1 fields the webhook reads from a decoded
    record; `names` gives each service's container names as dgdlint reads them."""
    by_name = {}
    for index, component in enumerate(as_list((record.spec or {}).get("components"))):
        by_name[as_map(component).get("name") or ""] = index  # the last of a name wins, as in Go's map
    components = as_list((record.spec or {}).get("components"))
    found = {}
    for name, service in services.items():
        if name not in by_name or not isinstance(service, dict):  # a null service converts to nothing
            continue
        restore = restore_service(by_name[name], as_map(components[by_name[name]]), service, names.get(name, []))
        if restore.restores:
            found[name] = restore
    return found


@dataclass
class RestoredComponentView(ComponentView):
    """A v1alpha1 service as the webhook sees it converted, with what the record restores into it."""

    hub: HubRestore | None = None

    @once
    def force_scaling_group(self) -> Value:
        if self.hub is not None and self.hub.grove is not None:  # v1alpha1 has no grove: only a restored one
            return self.hub.grove
        return super().force_scaling_group

    def container_names(self) -> list[str]:
        if self.hub is None:
            return super().container_names()
        kept = [name for name in super().container_names() if name != MAIN or not self.hub.main_dropped]
        return kept + [name for name, _ in self.hub.added]

    def dra_claims_path(self) -> tuple | None:
        found = super().dra_claims_path()
        return found if found is not None or self.hub is None else self.hub.claims

    @property
    def restored_frontend_sidecar(self) -> Value | None:
        return self.hub.frontend_sidecar if self.hub is not None else None

    @property
    def restored_no_pod_template(self) -> bool:
        return self.hub is not None and self.hub.no_pod_template


@dataclass
class RestoredGraphView(GraphView):
    """A v1alpha1 graph as the webhook sees it converted: its services with what `hub` (service name ->
    HubRestore) restores into each."""

    hub: dict = field(default_factory=dict)

    @once
    def components(self) -> list[ComponentView]:
        return [RestoredComponentView(component, self.alpha, self.hub.get(component.name))
                for component in self.graph.components]



def converted_view(graph, release: Release = NEWEST, previous=None) -> GraphView:
    """The graph as the webhook sees it: a v1alpha1 graph with the v1beta1 fields its `nvidia.com/dgd-spec`
    restores (ConvertTo; a record that does not decode is skipped), any other graph as written."""
    view = GraphView(graph, release, previous)
    found = view.annotation(SPEC_RECORD) if view.alpha else None
    if found is None or not found.text:
        return view
    record = read_spec(found.text, "v1beta1")
    if record.skipped or record.unread:
        return view
    names = {component.component.name: component.container_names() for component in view.components}
    hub = hub_restores(record, as_map(view.obj.get(("spec", "services"))), names)
    return RestoredGraphView(graph, release, previous, hub) if hub else view


def converted_views(model) -> list[GraphView]:
    """graph_views with each v1alpha1 graph's restored fields: what the webhook reads after ConvertTo."""
    return model.memo(CONVERTED_VIEWS, lambda: [converted_view(graph, model.release, model.stored.get(graph.obj.ref))
                                                for graph in model.graphs])
