"""Where a container's environment comes from, as the API server validates it (written from Kubernetes' core
validation): an env entry has a name, and a `valueFrom` has exactly one source, each with what it needs
(a downward API field or resource it can give, downward.py; a config map or secret key with a valid name
and key; a file key in an emptyDir volume of the pod); an `envFrom` entry has one source with a valid name,
and a prefix that is a valid env name. A DynamoGraphDeployment's env entries and envFrom reach its pods as
written (v1alpha1 `envFromSecret` becomes an envFrom secret), so the same applies there."""

from __future__ import annotations

from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.rules.downward import ENV_FIELDS, field_ref_problems, resource_ref_problems
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import (
    config_map_key_problem,
    dns1123_label_problem,
    dns1123_subdomain_problem,
    env_name_problem,
)

_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef")


def _object_name_problem(name: str, prefix: bool = False) -> str | None:
    """A config map's or secret's name: a DNS subdomain (an envFrom's is read as a prefix: apimachinery's
    maskTrailingDash puts an 'a' for its last two characters when it ends in '-' and is longer than one)."""
    return dns1123_subdomain_problem(name[:-2] + "a" if prefix and len(name) > 1 and name.endswith("-") else name)


def _key_ref_problems(kind: str, ref: dict, where: tuple):
    name, key = as_str(ref.get("name")) or "", as_str(ref.get("key")) or ""
    what = "config map" if kind == "configMapKeyRef" else "secret"
    if not name:
        yield where + ("name",), f"{kind} names no {what}"
    elif _object_name_problem(name):
        yield where + ("name",), f"{kind} name {name!r} {_object_name_problem(name)}"
    if not key:
        yield where + ("key",), f"{kind} names no key"
    elif config_map_key_problem(key):
        yield where + ("key",), f"{kind} key {key!r} {config_map_key_problem(key)}"


def _file_ref_problems(ref: dict, where: tuple):
    key, volume, path = (as_str(ref.get(name)) or "" for name in ("key", "volumeName", "path"))
    if not key:
        yield where + ("key",), "fileKeyRef names no key"
    elif env_name_problem(key):
        yield where + ("key",), f"fileKeyRef key {key!r} {env_name_problem(key)}"
    if not volume:
        yield where + ("volumeName",), "fileKeyRef names no volumeName"
    elif dns1123_label_problem(volume):
        yield where + ("volumeName",), f"fileKeyRef volumeName {volume!r} {dns1123_label_problem(volume)}"
    if not path:
        yield where + ("path",), "fileKeyRef names no path"
    elif ".." in path.split("/"):
        yield where + ("path",), f"fileKeyRef path {path!r} must not contain a '..' element"


def value_from_problems(entry: dict, where: tuple, files: bool):
    """An env entry's valueFrom; `files` whether the server knows fileKeyRef (EnvFiles, on from 1.35)."""
    value_from = entry.get("valueFrom")
    if not isinstance(value_from, dict):
        return
    where = where + ("valueFrom",)
    sources = [kind for kind in _SOURCES if isinstance(value_from.get(kind), dict)
               and (files or kind != "fileKeyRef")]
    if not sources:
        known = ", ".join(_SOURCES if files else _SOURCES[:-1])
        dropped = " (fileKeyRef needs Kubernetes 1.35)" if isinstance(value_from.get("fileKeyRef"), dict) else ""
        yield where, f"valueFrom names no source; it takes one of {known}{dropped}"
        return
    if len(sources) > 1 and as_str(entry.get("value")) in (None, ""):  # beside a value: env-value-and-value-from
        yield where, f"valueFrom names {' and '.join(sources)}; it takes one source"
    for kind in sources:
        ref, at = value_from[kind], where + (kind,)
        if kind == "fieldRef":
            yield from field_ref_problems(ref, ENV_FIELDS, at)
        elif kind == "resourceFieldRef":
            yield from resource_ref_problems(ref, at, volume=False)
        elif kind == "fileKeyRef":
            yield from _file_ref_problems(ref, at)
        else:
            yield from _key_ref_problems(kind, ref, at)


def env_from_problems(raw: dict, where: tuple):
    for index, entry in enumerate(as_list(raw.get("envFrom"))):
        entry, at = as_map(entry), where + ("envFrom", index)
        prefix = as_str(entry.get("prefix"))
        if prefix and env_name_problem(prefix):
            yield at + ("prefix",), f"envFrom prefix {prefix!r} {env_name_problem(prefix)}"
        sources = [kind for kind in ("configMapRef", "secretRef") if isinstance(entry.get(kind), dict)]
        if len(sources) != 1:
            yield at, "envFrom entry names no source; it takes configMapRef or secretRef" if not sources else \
                "envFrom entry names configMapRef and secretRef; it takes one"
        for kind in sources:
            name = as_str(entry[kind].get("name")) or ""
            problem = "is required" if not name else _object_name_problem(name, prefix=True)
            if problem:
                yield at + (kind, "name"), f"envFrom {kind} name {name!r} {problem}"


