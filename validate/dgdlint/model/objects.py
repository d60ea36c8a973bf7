"""The model's building blocks: a Kubernetes object with the positions of its fields, its containers (env
with where each value came from, resources, mounts), and the tolerant accessors every view uses."""

from __future__ import annotations

from dataclasses import dataclass, field

from dgdlint.findings import Location
from dgdlint.load import Document, format_path
from dgdlint.once import once
from dgdlint.quantity import parse_quantity
from dgdlint.scalars import as_str

DGD_KIND = "DynamoGraphDeployment"
DYNAMO_GROUP = "nvidia.com"
DEFAULT_GPU_RESOURCE = "nvidia.com/gpu"
WORKLOAD_POD_SPEC = {
    "Pod": ("spec",),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
}


# Kubernetes' own kinds that live outside namespaces, by API group: a namespace written on one is ignored.
CLUSTER_SCOPED = {
    "": {"Namespace", "Node", "PersistentVolume"},
    "rbac.authorization.k8s.io": {"ClusterRole", "ClusterRoleBinding"},
    "scheduling.k8s.io": {"PriorityClass"},
    "storage.k8s.io": {"StorageClass", "CSIDriver", "CSINode", "VolumeAttachment", "VolumeAttributesClass"},
    "node.k8s.io": {"RuntimeClass"},
    "networking.k8s.io": {"IngressClass", "IPAddress", "ServiceCIDR"},
    "apiextensions.k8s.io": {"CustomResourceDefinition"},
    "admissionregistration.k8s.io": {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
                                     "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
                                     "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"},
    "apiregistration.k8s.io": {"APIService"},
    "certificates.k8s.io": {"CertificateSigningRequest", "ClusterTrustBundle"},
    "flowcontrol.apiserver.k8s.io": {"FlowSchema", "PriorityLevelConfiguration"},
    "resource.k8s.io": {"DeviceClass", "ResourceSlice"},
}


