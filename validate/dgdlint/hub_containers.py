"""Containers as ConvertTo judges them when it restores a v1alpha1 graph's v1beta1 fields from
`nvidia.com/dgd-spec` (api/v1alpha1/shared_spec_conversion.go, operator commit 2a6da14): whether a container
has only its name, and whether the conversion drops the `main` container it generated from the service.

dropGeneratedMainContainer runs in restoreSharedPodTemplateHubOnlyFields, so only for a service whose
record component has a pod template (which also makes the conversion build the service's one,
PodTemplateOrigin). It drops `main` when the record's pod template has no container named `main`, the
service's v1alpha1 `resources` do not need preservation, and the generated container holds nothing but
its name and the compilation-cache mount (mainContainerHasOnlyGeneratedFields). The generated container
is buildMainContainerFromDedicated's (resources, envs, envFromSecret, the probes, one mount per
volumeMount) with extraPodSpec.mainContainer merged over it (mergeExtraPodSpecMainContainer)."""

from __future__ import annotations

from dgdlint.model import as_map

MAIN = "main"
# corev1.Container's pointer fields: set, even to an empty object or a zero, they are not empty.
_CONTAINER_POINTERS = frozenset({"securityContext", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle",
                                 "restartPolicy"})
# Its other fields (values: the zero value is empty; resources is a struct of two maps and a list).
_CONTAINER_VALUES = frozenset({"name", "image", "command", "args", "workingDir", "ports", "envFrom", "env", "resources",
                               "resizePolicy", "restartPolicyRules", "volumeMounts", "volumeDevices",
                               "terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy", "stdin",
                               "stdinOnce", "tty"})
# The pod template's metadata fields restoreSharedHubOnlyPodTemplateMetadata takes from the service, not the record.
_SERVICE_METADATA = frozenset({"labels", "annotations"})


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


def _only_cache_mounts(mounts) -> bool:
    """Every mount the service's volumeMounts put on `main` is the compilation cache (the first mount with
    useAsCompilationCache): the same name and mount path, which mainContainerHasOnlyGeneratedFields removes."""
    if mounts is None:
        return True
    if not isinstance(mounts, list):
        return False  # the schema refuses it; nothing claimed
    entries = [as_map(mount) for mount in mounts]
    cache = next((m for m in entries if m.get("useAsCompilationCache") is True), None)
    if cache is None:
        return not entries
    key = (cache.get("name") or "", cache.get("mountPoint") or "")
    return all((m.get("name") or "", m.get("mountPoint") or "") == key for m in entries)


def generated_main_empty(service: dict) -> bool:
    """Whether the `main` container the conversion builds from a v1alpha1 service holds nothing but its
    name and the compilation-cache mount (False when dgdlint cannot be sure: main is then kept). A set
    `resources` never lets it go: either it fills main, or it converts to nothing and then fails its own
    round trip (resourcesNeedPreservation: resourcesFromNative gives nil), which keeps main."""
    if service.get("resources") is not None or service.get("envs") not in (None, []):
        return False
    if service.get("envFromSecret") not in (None, "") or service.get("livenessProbe") is not None \
            or service.get("readinessProbe") is not None:
        return False
    extra = service.get("extraPodSpec")
    if extra is not None and not isinstance(extra, dict):
        return False
    main = as_map(extra).get("mainContainer")
    if main is not None and (not isinstance(main, dict) or name_only(main) is not True):
        return False  # merged over the generated container (mergo, WithOverride): any set field stays
    return _only_cache_mounts(service.get("volumeMounts"))


def drops_generated_main(service: dict, template: dict | None) -> bool:
    """dropGeneratedMainContainer for a service (raw v1alpha1) whose record component has the pod
    template `template` (decoded; None when it has none)."""
    if template is None:
        return False
    containers = as_map(as_map(template).get("spec")).get("containers")
    if any(as_map(c).get("name") == MAIN for c in containers or [] if isinstance(containers, list)):
        return False
    return generated_main_empty(service)


def _flat_zero(value) -> bool:
    """Certainly the zero value of a struct: no field but empty scalars and lists (an empty object may be
    a pointer to one, which is not zero)."""
    return value is None or (isinstance(value, dict) and all(v is None or v in ("", False, 0, []) for v in
                                                             value.values()))


def template_left(service: dict, template: dict, names: list[str]) -> str:
    """What of a service's pod template is left after `main` is dropped and the record's containers
    added (`names`): "pod" when anything, "zero" when a zero template that the conversion keeps (the
    record's template is zero too), "none" when nilIfEmptyPodTemplate makes it nil. An empty object
    (`nodeSelector: {}`, a map, or `securityContext: {}`, a pointer) counts as content: dgdlint does
    not tell them apart. Either way a frontendSidecar naming main is refused; only the message differs."""
    metadata = as_map(service.get("extraPodMetadata"))
    extra = as_map(service.get("extraPodSpec"))
    record_metadata = as_map(as_map(template).get("metadata"))
    if names or any(metadata.get(key) for key in _SERVICE_METADATA) \
            or not _flat_zero({k: v for k, v in extra.items() if k not in ("mainContainer", "containers")}) \
            or not _flat_zero({k: v for k, v in record_metadata.items() if k not in _SERVICE_METADATA}):
        return "pod"
    template = as_map(template)
    record_zero = set(template) <= {"metadata", "spec"} and _flat_zero(template.get("metadata")) \
        and _flat_zero(template.get("spec"))
    return "zero" if record_zero else "none"
