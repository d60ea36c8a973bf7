"""A pod's volumes and a container's mounts as the API server validates them (written from Kubernetes'
core validation): a volume name that is a DNS label, one source per volume at most (none is an emptyDir,
by default), the fields each common source needs (a secret's secretName, a config map's name, a claim's
claimName, a host path without '..' and of a known type), an emptyDir size limit not below zero (file
modes, items and projected sources: volume_files.py; in-tree disks and network file systems:
volume_sources.py); mounts of the pod's volumes, at a mount path,
with a sub path inside the volume and a known propagation (Bidirectional for a privileged container only)."""

from __future__ import annotations

from dgdlint.model import PodSettings, as_list, as_map, as_str
from dgdlint.quantity import go_quantity
from dgdlint.rules.claims import template_claim_problems
from dgdlint.rules.syntax import (
    descending_path_problem,
    dns1123_label_problem,
    dns1123_subdomain_problem,
)
from dgdlint.rules.volume_files import items_problems, mode_problem, projected_problems
from dgdlint.rules.volume_sources import IN_TREE, csi_driver_problem, in_tree_problems, nfs_problems

HOST_PATH_TYPES = ("", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate",
                   "Socket")
PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")
# The sources of a volume (VolumeSource's fields): any other key is the schema's to report.
SOURCES = ("awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "configMap", "csi", "downwardAPI",
           "emptyDir", "ephemeral", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs",
           "hostPath", "image", "iscsi", "nfs", "persistentVolumeClaim", "photonPersistentDisk", "portworxVolume",
           "projected", "quobyte", "rbd", "scaleIO", "secret", "storageos", "vsphereVolume")
READ_ONLY_MODES = ("Disabled", "Enabled", "IfPossible")
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
BLOCK_SOURCES = ("ephemeral", "persistentVolumeClaim")  # what a raw block device (volumeDevices) is made of
_REQUIRED = {"secret": "secretName", "configMap": "name", "persistentVolumeClaim": "claimName", "hostPath": "path"}


def _source_problems(kind: str, source: object, where: tuple, attributes_class: bool, certificates: bool,
                     volume: str | None):
    source = as_map(source)
    if kind in IN_TREE:
        yield from in_tree_problems(kind, source, where, volume)
    elif kind == "projected":
        yield from projected_problems(source, where, certificates)
    elif kind == "csi":
        driver = as_str(source.get("driver")) or ""
        problem = csi_driver_problem(driver)
        if problem:
            yield where + ("driver",), f"csi driver {driver!r} {problem}" if driver else "csi volume names no driver"
        if isinstance(source.get("nodePublishSecretRef"), dict):  # null: unset
            secret = as_str(source["nodePublishSecretRef"].get("name"))
            if not secret:
                yield where + ("nodePublishSecretRef", "name"), "csi nodePublishSecretRef names no secret"
            elif dns1123_subdomain_problem(secret):  # the server names it at csi.name
                yield where, f"csi nodePublishSecretRef name {secret!r} {dns1123_subdomain_problem(secret)}"
    needed = _REQUIRED.get(kind)
    if needed and not as_str(source.get(needed)):
        yield where, f"{kind} volume names no {needed}"
    if kind in ("secret", "configMap", "downwardAPI"):
        yield from mode_problem(source.get("defaultMode"), where, "defaultMode")
        yield from items_problems(source, where, downward=kind == "downwardAPI")
    elif kind == "hostPath":
        path, kind_of = as_str(source.get("path")) or "", as_str(source.get("type"))
        if ".." in path.split("/"):
            yield where + ("path",), f"hostPath path {path!r} must not contain a '..' element"
        if kind_of is not None and kind_of not in HOST_PATH_TYPES:
            yield where + ("type",), f"hostPath type {kind_of!r} is not one of {', '.join(HOST_PATH_TYPES[1:])}"
    elif kind == "image":
        if not as_str(source.get("reference")):  # validateImageVolumeSource, on create
            yield where + ("reference",), "image volume names no image reference (one is required)"
        policy = as_str(source.get("pullPolicy"))
        if policy and policy not in PULL_POLICIES:  # empty: defaulted from the reference's tag
            yield where + ("pullPolicy",), \
                f"image volume pullPolicy {policy!r} is not one of {', '.join(PULL_POLICIES)}"
    elif kind == "nfs":
        yield from nfs_problems(source, where)
    elif kind == "ephemeral":
        yield from template_claim_problems(source, where, attributes_class)
    elif kind == "emptyDir":
        limit = source.get("sizeLimit")
        amount = go_quantity(str(limit).strip()) if isinstance(limit, (str, int, float)) \
            and not isinstance(limit, bool) else None
        if amount is not None and amount < 0:
            yield where + ("sizeLimit",), f"emptyDir sizeLimit {limit!r} is below zero"
        # emptyDir.mode is behind a feature gate off by default (EmptyDirVolumeMode): the server drops it


