"""`dgdlint convert`: DynamoGraphDeployments from nvidia.com/v1alpha1 to v1beta1, field by field as the
operator's conversion maps them, in the user's own file (comments, order and quoting kept).

Unlike the operator's webhook, which hides `spec.pvcs` in a private annotation, a listed PVC becomes what
runs: a pod volume with `persistentVolumeClaim` beside each container mount, and a PVC with `create: true`
becomes a PersistentVolumeClaim object of its own after the graph. Objects that are not v1alpha1 graphs
pass through untouched."""

from __future__ import annotations

import io

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dgdlint.edit.comments import Attached
from dgdlint.edit.convert_context import Context, rename_key, set_api_version
from dgdlint.edit.convert_service import convert_service
from dgdlint.edit.notes import Note, line_of
from dgdlint.edit.roundtrip import EditableDocument, EditableFile, make_yaml

GROUP = "nvidia.com"
KIND = "DynamoGraphDeployment"
VERSIONS = ("v1alpha1", "v1beta1")


def is_graph(root, version: str) -> bool:
    return (isinstance(root, CommentedMap) and str(root.get("kind")) == KIND
            and str(root.get("apiVersion")) == f"{GROUP}/{version}")


def convert_file(edit: EditableFile, to: str) -> list[Note]:
    """Convert every graph of `edit` to `to` in place; the notes say what moved, what was left out and why."""
    notes: list[Note] = []
    source = "v1alpha1" if to == "v1beta1" else "v1beta1"
    for document in edit.documents:
        if document is None or not is_graph(document.root, source):
            continue
        if document.refusal is not None:  # what it holds cannot be kept: refused when written, at its line
            document.changed = True
            continue
        if to == "v1beta1":
            notes += _to_v1beta1(document)
        else:
            from dgdlint.edit.convert_back import to_v1alpha1

            notes += to_v1alpha1(document)
        document.changed = True
    return notes


def _to_v1beta1(document: EditableDocument) -> list[Note]:
    root = document.root
    ctx = Context(document.file, document.chunk.start, document.table)
    set_api_version(root, "v1beta1")
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
        document.followers = _pvc_objects(document, ctx, spec, pvcs)
        anchor = "components" if "components" in spec else None
        pvcs_comments = ctx.table.pop(spec, "pvcs")
        if anchor is not None:
            ctx.table.put(spec, anchor, pvcs_comments)
        del spec["pvcs"]
    if "components" in spec:
        ctx.rehome(spec, "components")
    return ctx.notes


def _pvc_objects(document: EditableDocument, ctx: Context, spec: CommentedMap, pvcs) -> list[str]:
    """A PersistentVolumeClaim object (as YAML text) for each `create: true` entry; the others only name a
    claim that exists, which the pod volumes now reference."""
    out = []
    metadata = document.root.get("metadata") if isinstance(document.root.get("metadata"), CommentedMap) else {}
    for index, entry in enumerate(pvcs or []):
        if not isinstance(entry, CommentedMap) or not entry.get("name"):
            ctx.drop(pvcs, index, "a pvcs entry without a name; it is left out")
            continue
        comments = ctx.table.pop(pvcs, index) or Attached()
        for key in list(entry.keys()):
            moved = ctx.table.pop(entry, key)
            if moved is not None:
                comments = Attached(comments.above + moved.above, comments.eol or moved.eol, comments.line)
        if entry.get("create") is not True:
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
        stream = io.StringIO()
        make_yaml(document.indent).dump(claim, stream)
        lines = [" " * max(0, offset) + text if text else "" for offset, text in comments.above]
        if comments.eol:
            lines.append(comments.eol[1])
        out.append("".join(line + "\n" for line in lines) + stream.getvalue())
    return out
