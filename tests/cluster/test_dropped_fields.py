"""The fields the API server drops as it stores a built-in object, their feature gate off by default, are the
ones dgdlint warns about (kubernetes-field-dropped, data/dropped-fields.yaml), on a real kube-apiserver:
every synthesized base (builtin_synth.py: one per definition the kinds reach, holding every scalar field it
has) is created as a dry run, and each field it writes that the stored object lacks is one dgdlint names,
or one the server drops for another reason, below; each field dgdlint names, the stored object lacks (in a
claim template, the claim made of it). Each entry of the table is met by some base, so none is untested."""

from __future__ import annotations

import json

import pytest
from builtin_bases import placed
from builtin_synth import SYNTHESIZED, cluster_ready
from cluster_support import CLUSTER
from controlplane import ApiError

from dgdlint.engine import check_texts
from dgdlint.load import format_path
from dgdlint.schema import SchemaStage
from dgdlint.schema.dropped import DroppedWalker, dropped_table

pytestmark = CLUSTER

# Fields the server leaves out of the stored object for what they are, not for a feature gate: a Secret's
# stringData is written into its data; a ServiceAccount keeps only the name of each secret it lists; a claim's
# dataSource naming no kind a claim can be made from (the base's "a") is cleared. (A claim's dataSourceRef
# naming a namespace is dropped for its gate, CrossNamespaceVolumeDataSource: dgdlint warns of it.)
ELSEWHERE = {("Secret", "stringData"), ("ServiceAccount", "secrets"), ("PersistentVolumeClaim", "spec.dataSource")}
_ZERO = (False, 0, "", None)


def _leaves(value: object, path: tuple = ()):
    """(path, value) of every scalar below the object's spec and other top-level fields but metadata."""
    if isinstance(value, dict):
        for key, item in value.items():
            if path or key not in ("apiVersion", "kind", "metadata", "status"):
                yield from _leaves(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, path + (index,))
    else:
        yield path, value


def _paths(value: object, path: tuple = ()):
    """Every path of the object, as dgdlint writes them, and as a tuple."""
    yield format_path(path), path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from _paths(item, path + (key,))


def _has(document: object, path: tuple) -> bool:
    for part in path:
        if isinstance(document, dict) and part in document:
            document = document[part]
        elif isinstance(document, list) and isinstance(part, int) and part < len(document):
            document = document[part]
        else:
            return False
    return True


def _dropped_from_made_claim(plane, namespace: str, body: dict, where: tuple) -> bool:
    """Whether the claim made of the claim template that holds `where` (a StatefulSet's volumeClaimTemplates
    entry, an ephemeral volume's volumeClaimTemplate) lacks the field: the template is stored as written, the
    server drops the field from the claim its controller creates of it."""
    templates = [i for i, part in enumerate(where) if part in ("volumeClaimTemplates", "volumeClaimTemplate")]
    if not templates:
        return False
    start = where.index("spec", templates[-1])
    spec = body
    for part in where[:start + 1]:
        spec = spec[part]
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "made"}, "spec": spec}
    stored = plane.request("POST", f"/api/v1/namespaces/{namespace}/persistentvolumeclaims?dryRun=All", claim)
    return not _has(stored, where[start:])


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith((top + ".", top + "["))


@pytest.fixture(scope="module")
def verdicts(control_plane) -> list[tuple[str, str, set[str], set[str], set[str], set[tuple[str, str]]]]:
    """(base, kind, paths the server drops, paths dgdlint warns of, those of them the server keeps, the table's
    entries (definition, field) met) for every synthesized base the server takes."""
    namespace = "dropped-fields"
    control_plane.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                         "metadata": {"name": namespace}})
    cluster_ready(control_plane, namespace)
    stage, out = SchemaStage(), []
    stage.builtins.validators("v1", "Pod")  # the definitions are read with a kind's schema
    walker = DroppedWalker(stage.builtins.definitions())
    for name, base in SYNTHESIZED:
        found = placed(control_plane, namespace, base)
        if found is None:
            continue
        body, path = found
        try:
            stored = control_plane.request("POST", f"{path.rsplit('/', 1)[0]}?dryRun=All&fieldValidation=Strict", body)
        except ApiError:
            continue  # a base the server refuses as a create: the sweeps judge those
        dropped = {format_path(where) for where, value in _leaves(body)
                   if value not in _ZERO and not _has(stored, where)}
        result = check_texts({"base.json": json.dumps(body, indent=1)}, stage)
        warned = {f.path for f in result.findings if f.rule == "kubernetes-field-dropped"}
        kept = {text for text, where in _paths(body) if text in warned and _has(stored, where)
                and not _dropped_from_made_claim(control_plane, namespace, body, where)}
        schema = stage.builtins.validators(body["apiVersion"], body["kind"])[2]
        met = {(why.definition, field) for _where, field, why in walker.found(body, schema)}
        out.append((name, body["kind"], dropped, warned, kept, met))
    return out


def test_every_field_the_server_drops_is_one_dgdlint_warns_of(verdicts):
    unexplained = [f"{name}: {path}" for name, kind, dropped, warned, *_rest in verdicts for path in sorted(dropped)
                   if not any(_under(path, top) for top in warned)
                   and not any(kind == k and _under(path, top) for k, top in ELSEWHERE)]
    assert len(verdicts) > 200, len(verdicts)
    assert not unexplained, "\n".join(unexplained)


def test_every_field_dgdlint_warns_of_is_dropped_and_every_table_entry_is_met(verdicts):
    kept = [f"{name}: {path}" for name, _kind, _dropped, _warned, kept, _met in verdicts for path in sorted(kept)]
    assert not kept, "\n".join(kept)
    met = {entry for *_rest, entries in verdicts for entry in entries}
    table = {(definition, field) for definition, entries in dropped_table()[1].items() for field in entries}
    assert table <= met, sorted(table - met)


def test_a_claim_template_s_namespaced_data_source_is_kept_in_the_template_and_dropped_from_the_claim(control_plane):
    namespace = "dropped-fields-template"
    control_plane.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                         "metadata": {"name": namespace}})
    claim_spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                  "dataSourceRef": {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot",
                                    "name": "weights", "namespace": "models"}}
    body = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s"},
            "spec": {"selector": {"matchLabels": {"app": "s"}}, "serviceName": "s",
                     "template": {"metadata": {"labels": {"app": "s"}},
                                  "spec": {"containers": [{"name": "c", "image": "busybox:1.36.1"}]}},
                     "volumeClaimTemplates": [{"metadata": {"name": "cache"}, "spec": claim_spec}]}}
    where = ("spec", "volumeClaimTemplates", 0, "spec", "dataSourceRef")
    stored = control_plane.request("POST", f"/apis/apps/v1/namespaces/{namespace}/statefulsets?dryRun=All", body)
    assert _has(stored, where)
    assert _dropped_from_made_claim(control_plane, namespace, body, where)
    result = check_texts({"s.json": json.dumps(body, indent=1)}, SchemaStage())
    assert [(f.rule, f.path) for f in result.findings] == [("kubernetes-field-dropped", format_path(where))]