def api_group(api_version: str) -> str:
    """The group of an apiVersion: `apps` of apps/v1, "" of v1 (the core group)."""
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def as_map(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def walk(node: object, path) -> object:
    """The value at `path` (keys and list indexes) under `node`, None where it stops."""
    for part in path:
        if type(part) is str:  # most parts are keys: the quick test first
            node = node.get(part) if isinstance(node, dict) else None
        elif isinstance(part, int):
            node = node[part] if isinstance(node, list) and -len(node) <= part < len(node) else None
        else:
            node = node.get(part) if isinstance(node, dict) else None
        if node is None:
            return None
    return node


def as_list(value: object) -> list:
    return value if isinstance(value, list) else []


@dataclass
class KObject:
    """A Kubernetes object in the input set, with the document it came from. Its value is never changed
    once loaded, so what names it (kind, apiVersion, name, namespace) is read once."""

    doc: Document
    base: tuple  # path of this object inside its document (non-empty for `kind: List` items)
    value: dict
    default_namespace: str

    @classmethod
    def read_from(cls, source: str, value: dict, default_namespace: str = "default") -> KObject:
        """An object read from elsewhere than a file (a cluster), for the rules' functions; its positions are
        all the first line of `source`."""
        return cls(Document(source, 0, value, 1, 1), (), value, default_namespace)

    @once
    def kind(self) -> str:
        return as_str(self.value.get("kind")) or ""

    @once
    def api_version(self) -> str:
        return as_str(self.value.get("apiVersion")) or ""

    @once
    def group(self) -> str:
        return api_group(self.api_version)

    @once
    def version(self) -> str:
        return self.api_version.rsplit("/", 1)[-1]

    @property
    def is_custom(self) -> bool:
        """A custom resource: its group is neither core nor one of Kubernetes' own (*.k8s.io), so a CRD's
        schema describes it, and leaves its metadata to the API server."""
        return "." in self.group and not self.group.endswith(".k8s.io")

    @once
    def metadata(self) -> dict:
        return as_map(self.value.get("metadata"))

    @once
    def name(self) -> str:
        return as_str(self.metadata.get("name")) or as_str(self.metadata.get("generateName")) or ""

    @once
    def namespace(self) -> str:
        return as_str(self.metadata.get("namespace")) or self.default_namespace

    @property
    def cluster_scoped(self) -> bool:
        """One of Kubernetes' kinds that live outside namespaces (a custom kind's scope is its CRD's: False)."""
        return self.kind in CLUSTER_SCOPED.get(self.group, ())

    @once
    def annotations(self) -> dict:
        return as_map(self.metadata.get("annotations"))

    def annotation_items(self, name: str) -> list[str]:
        """The items of a comma-separated annotation (Helm's and Argo CD's hooks and delete policies), each
        trimmed, empty ones left out."""
        text = as_str(self.annotations.get(name)) or ""
        return [item.strip() for item in text.split(",") if item.strip()]

    @once
    def ref(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}"

    @once
    def label(self) -> str:
        """How messages name the object: `Job cosmos3-reasoner-download`."""
        return f"{self.kind} {self.name}" if self.name else self.kind

    @property
    def file(self) -> str:
        return self.doc.file

    def position(self, path: tuple) -> tuple[int, int]:
        return self.doc.position(self.base + tuple(path))

    def location(self, path: tuple, note: str = "") -> Location:
        line, column = self.position(path)
        return Location(self.file, line, column, format_path(path), note)

    def get(self, path: tuple) -> object:
        return walk(self.value, path)


@dataclass
class EnvVar:
    """One environment variable of a container, as the operator sets it (graph, component or container)."""

    name: str
    value: str | None  # None when the value comes from valueFrom (or is not a scalar); "" when missing or null
    value_from: dict | None
    path: tuple  # the entry's path in its object
    origin: str  # "graph", "component", "container"
    written: bool = False  # a non-empty `value` is written, even beside a valueFrom (which then wins nothing)

    @property
    def is_literal(self) -> bool:
        return self.value_from is None


MOUNT_FIELDS = ("readOnly", "subPath", "subPathExpr", "mountPropagation", "recursiveReadOnly")


def mount_fields(mount: dict) -> dict:
    """A volume mount's MOUNT_FIELDS as written, but those of Go's zero value (null, false, "")."""
    return {key: mount[key] for key in MOUNT_FIELDS if mount.get(key) not in (None, False, "")}


@dataclass
class Mount:
    """One volume mount of a container, with the claim behind it where the set says."""

    volume: str
    mount_path: str | None
    sub_path: str | None
    path: tuple
    claim: str | None = None  # the PVC behind the mount, when it can be resolved
    read_only: bool = False  # `readOnly: true` written on the mount
    # its fields but name and mountPath (readOnly, subPath, subPathExpr, mountPropagation, recursiveReadOnly) as
    # written, those of Go's zero value (null, false, "") left out: how the operator's pod gets them
    fields: dict = field(default_factory=dict)


@dataclass
class Container:
    """One container of a pod template or of a DGD component, as the pod will run it."""

    obj: KObject
    path: tuple
    name: str
    image: str | None
    image_path: tuple
    command: list[str]
    args: list[str]
    working_dir: str | None
    env: list[EnvVar] = field(default_factory=list)
    env_lists: list[tuple[tuple, list]] = field(default_factory=list)  # raw lists, for duplicate checks
    requests: dict[str, tuple[str, tuple]] = field(default_factory=dict)  # resource -> (quantity, path)
    limits: dict[str, tuple[str, tuple]] = field(default_factory=dict)
    mounts: list[Mount] = field(default_factory=list)
    env_anchor: tuple = ()  # where this container's env is declared (v1alpha1: the service's envs)
    raw: dict = field(default_factory=dict, repr=False)  # as written: the API server's own checks read it

    def env_path(self, name: str) -> tuple:
        """Where a finding about env `name` points: its effective entry, else the env list it belongs in."""
        entry = self.env_var(name)
        return entry.path if entry is not None else (self.env_anchor or self.path)

    def env_var(self, name: str) -> EnvVar | None:
        """The effective entry for `name` (later sources override earlier ones, as the operator merges)."""
        index = self.__dict__.get("_env_index")
        if index is None or index[0] is not self.env or index[1] != len(self.env):
            by_name = {entry.name: entry for entry in self.env}  # the last entry of a name wins
            index = self.__dict__["_env_index"] = (self.env, len(self.env), by_name)
        return index[2].get(name)

    def env_value(self, name: str) -> str | None:
        entry = self.env_var(name)
        return entry.value if entry is not None else None

    @property
    def command_line(self) -> list[str]:
        return self.command + self.args

    def gpu_request(self) -> tuple[str, int, tuple] | None:
        """(resource name, count, path) of the GPU-like extended resource this container asks for."""
        for table in (self.limits, self.requests):
            for resource, (quantity, path) in table.items():
                if is_gpu_resource(resource):
                    return resource, parse_count(quantity), path
        return None


def is_gpu_resource(resource: str) -> bool:
    return resource.endswith("/gpu") or "/mig-" in resource or resource.startswith("gpu.")


def canonical_json(value: object, unordered: bool = False) -> str:
    """Comparable text of a manifest value (keys sorted); `unordered` for lists whose order means nothing,
    such as tolerations."""
    import json

    if unordered and isinstance(value, list):
        return json.dumps(sorted(json.dumps(item, sort_keys=True, default=str) for item in value))
    return json.dumps(value, sort_keys=True, default=str)


def parse_count(quantity: str | None) -> int:
    """A count of devices from its quantity, as Kubernetes reads it (`1`, `"1"`, `1000m` are one); what is
    no quantity (`INF`, `1e400`, `two`) counts none."""
    value = parse_quantity(quantity)
    return int(value) if value is not None else 0
