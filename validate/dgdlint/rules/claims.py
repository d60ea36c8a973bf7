"""PersistentVolumeClaims as the API server validates them: at least one supported access mode
(ReadWriteOncePod alone), a storage request above zero, a storage class name that is a DNS subdomain.
For a claim object the apply is refused; for a v1alpha1 `spec.pvcs` entry with `create: true` the graph is
accepted and the claim the operator makes from it (its size, storageClass and volumeAccessMode) is refused,
so the workers wait for a volume that never comes."""

from __future__ import annotations

from dgdlint.cosmos import placeholder_in
from dgdlint.model import Model, Pvc, as_list, as_map, as_str
from dgdlint.model.claims import sources_on_create
from dgdlint.quantity import go_quantity
from dgdlint.rules.metadata import template_field_set
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.selectors import selector_problems
from dgdlint.rules.syntax import (
    dns1123_label_problem,
    dns1123_subdomain_problem,
    label_value_problem,
    qualified_name_problem,
)

ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")


def claim_problems(pvc: Pvc):
    """(path, problem) for what the API server refuses in the claim `pvc` is, or that the operator makes."""
    if pvc.path == ():  # a claim object
        yield from _spec_problems(pvc.access_modes, pvc.size, pvc.storage_class, ("spec",))
    else:  # a v1alpha1 pvcs entry the operator turns into a claim
        yield from _spec_problems(pvc.access_modes, pvc.size, pvc.storage_class, None, pvc.path)


def _spec_problems(modes: list[str], size: str | None, storage_class: str | None, spec: tuple | None,
                   entry: tuple = ()):
    """A claim's access modes, storage request and class, at the claim's `spec`, or (`spec` None) at the
    fields of the pvcs `entry` the operator reads them from."""
    modes_path = spec + ("accessModes",) if spec is not None else entry + ("volumeAccessMode",)
    if spec is not None and not modes:
        yield spec, "has no access mode (at least one is required)"
    for mode in modes:
        if mode not in ACCESS_MODES:
            yield modes_path, f"access mode {mode!r} is not one of {', '.join(ACCESS_MODES)}"
    if "ReadWriteOncePod" in modes and len(set(modes) & set(ACCESS_MODES)) > 1:
        yield modes_path, "uses ReadWriteOncePod with other access modes"
    storage_path = spec + ("resources", "requests", "storage") if spec is not None else entry + ("size",)
    if size is None:
        if spec is not None:
            yield spec + ("resources",), "requests no storage (resources.requests.storage is required)"
    else:
        amount = go_quantity(size.strip() if spec is not None else size)
        if amount is not None and amount <= 0:
            yield storage_path, f"requests storage {size!r}, which is not above zero"
    if storage_class and not placeholder_in(storage_class):  # a placeholder: placeholder-value's
        problem = dns1123_subdomain_problem(storage_class)
        if problem:
            where = spec + ("storageClassName",) if spec is not None else entry + ("storageClass",)
            yield where, f"storage class {storage_class!r} {problem}"


def template_claim_problems(ephemeral: dict, where: tuple, attributes_class: bool = True):
    """An ephemeral volume's claim template: there is one, its metadata holds only labels and annotations
    (valid ones), its spec is a claim's (claim_problems)."""
    template = ephemeral.get("volumeClaimTemplate")
    if not isinstance(template, dict):
        yield where, "ephemeral volume has no volumeClaimTemplate"
        return
    where = where + ("volumeClaimTemplate",)
    metadata = as_map(template.get("metadata"))
    for key, value in metadata.items():  # a zero value ("", 0) is unset, as the server compares them
        if key not in ("labels", "annotations") and template_field_set(key, value):
            yield where + ("metadata", key), f"a claim template's metadata takes labels and annotations only, " \
                                             f"not {key} (the claim is named after the pod and the volume)"
    for key, value in as_map(metadata.get("labels")).items():
        problem = qualified_name_problem(str(key)) or \
            (label_value_problem(value) if isinstance(value, str) else None)
        if problem:
            yield where + ("metadata", "labels", key), f"claim template label {key!r} {problem}"
    for key in as_map(metadata.get("annotations")):
        problem = qualified_name_problem(str(key).lower())
        if problem:
            yield where + ("metadata", "annotations", key), f"claim template annotation {key!r} {problem}"
    yield from template_spec_problems(as_map(template.get("spec")), where + ("spec",), attributes_class)


