"""The in-tree volume sources (disks, network file systems, storage plugins) as the API server validates
them in a pod (written from Kubernetes' core validation, v1.37: validateISCSIVolumeSource,
validateFCVolumeSource, validateGCEPersistentDiskVolumeSource and the other validate*VolumeSource functions):
the names, IDs and addresses each needs (a field the schema requires and that is missing is the schema's to
report; an empty one is the server's), LUNs and partitions from 0 to 255, an iSCSI qualified name, an Azure
disk's caching mode, kind and URI as defaulted, a Quobyte registry of host:port pairs, a StorageOS volume
named by a DNS label, flexVolume options outside the kubernetes.io and k8s.io namespaces, a gitRepo
directory inside the volume, a flocker dataset named once and without '/'. Also the checks of a csi driver's
name and an nfs source, which a pod's volumes share with a PersistentVolume's (persistent_sources.py)."""

from __future__ import annotations

import re

from dgdlint.model import as_list, as_map, as_str
from dgdlint.rules.syntax import (
    as_int,
    descending_path_problem,
    dns1123_label_problem,
    dns1123_subdomain_problem,
)

# Text fields each source needs: (field, whether the schema requires it, so that a missing one is its to report).
_NEEDED = {
    "iscsi": (("targetPortal", True), ("iqn", True)),
    "gcePersistentDisk": (("pdName", True),),
    "awsElasticBlockStore": (("volumeID", True),),
    "flexVolume": (("driver", True),),
    "rbd": (("image", True),),
    "gitRepo": (("repository", True),),
    "azureDisk": (("diskName", True), ("diskURI", True)),
    "azureFile": (("secretName", True), ("shareName", True)),
    "cinder": (("volumeID", True),),
    "vsphereVolume": (("volumePath", True),),
    "quobyte": (("registry", True), ("volume", True)),
    "storageos": (("volumeName", False),),
    "scaleIO": (("gateway", True), ("system", True), ("volumeName", False)),
    "portworxVolume": (("volumeID", True),),
    "photonPersistentDisk": (("pdID", True),),
    "glusterfs": (("endpoints", True), ("path", True)),
}
# Lists that must hold an entry (the schema requires the field, not an entry).
_NEEDED_LISTS = {"rbd": "monitors", "cephfs": "monitors"}
# Sources whose secretRef, when set, names a secret (a LocalObjectReference's name the schema leaves optional).
_SECRET_NAMED = ("cinder", "storageos")
IN_TREE = tuple(_NEEDED) + ("cephfs", "fc", "flocker")

# iSCSI qualified names (the server's patterns, ASCII only as Go's classes are).
_IQN = re.compile(r"iqn\.[0-9]{4}-[0-9]{2}\.([A-Za-z0-9.-]+)(:[^,;*&$|\t\n\f\r ]+)\Z")
_EUI = re.compile(r"eui.[A-Za-z0-9]{16}")
_NAA = re.compile(r"naa.[A-Za-z0-9]{32}")
CACHING_MODES = ("None", "ReadOnly", "ReadWrite")
DISK_KINDS = ("Dedicated", "Managed", "Shared")


def iscsi_name_problem(name: str) -> str | None:
    """An iSCSI qualified name (an iqn, or eui and naa names of 16 and 32 letters and digits), None when fine."""
    if not name.startswith(("iqn", "eui", "naa")):
        return "must start with iqn, eui or naa"
    if name.startswith("iqn") and not _IQN.search(name):
        return "must be iqn.YYYY-MM.<naming authority>:<name>"
    if name.startswith("eui") and not _EUI.fullmatch(name):
        return "must be eui. and 16 letters or digits"
    if name.startswith("naa") and not _NAA.fullmatch(name):
        return "must be naa. and 32 letters or digits"
    return None


