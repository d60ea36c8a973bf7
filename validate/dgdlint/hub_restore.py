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
(PodTemplateOrigin). Not modelled, each with no refusal claimed: an empty generated main container
dropped (dropGeneratedMainContainer; dgdlint keeps `main`, so it never refuses on its account), the
template's metadata other than labels and annotations, volume-mount fields and container order, none of
which the webhook reads, and the component order. ConvertTo's own error returns (merging two containers
of the same Go type) cannot fail on decoded input, so no conversion error is reported."""

from __future__ import annotations

from dataclasses import dataclass, field

from dgdlint.conversion_record import SPEC_RECORD, SpecRecord
from dgdlint.model import as_list, as_map
from dgdlint.once import once
from dgdlint.webhook_model import FRONTEND_SIDECAR_CONTAINER, ComponentView, GraphView, Value

# Where restored values are said to be: inside the annotation, then the record's spec path.
RECORD_PATH = ("metadata", "annotations", SPEC_RECORD)
# corev1.Container's pointer fields: set, even to an empty object or a zero, they are not empty.
_CONTAINER_POINTERS = frozenset({"securityContext", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle",
                                 "restartPolicy"})
# Its other fields (values: the zero value is empty; resources is a struct of two maps and a list).
_CONTAINER_VALUES = frozenset({"name", "image", "command", "args", "workingDir", "ports", "envFrom", "env", "resources",
                               "resizePolicy", "restartPolicyRules", "volumeMounts", "volumeDevices",
                               "terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy", "stdin",
                               "stdinOnce", "tty"})


def _zero(value) -> bool:
    return value is None or value in ("", False, 0) or (isinstance(value, (list, dict)) and not value)


def name_only(container: dict) -> bool | None:
    """containerHasOnlyName: True when every field but the name is empty (Semantic.DeepEqual with the
    zero Container), False when one is not, None when dgdlint cannot tell (a field it does not know)."""
    unknown = False
    for key, value in container.items():
        if key == "name" or value is None:
            continue
        if key in _CONTAINER_POINTERS:
            return False
        if key == "resources":
            if any(not _zero(part) for part in as_map(value).values()):
                return False
        elif key in _CONTAINER_VALUES:
            if not _zero(value):
                return False
        elif not _zero(value):
            return False
        else:
            unknown = True
    return None if unknown else True


@dataclass
class HubRestore:
    """What one service's v1beta1 component gets from the record, as the webhook reads it."""

    index: int  # the record's component (spec.components[index])
    added: list[tuple[str, int]] = field(default_factory=list)  # containers appended: (name, record index)
    claims: tuple | None = None  # where restored resource claims are (the record path), the first
    frontend_sidecar: Value | None = None  # the restored v1beta1 frontendSidecar
    grove: Value | None = None  # the restored grove.forceScalingGroup
    no_pod_template: bool = False  # the service builds no pod template (the record gives it none)

    def spec_path(self, *names) -> tuple:
        return RECORD_PATH + ("spec", "components", self.index, *names)

    @property
    def restores(self) -> bool:
        return bool(self.added or self.claims or self.frontend_sidecar or self.grove)


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
    restore = HubRestore(index)
    has_sidecar = service.get("frontendSidecar") is not None
    template = saved.get("podTemplate")
    containers = as_list(as_map(as_map(template).get("spec")).get("containers"))
    present = set(names)
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
        return super().container_names() + ([name for name, _ in self.hub.added] if self.hub is not None else [])

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

