"""What a v1alpha1 service's conversion (ConvertTo, api/v1alpha1/shared_spec_conversion.go, operator commit
2a6da14) puts in its pod beyond the model's reading of the service, for the pod view of `dgdlint diff`:

- the `main` container's envFrom and probes (buildMainContainerFromDedicated, then
  mergeExtraPodSpecMainContainer): the service's envFromSecret as a secretRef unless mainContainer's envFrom
  is not empty (mergo lets that replace it), the service's liveness and readiness probes with
  mainContainer's merged over them field by field (mergo, WithOverride: a non-empty field wins);
- a generated `sidecar-frontend`'s envFrom of the frontendSidecar's envFromSecret (appendFrontendSidecar),
  and the probes and envFrom its record container lends it (restoreSharedHubOnlyFrontendSidecarContainerFields);
- the fields the record's `main` restores on the mounts made of the service's volumeMounts
  (restoreSharedHubOnlyFlatVolumeMountFields): readOnly, subPath and the others but name and mountPath.

Each value comes with where the user's file holds it, when that is not under the container's own path."""

from __future__ import annotations

from dataclasses import replace

from dgdlint.go_merge import go_zero, merged
from dgdlint.model import Component, Container, as_list, as_map, as_str, mount_fields

PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
SERVICE_PROBES = ("livenessProbe", "readinessProbe")  # v1alpha1 has no startupProbe of its own


def zeroless(value):
    """A decoded value as Go holds it, for comparison: fields of the zero value left out (unset reads the same)."""
    if isinstance(value, dict):
        kept = {key: zeroless(item) for key, item in value.items()}
        return {key: item for key, item in kept.items() if not go_zero(item)}
    if isinstance(value, list):
        return [zeroless(item) for item in value]
    return value


def converted_main(component: Component, main: Container, paths: dict) -> Container:
    """`main` with the envFrom and probes the conversion gives it; `paths` gets where the service writes them."""
    service = as_map(component.obj.get(component.path))
    raw = dict(main.raw)
    secret = as_str(service.get("envFromSecret"))
    if secret and go_zero(raw.get("envFrom")):
        raw["envFrom"] = [{"secretRef": {"name": secret}}]
        paths["envFrom"] = component.path + ("envFromSecret",)
    for kind in SERVICE_PROBES:
        own, written = service.get(kind), raw.get(kind)
        if not isinstance(own, dict):
            continue
        raw[kind] = merged(own, written) if isinstance(written, dict) else own
        if not isinstance(written, dict):
            paths[kind] = component.path + (kind,)
    return replace(main, raw=raw)


def sidecar_env_from(container: Container, sidecar: dict, path: tuple, paths: dict) -> Container:
    """A generated `sidecar-frontend` with the secretRef of the frontendSidecar's envFromSecret."""
    secret = as_str(sidecar.get("envFromSecret"))
    if not secret:
        return container
    paths["envFrom"] = path + ("envFromSecret",)
    return replace(container, raw={**container.raw, "envFrom": [{"secretRef": {"name": secret}}]})


def lend_probes_and_env_from(container: Container, saved: Container, sidecar: dict, paths: dict) -> Container:
    """What the record's `sidecar-frontend` (`saved`) lends the generated one of its probes and envFrom: each
    probe merged over the generated one; its envFrom where the frontendSidecar has no envFromSecret, or
    where both are that one secret (a single secretRef each), else none."""
    raw = dict(container.raw)
    for kind in PROBES:
        if isinstance(saved.raw.get(kind), dict) and not go_zero(saved.raw[kind]):
            raw[kind] = merged(raw.get(kind), saved.raw[kind])
            paths[kind] = saved.path + (kind,)
    lent = as_list(saved.raw.get("envFrom"))
    secret = as_str(sidecar.get("envFromSecret"))
    if lent and (not secret or (len(lent) == 1 and as_str(as_map(as_map(lent[0]).get("secretRef")).get("name"))
                                == secret and len(as_list(raw.get("envFrom"))) == 1)):
        raw["envFrom"] = lent
        paths["envFrom"] = saved.path + ("envFrom",)
    return replace(container, raw=raw)


def _preserved(mounts: list, name: str, mount_path: str) -> int | None:
    """findPreservedVolumeMount: the index of the record's mount of that name and path, else of the only
    one of that name."""
    for index, mount in enumerate(mounts):
        if as_map(mount).get("name") == name and (as_str(as_map(mount).get("mountPath")) or "") == mount_path:
            return index
    named = [index for index, mount in enumerate(mounts) if as_map(mount).get("name") == name]
    return named[0] if len(named) == 1 else None


def restore_flat_mount_fields(component: Component, main: Container, record: list, record_path: tuple,
                              paths: dict) -> Container:
    """`main` whose mounts made of the service's volumeMounts (none of mainContainer's of the same name and
    path) take the fields of the record's `main` mount (record: the record's containers at record_path);
    `paths` gets where each is, as `mount <path>`."""
    found = [i for i, c in enumerate(record) if as_map(c).get("name") == "main"]
    saved = as_list(as_map(record[found[0]]).get("volumeMounts")) if found else []
    if not saved:
        return main
    flat = component.path + ("volumeMounts",)
    written = {(m.volume, m.mount_path or "") for m in main.mounts if m.path[:-2] == main.path}
    mounts = []
    for mount in main.mounts:
        index = _preserved(saved, mount.volume, mount.mount_path or "") if mount.path[:-1] == flat and \
            (mount.volume, mount.mount_path or "") not in written else None
        if index is not None:
            fields = mount_fields(as_map(saved[index]))
            mount = replace(mount, fields=fields, sub_path=as_str(fields.get("subPath")),
                            read_only=fields.get("readOnly") is True)
            paths[f"mount {mount.mount_path}"] = record_path + (found[0], "volumeMounts", index)
        mounts.append(mount)
    return replace(main, mounts=mounts)