def host_port_problem(pair: str) -> str | None:
    """Go's net.SplitHostPort: host:port, an IPv6 host in brackets; either part may be empty."""
    colon = pair.rfind(":")
    if colon < 0:
        return "has no port"
    if pair.startswith("["):
        end = pair.find("]")
        if end < 0:
            return "has no ']'"
        if end + 1 == len(pair) or (end + 1 != colon and pair[end + 1] != ":"):
            return "has no port"
        if end + 1 != colon:
            return "has too many colons"
        host_from, port_from = 1, end + 1
    else:
        if ":" in pair[:colon]:
            return "has too many colons (an IPv6 host goes in brackets)"
        host_from, port_from = 0, 0
    if "[" in pair[host_from:] or "]" in pair[port_from:]:
        return "has a misplaced bracket"
    return None


def csi_driver_problem(driver: str) -> str | None:
    """A CSI driver's name as the server reads it: required, 63 characters at most, a DNS subdomain once in
    lower case (capitals are taken); None when fine."""
    if not driver:
        return "is required"
    return "must be no more than 63 characters" if len(driver) > 63 else dns1123_subdomain_problem(driver.lower())


def nfs_problems(source: dict, where: tuple):
    """An nfs source, a pod's or a PersistentVolume's: a server and an absolute path (a missing one is the
    schema's to report)."""
    if as_str(source.get("server")) == "":
        yield where + ("server",), "nfs volume has an empty server (one is required)"
    nfs_path = as_str(source.get("path"))
    if nfs_path is not None and not nfs_path.startswith("/"):  # Go's path.IsAbs
        yield where + ("path",), f"nfs path {nfs_path!r} is not an absolute path"


def _iscsi_problems(source: dict, where: tuple, volume: str | None, name_path: tuple):
    iqn = as_str(source.get("iqn"))
    if iqn and iscsi_name_problem(iqn):
        yield where + ("iqn",), f"iscsi iqn {iqn!r} {iscsi_name_problem(iqn)}"
    lun = as_int(source.get("lun"))
    if lun is not None and not 0 <= lun <= 255:
        yield where + ("lun",), f"iscsi lun {lun} is not between 0 and 255"
    if (source.get("chapAuthDiscovery") is True or source.get("chapAuthSession") is True) \
            and source.get("secretRef") is None:
        yield where + ("secretRef",), "iscsi CHAP authentication needs a secretRef"
    initiator = as_str(source.get("initiatorName"))
    if initiator is not None:
        if iscsi_name_problem(initiator):
            yield where + ("initiatorName",), f"iscsi initiatorName {initiator!r} {iscsi_name_problem(initiator)}"
        joined = f"{volume or ''}:{as_str(source.get('targetPortal')) or ''}"
        if len(joined) > 64:
            yield name_path, f"volume {volume!r} and its iscsi targetPortal make {len(joined)} " \
                "characters (<volume>:<portal>); with an initiatorName, at most 64"


def _fc_problems(source: dict, where: tuple):
    targets, wwids = as_list(source.get("targetWWNs")), as_list(source.get("wwids"))
    if not targets and not wwids:
        yield where + ("targetWWNs",), "fc volume names neither targetWWNs nor wwids (one of them is required)"
    elif targets and wwids:
        yield where + ("targetWWNs",), "fc volume names both targetWWNs and wwids; it takes one"
    if targets:
        lun = source.get("lun")
        if lun is None:
            yield where + ("lun",), "fc volume with targetWWNs needs a lun"
        elif type(lun) is int and not 0 <= lun <= 255:
            yield where + ("lun",), f"fc lun {lun} is not between 0 and 255"


def _azure_disk_problems(source: dict, where: tuple):
    caching, kind = source.get("cachingMode"), source.get("kind")
    caching = "ReadWrite" if caching is None else as_str(caching)  # unset (or null): the defaults
    defaulted = kind is None
    kind = "Shared" if defaulted else as_str(kind)
    if caching is not None and caching not in CACHING_MODES:
        yield where + ("cachingMode",), f"azureDisk cachingMode {caching!r} is not one of {', '.join(CACHING_MODES)}"
    if kind is not None and kind not in DISK_KINDS:
        yield where + ("kind",), f"azureDisk kind {kind!r} is not one of {', '.join(DISK_KINDS)}"
    uri = as_str(source.get("diskURI"))
    if uri:  # empty: reported as required
        if kind == "Managed" and not uri.startswith("/subscriptions/"):
            yield where + ("diskURI",), "azureDisk of kind Managed needs a diskURI starting with /subscriptions/"
        elif kind != "Managed" and not uri.startswith("https://"):
            yield where + ("diskURI",), f"azureDisk of kind {kind}{' (the default)' if defaulted else ''} " \
                                        "needs a diskURI starting with https://"


