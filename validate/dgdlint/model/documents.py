"""The objects of a loaded document, as kubectl reads them: the document itself, or the items of a `*List`
(a list inside a list flattened, breadth first); what is not an object is a `not-an-object` finding."""

from __future__ import annotations

from dgdlint.findings import Finding
from dgdlint.load import Document, format_path
from dgdlint.model.graph import Model
from dgdlint.model.objects import KObject, as_str


def _not_an_object(model: Model, document: Document, path: tuple, message: str, remediation: str) -> None:
    line, column = document.position(path)
    model.findings.append(Finding(rule="not-an-object", severity="error", stage="parse", file=document.file,
                                  line=line, column=column, path=format_path(path), message=message,
                                  remediation=remediation))


def list_shape(value: dict) -> str:
    """"list" for a list of objects (any `*List` kind with apiVersion and a list of items), "broken" for a v1
    List whose items are no list, "" for anything else."""
    kind = as_str(value.get("kind"))
    if kind and kind.endswith("List") and isinstance(value.get("items"), list) and "apiVersion" in value:
        return "list"
    return "broken" if kind == "List" and as_str(value.get("apiVersion")) == "v1" else ""


def _list_items(document: Document, value: dict, default_namespace: str, model: Model):
    """The objects of a list, a list inside it flattened as kubectl flattens it (breadth first)."""
    queue = [((), value)]
    for base, current in queue:
        if list_shape(current) == "broken":
            _not_an_object(model, document, base + ("items",) if "items" in current else base,
                           f"document {document.index + 1}{' holds' if base else ' is'} a List without a list "
                           "of items: no object to apply",
                           "Give the List `items:`, a list of objects (or write the objects as documents).")
            continue
        kind = as_str(current.get("kind"))
        for index, item in enumerate(current["items"]):
            path = base + ("items", index)
            if isinstance(item, dict) and list_shape(item):
                queue.append((path, item))
            elif isinstance(item, dict) and as_str(item.get("kind")) and as_str(item.get("apiVersion")):
                yield KObject(document, path, item, default_namespace)
            else:
                _not_an_object(model, document, path,
                               f"item {index} of {kind} is not a Kubernetes object with apiVersion and kind",
                               "Give every list item apiVersion and kind.")


def objects_of(document: Document, default_namespace: str, model: Model):
    value = document.value
    if not isinstance(value, dict):
        kind = "a list" if isinstance(value, list) else "a scalar"
        _not_an_object(model, document, (), f"document {document.index + 1} is {kind}, not a Kubernetes object "
                       "(a mapping)", "Each YAML document must be one object with apiVersion, kind and metadata.")
        return
    if list_shape(value):
        yield from _list_items(document, value, default_namespace, model)
        return
    missing = [key for key in ("apiVersion", "kind") if not as_str(value.get(key))]
    if missing:
        _not_an_object(model, document, (),
                       f"document {document.index + 1} has no {' or '.join(missing)}: not a Kubernetes object",
                       "Add apiVersion and kind (for example `apiVersion: nvidia.com/v1beta1`, "
                       "`kind: DynamoGraphDeployment`).")
        return
    yield KObject(document, (), value, default_namespace)