def template_spec_problems(spec: dict, where: tuple, attributes_class: bool):
    """(path, problem) of a claim template's spec at `where` (an ephemeral volume's, a StatefulSet's), validated
    as written: a claim's access modes, storage and class, and the rest of a written spec."""
    storage = as_str(as_map(as_map(spec.get("resources")).get("requests")).get("storage"))
    modes = [mode for mode in (as_str(item) for item in as_list(spec.get("accessModes"))) if mode]
    yield from _spec_problems(modes, storage, as_str(spec.get("storageClassName")), where)
    yield from written_spec_problems(spec, where, attributes_class=attributes_class)


def _data_sources(spec: dict, claim_object: bool) -> dict[str, dict]:
    """The data sources the server validates: a claim object's as it keeps them on create
    (model.claims.sources_on_create), a claim template's as written."""
    if claim_object:
        return sources_on_create(spec)
    return {key: spec[key] for key in ("dataSource", "dataSourceRef") if isinstance(spec.get(key), dict)}


def _same_source(first: dict, second: dict) -> bool:
    """Whether two data sources are the same to the server: an apiGroup left out (or null) is not the
    empty one (it compares the pointers' targets and their absence), kinds and names as text."""
    return as_str(first.get("apiGroup")) == as_str(second.get("apiGroup")) and all(
        (as_str(first.get(field)) or "") == (as_str(second.get(field)) or "") for field in ("kind", "name"))


def written_spec_problems(spec: dict, where: tuple, claim_object: bool = False, attributes_class: bool = True):
    """What a written claim spec holds beyond access, size and class: its volumeMode, selector, data
    sources (each a kind and a name, without an apiGroup a PersistentVolumeClaim; both set, the same) and
    (`attributes_class`, from Kubernetes 1.34) volumeAttributesClassName. `claim_object`: a claim's own
    spec, not a template's (_data_sources)."""
    mode = as_str(spec.get("volumeMode"))
    if mode is not None and mode not in ("Block", "Filesystem"):
        yield where + ("volumeMode",), f"volumeMode {mode!r} is not Block or Filesystem"
    if isinstance(spec.get("selector"), dict):
        yield from selector_problems(spec["selector"], where + ("selector",))
    attributes = as_str(spec.get("volumeAttributesClassName"))
    if attributes_class and attributes and dns1123_subdomain_problem(attributes):
        yield where + ("volumeAttributesClassName",), \
            f"volumeAttributesClassName {attributes!r} {dns1123_subdomain_problem(attributes)}"
    sources = _data_sources(spec, claim_object)
    reference = sources.get("dataSourceRef")
    namespace = as_str(as_map(reference).get("namespace"))
    if namespace and "dataSource" in sources:  # left in a claim template
        yield where + ("dataSource",), "sets dataSource beside a dataSourceRef with a namespace (one at most)"
    elif namespace and dns1123_label_problem(namespace):
        yield where + ("dataSourceRef", "namespace"), \
            f"dataSourceRef namespace {namespace!r} {dns1123_label_problem(namespace)}"
    elif reference is not None and "dataSource" in sources and not _same_source(sources["dataSource"], reference):
        yield where + ("dataSource",), "sets dataSource and dataSourceRef to different objects; when both " \
                                       "are set they must match (the same apiGroup, kind and name)"
    for key, source in sources.items():
        kind, name, group = (as_str(source.get(field)) or "" for field in ("kind", "name", "apiGroup"))
        for field, text in (("name", name), ("kind", kind)):
            if not text:
                yield where + (key, field), f"{key} names no {field}"
        if not group and kind and kind != "PersistentVolumeClaim":
            yield where + (key,), f"{key} of kind {kind!r} needs its apiGroup (without one, it is a " \
                                  "PersistentVolumeClaim)"
        elif group and dns1123_subdomain_problem(group):
            yield where + (key, "apiGroup"), f"{key} apiGroup {group!r} {dns1123_subdomain_problem(group)}"


