"""Built-in kinds: Kubernetes' own JSON schemas, as bundled by `kubernetes-validate`."""

from __future__ import annotations

import json
import re
from pathlib import Path

from dgdlint.schema.crd import CrdError
from dgdlint.schema.listtypes import KEY_DEFAULTS
from dgdlint.schema.openapi import bound_integer_formats, kubernetes_validator
from dgdlint.schema.refs import every_node

# What a built-in kind and group/version can be spelt as: anything else names no schema file (and never
# reaches the file system as a path).
_KIND = re.compile(r"[A-Za-z][A-Za-z0-9]{0,62}")
_API_VERSION = re.compile(r"(?:[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?/)?v[0-9]{1,4}(?:(?:alpha|beta)[0-9]{1,4})?")
# --kubernetes-version: MAJOR.MINOR, with a leading `v` and a patch allowed (`1.31`, `v1.31.2`)
_KUBERNETES_VERSION = re.compile(r"v?([0-9]{1,4})\.([0-9]{1,4})(?:\.[0-9]{1,6})?")


# Fields Kubernetes' schemas mark required (a Go field without omitempty) that the API server takes left out
# (Go reads them as their zero value, and its validation takes that), each checked against a real API server:
# tests/cluster/test_builtin_required.py leaves out every required field its objects hold, and holds these.
SERVER_OPTIONAL = {
    "io.k8s.api.batch.v1.PodFailurePolicy": ("rules",),
    "io.k8s.api.core.v1.HTTPHeader": ("value",),
    "io.k8s.api.core.v1.ISCSIPersistentVolumeSource": ("lun",),
    "io.k8s.api.core.v1.ISCSIVolumeSource": ("lun",),
    "io.k8s.api.core.v1.LimitRangeSpec": ("limits",),
    "io.k8s.api.core.v1.PreferredSchedulingTerm": ("preference",),
    "io.k8s.api.core.v1.ScaleIOPersistentVolumeSource": ("secretRef",),
    "io.k8s.api.core.v1.ScaleIOVolumeSource": ("secretRef",),
    "io.k8s.api.core.v1.SleepAction": ("seconds",),
    "io.k8s.api.core.v1.Sysctl": ("value",),
    # Required inside a field the server drops as it stores the object, its feature gate being off by default
    # in 1.37 (a pod's evictionResponders, a Job's scheduling, a device request's derivedAttributes): it takes
    # anything there, these left out too.
    "io.k8s.api.core.v1.EvictionResponder": ("name", "priority"),
    "io.k8s.api.resource.v1.DeviceDerivedAttribute": ("expression", "name"),
    "io.k8s.api.scheduling.v1alpha3.TopologyConstraint": ("key",),
    "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupResourceClaim": ("name",),
}


def _relax_required(definitions: dict) -> None:
    for name, fields in SERVER_OPTIONAL.items():
        node = definitions.get(name)
        if isinstance(node, dict) and isinstance(node.get("required"), list):
            node["required"] = [field for field in node["required"] if field not in fields]