def volume_problems(pod: PodSettings, attributes_class: bool = True, certificates: bool = True):
    """(path, problem) for what the API server refuses in a pod spec's volumes; `attributes_class`: an
    ephemeral claim's volumeAttributesClassName is read (from Kubernetes 1.34); `certificates`: a projected
    volume's cluster trust bundles and pod certificates are (from Kubernetes 1.37)."""
    # a Pod's own name (not a template's, whose pods are named later): an ephemeral volume's claim is named
    # <pod>-<volume>, which must be a DNS subdomain too
    pod_name = as_str(pod.obj.metadata.get("name")) if pod.obj.kind == "Pod" and pod.path == ("spec",) else None
    for index, volume in enumerate(as_list(pod.spec.get("volumes"))):
        volume, where = as_map(volume), pod.field_path("volumes") + (index,)
        name = as_str(volume.get("name"))
        problem = dns1123_label_problem(name) if name else None
        if problem:
            yield where + ("name",), f"volume name {name!r} {problem}"
        elif not name and "name" in volume:  # left out, the schema's; empty or null (read as empty), here
            yield where + ("name",), "volume has an empty name (every volume needs one)"
        sources = [key for key, value in volume.items() if key in SOURCES and value is not None]
        if sources[:1] == ["ephemeral"] and pod_name and name:
            claim = f"{pod_name}-{name}"
            if dns1123_subdomain_problem(claim):
                yield where + ("name",), f"ephemeral volume {name!r} gets a claim named after the pod and the " \
                    f"volume ({len(claim)} characters), which {dns1123_subdomain_problem(claim)}"
        for extra in sources[1:]:  # none is an emptyDir: the server defaults it
            yield where + (extra,), f"volume {name or index} names a second source, {extra} beside {sources[0]}"
        if sources:
            yield from _source_problems(sources[0], volume[sources[0]], where + (sources[0],), attributes_class,
                                        certificates, name)


def filled_claim(component, container) -> str | None:
    """The cache's claim when `container` is the one the pod builder merges into its main container (named
    `main`; a v1alpha1 mainContainer whatever its name): applyCompilationCache gives that container's mounts
    of the claim without a path the cache's, or, with no path and no default for the backend, builds no pod
    (compilation-cache-invalid's to report). None for any other container, or a component without a named cache."""
    cache = component.compilation_cache()
    if container is not component.main or cache is None or not cache[0]:
        return None
    return cache[0] if component.graph.shape == "services" or container.raw.get("name") == "main" else None


def mount_problems(raw: dict, path: tuple, volumes: dict | None, written: list | None = None,
                   filled: str | None = None):
    """(path, problem) for a container's volume mounts and raw block devices; `volumes` the pod's (None when
    the operator adds its own, so a mount's volume cannot be known: then `written`, the pod spec's volumes as
    written, are the ones a device's is looked up in); `filled` a volume whose mounts without a path the
    operator gives one (a DGD main container's mounts of the compilation cache's claim)."""
    yield from _device_problems(raw, path, volumes, as_list(written))
    for index, mount in enumerate(as_list(raw.get("volumeMounts"))):  # a repeated path: the list keys' check
        mount, where = as_map(mount), path + ("volumeMounts", index)
        volume, mount_path = as_str(mount.get("name")), as_str(mount.get("mountPath"))
        if volume == "":  # missing: the schema's to report (the operator makes no volume for it either)
            yield where + ("name",), "has a volume mount with an empty volume name"
        elif volumes is not None and volume and volume not in volumes:
            yield where + ("name",), f"mounts volume {volume!r}, which the pod does not have"
        if mount_path is not None and not mount_path and not (filled and volume == filled):
            yield where + ("mountPath",), "has an empty mountPath"
        sub_path, expression = as_str(mount.get("subPath")) or "", as_str(mount.get("subPathExpr")) or ""
        for name, text in (("subPath", sub_path), ("subPathExpr", expression)):
            problem = descending_path_problem(text) if text else None
            if problem:
                yield where + (name,), f"{name} {text!r} {problem}"
        if sub_path and expression:
            yield where + ("subPathExpr",), "sets subPath and subPathExpr (one at most)"
        propagation = as_str(mount.get("mountPropagation"))
        if propagation is not None and propagation not in PROPAGATIONS:
            yield where + ("mountPropagation",), \
                f"mountPropagation {propagation!r} is not one of {', '.join(PROPAGATIONS)}"
        elif propagation == "Bidirectional" and as_map(raw.get("securityContext")).get("privileged") is not True:
            yield where + ("mountPropagation",), "mountPropagation Bidirectional is for privileged containers only"
        recursive = as_str(mount.get("recursiveReadOnly"))
        if recursive is not None and recursive not in READ_ONLY_MODES:
            yield where + ("recursiveReadOnly",), \
                f"recursiveReadOnly {recursive!r} is not one of {', '.join(READ_ONLY_MODES)}"
        elif recursive in ("Enabled", "IfPossible") and (mount.get("readOnly") is not True
                                                          or propagation not in (None, "None")):
            yield where + ("recursiveReadOnly",), \
                f"recursiveReadOnly {recursive} needs readOnly: true and no mount propagation but None"