@rule(
    name="claim-spec-invalid", code="DGD608", severity="error", family="admission",
    title="Claims have a supported access mode and a storage request above zero",
    rationale="""The API server refuses a PersistentVolumeClaim without an access mode, with one it does not
    know, with ReadWriteOncePod beside another, without a storage request or with one that is not above
    zero, with a storage class name that is not a DNS subdomain, a volumeMode other than Block or
    Filesystem, an invalid selector, a data source without a kind or name (or of another kind than
    PersistentVolumeClaim without its apiGroup), a dataSource and dataSourceRef that name different
    objects (an apiGroup left out is not the empty one), or (from Kubernetes 1.34) a
    volumeAttributesClassName that is not a DNS subdomain. On create, the server first drops a
    dataSourceRef with a namespace and then, without a dataSourceRef, a dataSource that is neither a claim
    nor a VolumeSnapshot of snapshot.storage.k8s.io: those are taken (and ignored), not refused. A claim
    object is refused when applied;
    a v1alpha1 `spec.pvcs` entry with `create: true` passes with the graph, and the claim the operator makes
    from it is refused, so the workers wait for a volume that never comes. A StatefulSet's
    volumeClaimTemplates are claim specs to the server too, validated as written (nothing dropped; their
    metadata is not checked): the StatefulSet is refused.""",
    remediation="Give the claim an access mode such as ReadWriteMany and a storage size such as 200Gi.",
    reads=("PersistentVolumeClaim", "DynamoGraphDeployment (v1alpha1 spec.pvcs with create: true)",
           "StatefulSet (volumeClaimTemplates)"),
)
def claim_spec_invalid(model: Model):
    attributes_class = model.release.kubernetes_at_least("1.34")  # VolumeAttributesClass on by default
    for pvc in model.pvcs:
        written = written_spec_problems(as_map(pvc.obj.value.get("spec")), ("spec",), True, attributes_class) \
            if pvc.path == () else ()
        for path, problem in (*claim_problems(pvc), *written):
            what = pvc.obj.label if pvc.path == () else f"{pvc.obj.label}: the claim {pvc.name} it creates"
            yield Hit(pvc.obj, path, f"{what} {problem}")
    for stateful_set in model.objects:
        if stateful_set.kind == "StatefulSet" and stateful_set.group == "apps":
            for path, problem in stateful_set_template_problems(stateful_set, attributes_class):
                yield Hit(stateful_set, path, f"{stateful_set.label}: {problem}")


def stateful_set_template_problems(stateful_set, attributes_class: bool):
    """(path, problem) of each volumeClaimTemplate's spec, as the server validates a claim spec, unmodified."""
    templates = as_list(as_map(stateful_set.value.get("spec")).get("volumeClaimTemplates"))
    for index, template in enumerate(templates):
        if template is None:  # Go's JSON decoder reads a null entry as an empty template
            template = {}
        elif not isinstance(template, dict):
            continue
        where = ("spec", "volumeClaimTemplates", index)
        written_name = as_str(as_map(template.get("metadata")).get("name"))
        name = written_name or f"#{index + 1}"
        # Each template is also a volume of the pod template, named as the template is.
        name_problem = dns1123_label_problem(written_name) if written_name else None
        if not written_name:
            yield where, f"volume claim template #{index + 1} has no metadata.name (it names the pod's volume " \
                         "and claims)"
        elif name_problem:
            yield where + ("metadata", "name"), \
                f"volume claim template {written_name!r} names a pod volume, so it {name_problem}"
        for path, problem in template_spec_problems(as_map(template.get("spec")), where + ("spec",), attributes_class):
            yield path, f"volume claim template {name!r} {problem}"
