"""Fields the API server drops as it stores a built-in object, their feature gate being off by default
(data/dropped-fields.yaml): a manifest that writes one is taken without a word, and the field has no effect.
The walk finds them by the definition that holds them in the kind's schema, so they are found wherever that
definition is used (every container, volume and probe of every pod template); a DynamoGraphDeployment's pod
templates, which the operator copies into pods, are walked with the pod's own definitions."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

from dgdlint.datafiles import data_file
from dgdlint.schema.refs import children, ref_name, resolve, subtree_holds

POD_SPEC = "io.k8s.api.core.v1.PodSpec"
CONTAINER = "io.k8s.api.core.v1.Container"


class Dropped(NamedTuple):
    """A field the server drops: the definition that holds it, its feature gate, and the field below it whose
    non-empty value makes the server drop it (None: any value does)."""

    definition: str
    gate: str
    when: str | None = None

    def applies(self, value: object) -> bool:
        if value is None:  # a null field is no field
            return False
        if self.when is None:
            return True
        return isinstance(value, dict) and value.get(self.when) not in (None, "")

    def message(self, field: str, version: str, where: str = "") -> str:
        if self.when:  # a claim's dataSourceRef: a claim made of a template (StatefulSet, ephemeral) loses it too
            return (f"{field} naming a {self.when} is dropped by the API server as it stores a claim{where}: its "
                    f"feature gate {self.gate} is off by default in Kubernetes {version}, so the claim is made "
                    "without it (an empty volume)")
        return (f"{field} is dropped by the API server{where}: its feature gate {self.gate} is off by default in "
                f"Kubernetes {version}, so it is stored without it and has no effect")

    def remediation(self, field: str) -> str:
        leave = f"{field}'s {self.when} out (a source in the claim's own namespace)" if self.when else f"{field} out"
        return f"Leave {leave}, or enable the {self.gate} feature gate on the API server (and the nodes) first."


@cache
def dropped_table() -> tuple[str, dict[str, dict[str, Dropped]]]:
    """(the Kubernetes version the table is of, {definition: {field: why the server drops it}})."""
    data = data_file("dropped-fields.yaml")
    table: dict[str, dict[str, Dropped]] = {}
    for entry in data["fields"]:
        definition = entry["definition"]
        table.setdefault(definition, {})[entry["field"]] = Dropped(definition, entry["gate"], entry.get("when"))
    return str(data["kubernetes"]), table


# The keys a dropped field is written under where its name is common elsewhere (a port's protocol, a file's
# mode): tests/schema/test_field_dropped_warning.py checks these against the definitions that hold them.
UNDER = {"protocol": ("httpGet",), "mode": ("emptyDir", "grpc")}


@cache
def _names() -> frozenset:
    return frozenset(field for fields in dropped_table()[1].values() for field in fields)


def may_hold(value: object, keys: frozenset | None = None) -> bool:
    """Whether a value could hold a dropped field: a key of one's name (under its usual key, for a common
    name). False is certain; True asks for the walk (a DynamoGraphDeployment's pod templates are walked with
    Kubernetes' own definitions, which are loaded only then). `keys`, every key of the document the value is in
    (the loader keeps them), answers most documents without a walk: none of them is a dropped field's name."""
    names = _names()
    if keys is not None and not any(name not in UNDER or not keys.isdisjoint(UNDER[name]) for name in names & keys):
        return False
    stack = [(value, None)]
    while stack:
        current, above = stack.pop()
        if isinstance(current, dict):
            for key, item in current.items():
                if key in names and (key not in UNDER or above in UNDER[key]):
                    return True
                if isinstance(item, (dict, list)):
                    stack.append((item, key))
        elif isinstance(current, list):
            stack.extend((item, above) for item in current if isinstance(item, (dict, list)))
    return False


class DroppedWalker:
    """The dropped fields below one schema node; which subtrees hold a definition of the table is learned once
    per schema node."""

    def __init__(self, definitions: dict):
        self.definitions = definitions
        _, self.table = dropped_table()
        self._holds: dict[int, bool] = {}
        holders = {id(definitions[name]) for name in self.table if name in definitions}
        self._is_holder = lambda node: id(node) in holders

    def found(self, value: object, schema: object, path: tuple = ()) -> Iterator[tuple[tuple, str, Dropped]]:
        """(path, field, why) of each dropped field `value` writes."""
        fields = self.table.get(ref_name(schema), {})
        node = resolve(schema, self.definitions)
        if not subtree_holds(node, self._is_holder, self._holds, self.definitions):
            return
        properties, values, items = children(node)
        if isinstance(value, dict):
            for key, item in value.items():
                if key in fields and fields[key].applies(item):
                    yield path + (key,), key, fields[key]
                    continue
                below = properties.get(key, values)
                if below is not None:
                    yield from self.found(item, below, path + (key,))
        elif isinstance(value, list) and items is not None:
            for index, item in enumerate(value):
                yield from self.found(item, items, path + (index,))

    def in_pod_spec(self, spec: object, path: tuple) -> Iterator[tuple[tuple, str, Dropped]]:
        """The dropped fields of a pod spec as a DynamoGraphDeployment writes it: a v1alpha1 extraPodSpec's
        mainContainer is a container."""
        if not isinstance(spec, dict):
            return
        yield from self.found({k: v for k, v in spec.items() if k != "mainContainer"}, {"$ref": POD_SPEC}, path)
        if "mainContainer" in spec:
            yield from self.found(spec["mainContainer"], {"$ref": CONTAINER}, path + ("mainContainer",))

    def in_graph(self, graph: dict) -> Iterator[tuple[tuple, str, Dropped]]:
        """The dropped fields of a DynamoGraphDeployment's pod templates (v1beta1 components' podTemplate,
        v1alpha1 services' extraPodSpec)."""
        spec = graph.get("spec") if isinstance(graph.get("spec"), dict) else {}
        components = spec.get("components") if isinstance(spec.get("components"), list) else []
        for index, component in enumerate(components):
            template = component.get("podTemplate") if isinstance(component, dict) else None
            if isinstance(template, dict):
                yield from self.in_pod_spec(template.get("spec"), ("spec", "components", index, "podTemplate", "spec"))
        services = spec.get("services") if isinstance(spec.get("services"), dict) else {}
        for name, service in services.items():
            if isinstance(service, dict):
                yield from self.in_pod_spec(service.get("extraPodSpec"), ("spec", "services", name, "extraPodSpec"))