def in_tree_problems(kind: str, source: dict, where: tuple, volume: str | None, name_path: tuple | None = None):
    """(path, problem) for one in-tree volume source of `kind` at `where`; `volume` the volume's name, at
    `name_path` (by default the name beside the source, as in a pod's volume)."""
    for name, schema_requires in _NEEDED.get(kind, ()):
        value = as_str(source.get(name))
        if value == "" or (value is None and not schema_requires and source.get(name) is None):
            yield where + (name,), f"{kind} volume has no {name} (one is required)" if value is None else \
                f"{kind} volume has an empty {name} (one is required)"
    listed = _NEEDED_LISTS.get(kind)
    if listed and isinstance(source.get(listed), list) and not source[listed]:
        yield where + (listed,), f"{kind} volume has no {listed} (at least one is required)"
    if kind in _SECRET_NAMED and isinstance(source.get("secretRef"), dict) \
            and not as_str(source["secretRef"].get("name")):
        yield where + ("secretRef", "name"), f"{kind} secretRef names no secret"
    if kind == "iscsi":
        yield from _iscsi_problems(source, where, volume, where[:-1] + ("name",) if name_path is None else name_path)
    elif kind == "fc":
        yield from _fc_problems(source, where)
    elif kind in ("gcePersistentDisk", "awsElasticBlockStore"):
        partition = as_int(source.get("partition"))
        if partition is not None and not 0 <= partition <= 255:
            yield where + ("partition",), f"{kind} partition {partition} is not between 0 and 255"
    elif kind == "flexVolume":
        for key in as_map(source.get("options")):
            space = str(key).split("/", 1)[0] if "/" in str(key) else str(key)
            if ("." + space.lower()).endswith((".kubernetes.io", ".k8s.io")):
                yield where + ("options", key), \
                    f"flexVolume option {str(key)!r} is in a namespace Kubernetes keeps (kubernetes.io, k8s.io)"
    elif kind == "gitRepo":
        directory = as_str(source.get("directory"))
        if directory and descending_path_problem(directory):
            yield where + ("directory",), f"gitRepo directory {directory!r} {descending_path_problem(directory)}"
    elif kind == "azureDisk":
        yield from _azure_disk_problems(source, where)
    elif kind == "quobyte" and as_str(source.get("registry")):  # an empty one: reported as required
        tenant = as_str(source.get("tenant")) or ""
        if len(tenant) > 64:
            yield where + ("tenant",), f"quobyte tenant is {len(tenant)} characters long; at most 64 (a UUID)"
        else:
            for pair in as_str(source["registry"]).split(","):
                if host_port_problem(pair):
                    yield where + ("registry",), f"quobyte registry entry {pair!r} {host_port_problem(pair)} " \
                                                 "(host:port pairs separated by commas)"
                    break
    elif kind == "storageos":
        for name in ("volumeName", "volumeNamespace"):
            text = as_str(source.get(name))
            if text and dns1123_label_problem(text):
                yield where + (name,), f"storageos {name} {text!r} {dns1123_label_problem(text)}"
    elif kind == "flocker":
        dataset, uuid = as_str(source.get("datasetName")) or "", as_str(source.get("datasetUUID")) or ""
        if not dataset and not uuid:
            yield where, "flocker volume names neither a datasetName nor a datasetUUID (one is required)"
        elif dataset and uuid:
            yield where, "flocker volume names both a datasetName and a datasetUUID (one at most)"
        if "/" in dataset:
            yield where + ("datasetName",), f"flocker datasetName {dataset!r} must not contain '/'"