# List-map keys that the API server's OpenAPI gives no default (a pointer or a field marked so): server-side
# apply cannot key an item that leaves them out. Every other key of a built-in list has a default there, the
# zero value of its type ("" or 0) but for KEYS_DEFAULTED's, which the JSON schemas leave out
# (tests/cluster/test_list_key_defaults.py holds this to the server's /openapi/v3).
KEYS_WITHOUT_DEFAULT = {
    ("io.k8s.api.core.v1.ObjectReference", "name"),
    ("io.k8s.api.flowcontrol.v1.FlowSchemaCondition", "type"),
    ("io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationCondition", "type"),
    ("io.k8s.api.resource.v1.AllocatedDeviceStatus", "shareID"),
}
# Keys whose default there is no zero value.
KEYS_DEFAULTED = {("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
                  ("io.k8s.api.core.v1.ServicePort", "protocol"): "TCP"}
_ZERO = {"string": "", "integer": 0}


def declare_key_defaults(definitions: dict) -> None:
    """Mark, on each item schema of a `map` list, the defaults server-side apply gives the keys it leaves out
    (listtypes.KEY_DEFAULTS), in place."""
    for node in (node for node in every_node(definitions) if node.get("x-kubernetes-list-type") == "map"):
        name = str((node.get("items") or {}).get("$ref", "")).rpartition("/")[2]
        item = definitions.get(name)
        if not isinstance(item, dict):
            continue
        for key in node.get("x-kubernetes-list-map-keys") or []:
            field = (item.get("properties") or {}).get(key)
            kind = field.get("type") if isinstance(field, dict) else None
            kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
            if (name, key) in KEYS_DEFAULTED:
                item.setdefault(KEY_DEFAULTS, {})[key] = KEYS_DEFAULTED[name, key]
            elif kind in _ZERO and (name, key) not in KEYS_WITHOUT_DEFAULT:
                item.setdefault(KEY_DEFAULTS, {}).setdefault(key, _ZERO[kind])


class BuiltinSchemas:
    def __init__(self, kubernetes_version: str | None = None):
        if kubernetes_version and not _KUBERNETES_VERSION.fullmatch(kubernetes_version.strip()):
            raise CrdError(f"--kubernetes-version {kubernetes_version!r}: give MAJOR.MINOR, such as 1.31")
        self.requested = kubernetes_version
        self._root = None
        self._version = None
        self._registry = None
        self._fast_registry = None
        self._definitions = None
        self._validators: dict[tuple[str, str], tuple] = {}

    def _schema_dir(self):
        if self._root is None:
            import importlib.util

            # Locate the package's data without importing it (its __init__ pulls in jsonschema: ~35 ms).
            spec = importlib.util.find_spec("kubernetes_validate")
            if spec is None or not spec.submodule_search_locations:
                raise CrdError("kubernetes-validate is not installed: no schemas for built-in kinds")
            base = Path(list(spec.submodule_search_locations)[0]) / "kubernetes-json-schema"
            versions = sorted(
                (entry.name[1:].split("-")[0] for entry in base.iterdir()
                 if entry.name.startswith("v") and entry.name.endswith("-local-strict")),
                key=lambda v: tuple(int(p) for p in v.split(".")),
            )
            chosen = versions[-1]
            if self.requested:
                wanted = tuple(int(p) for p in re.findall(r"[0-9]+", self.requested)[:2])
                fitting = [v for v in versions if tuple(int(p) for p in v.split(".")[:2]) <= wanted]
                if not fitting:
                    oldest = ".".join(versions[0].split(".")[:2])
                    raise CrdError(f"--kubernetes-version {self.requested}: the built-in schemas start at "
                                   f"Kubernetes {oldest}")
                chosen = fitting[-1]
            self._version = chosen
            self._root = base / f"v{chosen}-local-strict"
        return self._root

    @property
    def version(self) -> str:
        self._schema_dir()
        return self._version

    def validators(self, api_version: str, kind: str) -> tuple | None:
        """(fast, explain) validators for a built-in kind, or None when Kubernetes has no such schema."""
        key = (api_version, kind)
        if key in self._validators:
            return self._validators[key]
        if not (_KIND.fullmatch(kind) and _API_VERSION.fullmatch(api_version)):
            self._validators[key] = None
            return None
        root = self._schema_dir()
        group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
        resource = root / f"{kind.lower()}-{group_version}.json"
        found = None
        if resource.is_file():
            import jsonschema_rs

            if self._definitions is None:
                # The API server refuses an int32 field's 2147483648 when it decodes the object; the JSON schemas
                # only name the format, so its range is added as bounds.
                self._definitions = bound_integer_formats(json.loads((root / "_definitions.json").read_text()))
                _relax_required(self._definitions.get("$defs", {}))
                declare_key_defaults(self._definitions.get("$defs", {}))
                self._fast_registry = jsonschema_rs.Registry([(self._definitions["$id"], self._definitions)])
            schema = bound_integer_formats(json.loads(resource.read_text()))
            fast = jsonschema_rs.Draft202012Validator(schema, registry=self._fast_registry, validate_formats=False)
            found = (fast, lambda schema=schema: self._explainer(schema), schema)
        self._validators[key] = found
        return found

    def definitions(self) -> dict:
        """The `$defs` the kinds' schemas refer to (read with the first kind's validators)."""
        return (self._definitions or {}).get("$defs", {})

    def _explainer(self, schema: dict):
        from jsonschema import Draft202012Validator
        from referencing import Registry, Resource

        if self._registry is None:
            self._registry = Resource.from_contents(self._definitions) @ Registry()
        return kubernetes_validator(Draft202012Validator)(schema,
                                                         registry=Resource.from_contents(schema) @ self._registry)

