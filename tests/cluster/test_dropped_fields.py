"""The fields the API server drops as it stores a built-in object, their feature gate off by default, are the
ones dgdlint warns about (kubernetes-field-dropped, data/dropped-fields.yaml), on a real kube-apiserver:
every synthesized base (builtin_synth.py: one per definition the kinds reach, holding every scalar field it
has) is created as a dry run, and each field it writes that the stored object lacks is one dgdlint names,
or one the server drops for another reason, below; each field dgdlint names, the stored object lacks. Each
entry of the table is met by some base, so none is untested."""

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
from dgdlint.schema.dropped import dropped_table

pytestmark = CLUSTER

# Fields the server leaves out of the stored object for what they are, not for a feature gate: a Secret's
# stringData is written into its data; a ServiceAccount keeps only the name of each secret it lists; a claim's
# dataSource and dataSourceRef naming no kind a claim can be made from (the base's "a") are cleared.
ELSEWHERE = {("Secret", "stringData"), ("ServiceAccount", "secrets"), ("PersistentVolumeClaim", "spec.dataSource"),
             ("PersistentVolumeClaim", "spec.dataSourceRef")}
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


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith((top + ".", top + "["))


@pytest.fixture(scope="module")
def verdicts(control_plane) -> list[tuple[str, str, set[str], set[str], set[str]]]:
    """(base, kind, paths the server drops, paths dgdlint warns of, those of them the server keeps) for every
    synthesized base the server takes."""
    namespace = "dropped-fields"
    control_plane.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                         "metadata": {"name": namespace}})
    cluster_ready(control_plane, namespace)
    stage, out = SchemaStage(), []
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
        kept = {text for text, where in _paths(body) if text in warned and _has(stored, where)}
        out.append((name, body["kind"], dropped, warned, kept))
    return out


def test_every_field_the_server_drops_is_one_dgdlint_warns_of(verdicts):
    unexplained = [f"{name}: {path}" for name, kind, dropped, warned, _kept in verdicts for path in sorted(dropped)
                   if not any(_under(path, top) for top in warned)
                   and not any(kind == k and _under(path, top) for k, top in ELSEWHERE)]
    assert len(verdicts) > 200, len(verdicts)
    assert not unexplained, "\n".join(unexplained)


def test_every_field_dgdlint_warns_of_is_dropped_and_every_table_entry_is_met(verdicts):
    kept = [f"{name}: {path}" for name, _kind, _dropped, _warned, kept in verdicts for path in sorted(kept)]
    assert not kept, "\n".join(kept)
    met = {path.rsplit(".", 1)[-1] for _name, _kind, _dropped, warned, _kept in verdicts for path in warned}
    fields = {field for entries in dropped_table()[1].values() for field in entries}
    assert fields <= met, fields - met
