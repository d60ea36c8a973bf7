"""`dgdlint convert`: DynamoGraphDeployments from nvidia.com/v1alpha1 to v1beta1, field by field as the
operator's conversion maps them, in the user's own file (comments, order and quoting kept).

Unlike the operator's webhook, which hides `spec.pvcs` in a private annotation, a listed PVC becomes what
runs: a pod volume with `persistentVolumeClaim` beside each container mount, and a PVC with `create: true`
becomes a PersistentVolumeClaim object of its own after the graph (the next item, for a graph inside a
`kind: List`). Objects that are not v1alpha1 graphs pass through untouched."""

from __future__ import annotations

import io

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dgdlint.edit.comments import Attached
from dgdlint.edit.convert_context import Context, drop_private_annotations, is_true, rename_key, set_api_version
from dgdlint.edit.convert_service import convert_service
from dgdlint.edit.notes import Note, line_of
from dgdlint.edit.roundtrip import EditableDocument, EditableFile, make_yaml
from dgdlint.model.documents import list_shape

GROUP = "nvidia.com"
KIND = "DynamoGraphDeployment"
VERSIONS = ("v1alpha1", "v1beta1")


def is_graph(root, version: str) -> bool:
    return (isinstance(root, CommentedMap) and str(root.get("kind")) == KIND
            and str(root.get("apiVersion")) == f"{GROUP}/{version}")


def _list_items(root) -> CommentedSeq | None:
    """The items of a `kind: List` (what `kubectl get -o yaml` writes) or another `...List`, as the model
    tells a list of objects (model.documents.list_shape)."""
    return root["items"] if isinstance(root, CommentedMap) and list_shape(root) == "list" else None


def graph_places(document: EditableDocument | None, version: str) -> list[tuple[CommentedSeq | None, int | None]]:
    """Where the document's graphs of `version` are: (None, None) for the document itself, else (the items
    holding one, its index there), a list inside a list's items flattened as kubectl and the model flatten it."""
    if document is None:
        return []
    if is_graph(document.root, version):
        return [(None, None)]
    places = []
    queue = [items] if (items := _list_items(document.root)) is not None else []
    for items in queue:
        for index, item in enumerate(items):
            if is_graph(item, version):
                places.append((items, index))
            elif (inner := _list_items(item)) is not None:
                queue.append(inner)
    return places


def convert_file(edit: EditableFile, to: str) -> list[Note]:
    """Convert every graph of `edit` to `to` in place, a list's items too; the notes say what moved, what was
    left out and why."""
    notes: list[Note] = []
    source = "v1alpha1" if to == "v1beta1" else "v1beta1"
    for document in edit.documents:
        places = graph_places(document, source)
        if not places:
            continue
        document.changed = True
        if document.refusal is not None:  # what it holds cannot be kept: refused when written, at its line
            continue
        for items, place in reversed(places):  # from the last: PVCs inserted after an item move no other graph
            graph = document.root if place is None else items[place]
            if to == "v1beta1":
                notes += _to_v1beta1(document, graph, items, place)
            else:
                from dgdlint.edit.convert_back import to_v1alpha1

                notes += to_v1alpha1(document, graph)
    return notes


def _to_v1beta1(document: EditableDocument, root: CommentedMap, items: CommentedSeq | None,
                place: int | None) -> list[Note]:
    ctx = Context(document.file, document.chunk.start, document.table)
    set_api_version(root, "v1beta1")
    drop_private_annotations(ctx, root, "v1beta1")
    spec = root.get("spec")
    if "status" in root:
        ctx.drop(root, "status", "status is written by the operator, not converted; it is left out", "info")
        del root["status"]
    if not isinstance(spec, CommentedMap):
        return ctx.notes
    pvcs = spec.get("pvcs") if isinstance(spec.get("pvcs"), CommentedSeq) else None
    for key in list(spec.keys()):
        value = spec[key]
        if key == "services":
            components = CommentedSeq()
            for name in list(value.keys()) if isinstance(value, CommentedMap) else []:
                convert_service(ctx, value, name, components)
            rename_key(spec, "services", "components", components, ctx)
        elif key == "envs":
            rename_key(spec, "envs", "env", value, ctx)
        elif key == "topologyConstraint" and isinstance(value, CommentedMap) and "topologyProfile" in value:
            rename_key(value, "topologyProfile", "clusterTopologyName", value["topologyProfile"], ctx)
    if "pvcs" in spec:
        claims = _pvc_objects(document, root, ctx, spec, pvcs)
        if place is None:
            document.followers = [_as_document(claim, comments, document) for claim, comments in claims]
        else:
            _insert_items(ctx, items, place + 1, claims)
        anchor = "components" if "components" in spec else None
        pvcs_comments = ctx.table.pop(spec, "pvcs")
        if anchor is not None:
            ctx.table.put(spec, anchor, pvcs_comments)
        del spec["pvcs"]
    if "components" in spec:
        ctx.rehome(spec, "components")
    return ctx.notes