def file_volume_problems(raw: dict, where: tuple, volumes: dict, complete: bool):
    """A fileKeyRef's volume: one of the pod's, an emptyDir. `complete`: whether `volumes` are all the pod has
    (a DGD's pod also has the operator's)."""
    for index, entry in enumerate(as_list(raw.get("env"))):
        ref = as_map(as_map(as_map(entry).get("valueFrom")).get("fileKeyRef"))
        volume = as_str(ref.get("volumeName"))
        if not volume:
            continue
        at = where + ("env", index, "valueFrom", "fileKeyRef", "volumeName")
        if volume in volumes:
            spec = volumes[volume][0]
            # no source at all is defaulted to an emptyDir; `emptyDir: null` is none
            if spec.get("emptyDir") is None and any(key != "name" and value is not None for key, value in spec.items()):
                yield at, f"fileKeyRef volume {volume!r} is not an emptyDir (it must be one)"
        elif complete:
            yield at, f"fileKeyRef volume {volume!r} is not a volume of the pod"


def _reads_files(env: object) -> bool:
    return type(env) is list and any(type(entry) is dict and type(entry.get("valueFrom")) is dict
                                     and "fileKeyRef" in entry["valueFrom"] for entry in env)


def _entry_problems(entries: list, where: tuple, files: bool):
    for index, entry in enumerate(entries):  # runs for every env entry of every file: the common case is quick
        if type(entry) is not dict:
            continue  # the schema's to report
        if entry.get("name") == "":
            yield where + (index, "name"), "env entry has an empty name"
        if entry.get("valueFrom") is not None:
            yield from value_from_problems(entry, where + (index,), files)


@rule(
    name="env-source-invalid", code="DGD630", severity="error", family="admission",
    title="Env sources are ones the API server takes",
    rationale="""The API server refuses a pod whose env entry has an empty name, whose `valueFrom` names no
    source or more than one, whose `fieldRef` names a field the downward API does not give an env var
    (`metadata.labels.app` instead of `metadata.labels['app']`, `status.phase`), whose `resourceFieldRef`
    names an extended resource such as `nvidia.com/gpu` or a divisor its resource does not take, whose
    config map or secret reference has no name or key or an invalid one, whose `fileKeyRef` lacks its key,
    volume or path or names a volume that is not an emptyDir; or whose `envFrom` entry names no source,
    two sources, an invalid name or a prefix that is not an env name. A Job is refused when applied; a
    DynamoGraphDeployment is accepted (the operator copies env, envs and envFromSecret into its pods) and
    its pods are refused, so the graph never comes up.""",
    remediation="Give each valueFrom exactly one source the downward API or a config map or secret can fill, "
                "with names in lowercase letters, digits, '-' and '.'.",
    reads=("DynamoGraphDeployment", "Job", "CronJob", "Pod", "Deployment", "StatefulSet", "DaemonSet",
           "ReplicaSet"),
)
def env_source_invalid(model: Model):
    files = model.release.kubernetes_at_least("1.35")
    seen: set[tuple] = set()
    for owner, container, pod in model.all_containers():
        obj = container.obj
        for where, entries in container.env_lists:
            if (id(obj), where) in seen:  # a graph's envs reach every component: reported once
                continue
            seen.add((id(obj), where))
            label = obj.label if where[:1] == ("spec",) and len(where) == 2 else owner.label
            for path, problem in _entry_problems(entries, where, files):
                yield Hit(obj, path, f"{label}: {problem}")
        raw = container.raw
        if raw.get("envFrom"):
            for path, problem in env_from_problems(raw, container.path):
                yield Hit(obj, path, f"{owner.label}: {problem}")
        if files and _reads_files(raw.get("env")):
            complete = obj.kind != "DynamoGraphDeployment"
            for path, problem in file_volume_problems(raw, container.path, pod.volumes(), complete):
                yield Hit(obj, path, f"{owner.label}: {problem}")
    for graph in model.graphs:
        if graph.shape != "services":
            continue
        for component in graph.components:
            secret = as_map(graph.obj.get(component.path)).get("envFromSecret")
            name = as_str(secret)
            problem = _object_name_problem(name, prefix=True) if name else None
            if problem:
                yield Hit(graph.obj, component.path + ("envFromSecret",),
                          f"{component.label}: envFromSecret {name!r} {problem} (the operator makes it an "
                          "envFrom secret of the main container)")
