"""A PersistentVolume's source as the API server validates it on create (written from Kubernetes 1.37's
ValidatePersistentVolumeSpec and its validate*PersistentVolumeSource functions).

- One source. The server goes through them in its own order (hostPath first, csi last) and refuses each one
  after the first, without validating it; a flexVolume is counted but never refused, so a hostPath beside a
  flexVolume is taken (a source after them both is refused).
- The in-tree sources are checked as in a pod (volume_sources.py), and then for what a volume's own source
  types add: a secretRef with a namespace (cinder, storageos) or a name (iscsi), a glusterfs
  endpointsNamespace and an azureFile secretNamespace that are not empty when set, and an iscsi
  <volume name>:<targetPortal> of 64 characters at most beside an initiatorName, the volume's name being
  the PersistentVolume's.
- hostPath and local: a path without a '..' element (a hostPath's type one the server knows); a local
  volume needs a nodeAffinity. nfs: as in a pod. csi: a driver name, a volumeHandle, and secret references
  that each name a secret (a DNS subdomain) and its namespace (a DNS label).
- The mount-options annotation (volume.beta.kubernetes.io/mount-options) only beside a source that takes
  mount options. The server reads the annotation alone: spec.mountOptions is taken on any source.

A field the schema requires and that is missing is the schema's to report; an empty one is the server's."""

from __future__ import annotations

from dgdlint.model import as_map, as_str
from dgdlint.rules.syntax import dns1123_label_problem, dns1123_subdomain_problem
from dgdlint.rules.volume_sources import IN_TREE, csi_driver_problem, in_tree_problems, nfs_problems
from dgdlint.rules.volumes import HOST_PATH_TYPES

# PersistentVolumeSpec's sources in the order the server validates them.
SOURCE_ORDER = ("hostPath", "gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "flocker", "nfs", "rbd",
                "quobyte", "cephfs", "iscsi", "cinder", "fc", "flexVolume", "azureFile", "vsphereVolume",
                "photonPersistentDisk", "portworxVolume", "azureDisk", "scaleIO", "local", "storageos", "csi")
# The sources beside which the mount-options annotation is taken (the server's checkMountOption).
MOUNT_OPTION_SOURCES = frozenset({"gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "nfs", "rbd", "quobyte",
                                  "iscsi", "cinder", "cephfs", "azureFile", "vsphereVolume", "azureDisk",
                                  "photonPersistentDisk"})
MOUNT_OPTIONS_ANNOTATION = "volume.beta.kubernetes.io/mount-options"
CSI_SECRETS = ("controllerPublishSecretRef", "controllerExpandSecretRef", "nodePublishSecretRef",
               "nodeExpandSecretRef")


def written_sources(spec: dict) -> list[str]:
    """The sources a spec sets (null is unset), in the server's order."""
    return [kind for kind in SOURCE_ORDER if spec.get(kind) is not None]


def _secret_reference_problems(reference: dict, where: tuple, what: str):
    """A SecretReference of a csi source: a name that is a DNS subdomain and a namespace that is a DNS label."""
    for field, check in (("name", dns1123_subdomain_problem), ("namespace", dns1123_label_problem)):
        text = as_str(reference.get(field)) or ""
        problem = check(text) if text else None
        if not text:
            yield where + (field,), f"{what} names no secret {field} (one is required)"
        elif problem:
            yield where + (field,), f"{what} secret {field} {text!r} {problem}"


def _persistent_only_problems(kind: str, source: dict, where: tuple):
    """What a PersistentVolume's own source type adds to the pod source of the same name."""
    reference = source.get("secretRef")
    if isinstance(reference, dict):
        if kind == "iscsi" and not as_str(reference.get("name")):
            yield where + ("secretRef", "name"), "iscsi secretRef names no secret"
        if kind in ("cinder", "storageos") and not as_str(reference.get("namespace")):
            yield where + ("secretRef", "namespace"), f"{kind} secretRef names no namespace (one is required)"
    if kind == "glusterfs" and source.get("endpointsNamespace") is not None:
        namespace = as_str(source["endpointsNamespace"]) or ""
        problem = dns1123_label_problem(namespace) if namespace else "is empty; when set, it names a namespace"
        if problem:
            yield where + ("endpointsNamespace",), f"glusterfs endpointsNamespace {namespace!r} {problem}"
    if kind == "azureFile" and as_str(source.get("secretNamespace")) == "":
        yield where + ("secretNamespace",), "azureFile secretNamespace is empty; when set, it names a namespace"


def _own_problems(kind: str, source: dict, where: tuple):
    """The sources a pod's volume has no in-tree check for here: hostPath, local, nfs and csi."""
    if kind in ("hostPath", "local"):
        path = as_str(source.get("path"))
        if path == "":
            yield where + ("path",), f"{kind} volume has an empty path (one is required)"
        elif path is not None and ".." in path.split("/"):
            yield where + ("path",), f"{kind} path {path!r} must not contain a '..' element"
        host_type = as_str(source.get("type"))
        if kind == "hostPath" and path and host_type is not None and host_type not in HOST_PATH_TYPES:
            yield where + ("type",), f"hostPath type {host_type!r} is not one of {', '.join(HOST_PATH_TYPES[1:])}"
    elif kind == "nfs":
        yield from nfs_problems(source, where)
    elif kind == "csi":
        driver = as_str(source.get("driver"))
        problem = csi_driver_problem(driver) if driver is not None else None  # missing: the schema's
        if problem:
            yield where + ("driver",), f"csi driver {driver!r} {problem}"
        if as_str(source.get("volumeHandle")) == "":
            yield where + ("volumeHandle",), "csi volume has an empty volumeHandle (one is required)"
        for name in CSI_SECRETS:
            if isinstance(source.get(name), dict):  # null: unset
                yield from _secret_reference_problems(source[name], where + (name,), f"csi {name}")


def source_problems(spec: dict, name: str, at: tuple = ("spec",)):
    """(path, problem) for the sources of the PersistentVolume spec at `at`, `name` the volume's name (as the
    server has it when it validates: a generateName's prefix and five characters)."""
    counted, kinds = 0, written_sources(spec)
    for kind in kinds:
        where = at + (kind,)
        if counted and kind != "flexVolume":
            yield where, f"names a second volume source, {kind} beside {kinds[0]} (one is taken)"
            continue
        counted += 1
        source = as_map(spec[kind])
        if kind in IN_TREE:
            yield from in_tree_problems(kind, source, where, name, where + ("targetPortal",))
            yield from _persistent_only_problems(kind, source, where)
        else:
            yield from _own_problems(kind, source, where)
        if kind == "local" and spec.get("nodeAffinity") is None:
            yield at + ("nodeAffinity",), "a local volume needs a nodeAffinity (the node its disk is on)"
    if not counted:
        yield at, "names no volume source (one is required: nfs, csi, hostPath, local, ...)"


def mount_options_problem(annotations: dict, spec: dict) -> str | None:
    """Why the mount-options annotation is refused on this volume, or None (no annotation, or a source that
    takes mount options beside it)."""
    kinds = written_sources(spec)
    if MOUNT_OPTIONS_ANNOTATION not in annotations or MOUNT_OPTION_SOURCES & set(kinds):
        return None
    source = f"a {' and '.join(kinds)} volume" if kinds else "a volume without a source"
    return f"the {MOUNT_OPTIONS_ANNOTATION} annotation is refused on {source}, whose source takes no mount " \
           "options"