def _as_document(claim: CommentedMap, comments: Attached, document: EditableDocument) -> str:
    """A claim as a YAML document of its own (text), the comments of its pvcs entry above it."""
    stream = io.StringIO()
    make_yaml(document.indent).dump(claim, stream)
    lines = [" " * max(0, offset) + text if text else "" for offset, text in comments.above]
    if comments.eol:
        lines.append(comments.eol[1])
    return "".join(line + "\n" for line in lines) + stream.getvalue()


def _insert_items(ctx: Context, items: CommentedSeq, at: int, claims: list[tuple[CommentedMap, Attached]]) -> None:
    """Claims as items of the list the graph is in, right after it; the comments of the items after them move
    down with their items."""
    for position in reversed(range(at, len(items))):
        ctx.table.move(items, position, items, position + len(claims))
    for offset, (claim, comments) in enumerate(claims):
        items.insert(at + offset, claim)
        eol = [(0, comments.eol[1])] if comments.eol else []
        if comments.above or eol:
            ctx.table.put(items, at + offset, Attached(above=comments.above + eol))


def _pvc_objects(document: EditableDocument, root: CommentedMap, ctx: Context, spec: CommentedMap,
                 pvcs) -> list[tuple[CommentedMap, Attached]]:
    """A PersistentVolumeClaim object, with the comments of its entry, for each `create: true` entry; the
    others only name a claim that exists, which the pod volumes now reference."""
    out = []
    metadata = root.get("metadata") if isinstance(root.get("metadata"), CommentedMap) else {}
    for index, entry in enumerate(pvcs or []):
        if not isinstance(entry, CommentedMap) or not entry.get("name"):
            ctx.drop(pvcs, index, "a pvcs entry without a name; it is left out")
            continue
        comments = ctx.table.pop(pvcs, index) or Attached()
        for key in list(entry.keys()):
            moved = ctx.table.pop(entry, key)
            if moved is not None:
                comments = Attached(comments.above + moved.above, comments.eol or moved.eol, comments.line)
        if not is_true(entry.get("create")):
            ctx.table.put(spec, "components", comments if comments.above or comments.eol else None)
            continue
        claim = CommentedMap()
        claim["apiVersion"] = "v1"
        claim["kind"] = "PersistentVolumeClaim"
        claim["metadata"] = CommentedMap([("name", entry["name"])])
        if metadata.get("namespace"):
            claim["metadata"]["namespace"] = metadata["namespace"]
        claim_spec = claim["spec"] = CommentedMap()
        if entry.get("volumeAccessMode"):
            claim_spec["accessModes"] = CommentedSeq([entry["volumeAccessMode"]])
        if entry.get("storageClass"):
            claim_spec["storageClassName"] = entry["storageClass"]
        if entry.get("size") not in (None, ""):
            claim_spec["resources"] = CommentedMap([("requests", CommentedMap([("storage", entry["size"])]))])
        missing = [k for k in ("size", "storageClass", "volumeAccessMode") if not entry.get(k)]
        severity = "warning" if missing else "info"
        ctx.notes.append(Note(document.file, line_of(pvcs, index, document.chunk.start), severity,
                              "convert-pvc-object",
                              f"pvcs[{index}] ({entry['name']}) has create: true: written as a PersistentVolumeClaim "
                              "object after the graph; apply it with the graph"
                              + (f" (it sets no {', '.join(missing)})" if missing else "")))
        out.append((claim, comments))
    return out