def _source_of(volume: dict) -> str:
    """The source the server reads a volume as: its first, or an emptyDir when it names none."""
    return next((key for key, value in volume.items() if key in SOURCES and value is not None), "emptyDir")


def _device_problems(raw: dict, path: tuple, volumes: dict | None, written: list):
    """A container's raw block devices (volumeDevices) and the mounts beside them, as ValidateVolumeDevices
    and ValidateVolumeMounts read them: a device names a volume of the pod, once, that is a claim
    (persistentVolumeClaim or ephemeral); its devicePath has no '..' element; no volume is both mounted and a
    device, and no path both a mountPath and a devicePath. A DGD's device naming no written volume may name
    one the operator adds (a claim for a mount, the compilation cache): not read."""
    devices = [as_map(device) for device in as_list(raw.get("volumeDevices"))]
    if not devices:
        return
    mounts = [as_map(mount) for mount in as_list(raw.get("volumeMounts"))]
    # as the server's maps of them: a name's last entry gives its path; empty ones are reported on their own
    mount_paths = {as_str(mount.get("name")) or "": as_str(mount.get("mountPath")) or "" for mount in mounts}
    device_paths = {as_str(device.get("name")) or "": as_str(device.get("devicePath")) or "" for device in devices}
    for index, mount in enumerate(mounts):
        where, name, mount_path = path + ("volumeMounts", index), as_str(mount.get("name")), \
            as_str(mount.get("mountPath"))
        if name and name in device_paths:
            yield where + ("name",), f"mounts volume {name!r}, which the container also uses as a raw block device"
        if mount_path and mount_path in device_paths.values():
            yield where + ("mountPath",), f"mountPath {mount_path!r} is also one of the container's devicePaths"
    kinds = {name: _source_of(volume) for name, (volume, _) in volumes.items()} if volumes is not None else \
        {as_str(as_map(volume).get("name")): _source_of(as_map(volume)) for volume in written}
    seen: set[str] = set()
    for index, device in enumerate(devices):
        where, name, device_path = path + ("volumeDevices", index), as_str(device.get("name")), \
            as_str(device.get("devicePath"))  # either missing: the schema's to report
        if name == "":
            yield where + ("name",), "has a volume device with an empty volume name"
        elif name is not None:
            kind = kinds.get(name)
            if name in seen:
                yield where + ("name",), f"uses volume {name!r} as a raw block device twice"
            elif kind is None and volumes is not None:
                yield where + ("name",), f"uses volume {name!r} as a raw block device, which the pod does not have"
            elif kind is not None and kind not in BLOCK_SOURCES:
                yield where + ("name",), f"uses {kind} volume {name!r} as a raw block device; only a " \
                                         "persistentVolumeClaim or ephemeral volume can be one"
            if name in mount_paths:
                yield where + ("name",), f"uses volume {name!r} as a raw block device, which the container also mounts"
            seen.add(name)
        if device_path == "":
            yield where + ("devicePath",), "has an empty devicePath"
        elif device_path is not None:
            if ".." in device_path.split("/"):
                yield where + ("devicePath",), f"devicePath {device_path!r} must not contain a '..' element"
            if device_path in mount_paths.values():
                yield where + ("devicePath",), f"devicePath {device_path!r} is also one of the container's mountPaths"
