"""The Dynamo CRDs tests give to the API server and to `--crd`: NVIDIA's own from
../shared/reference/dynamo-crds when they are beside the repository (as in CI), preferred because they are
the independent oracle; otherwise CustomResourceDefinitions rebuilt from the bundled schemas (schemas/),
so those tests run on a fresh clone with nothing beside it.

A bundled schema is the CRD's openAPIV3Schema converted to JSON Schema (dgdlint.schema.openapi): prose
dropped, the int32/int64 formats written as bounds (turned back into formats here), objects closed with
`additionalProperties: false`, and everything the server checks kept (types, enums, patterns, bounds,
required keys, defaults, CEL rules, list types and keys, int-or-string, preserve-unknown-fields). Undoing
the closing gives a structural schema the API server accepts; converting it again gives the bundled schema
back (tests/schema/test_bundled_crds.py). Names,
scope and the status subresource are the Dynamo operator's conventions for these kinds (plural = kind in
lower case + "s", namespaced); served, deprecated and storage versions come from schemas/index.json.
The conversion is None: no operator runs to convert between versions."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from dgdlint.schema.bundled import Release, bundled_root, choose_release, read_index
from dgdlint.schema.crd import DYNAMO_CRD_NAMES
from dgdlint.schema.openapi import FORMAT_BOUNDS
from refdata import CRD_DIR

OLDER_RELEASE = "1.1.0"
DGD_FILE = "nvidia.com_dynamographdeployments.yaml"


@dataclass(frozen=True)
class DynamoCrds:
    """Folders of CRD files: `newest` (the newest release: what the test API server holds), `older`
    (Dynamo 1.1.0); `upstream` says whether they are NVIDIA's own or rebuilt from schemas/."""

    newest: Path
    older: Path
    upstream: bool

    @property
    def dgd(self) -> Path:
        """The newest DGD CRD file."""
        return self.newest / DGD_FILE


def dynamo_crds(scratch: Path) -> DynamoCrds:
    """The upstream CRDs when at hand, else the bundled releases' CRDs written into `scratch`."""
    if CRD_DIR.is_dir():
        return DynamoCrds(CRD_DIR, CRD_DIR / "releases" / OLDER_RELEASE, upstream=True)
    return DynamoCrds(write_crds(release(), scratch / "newest"),
                      write_crds(release(OLDER_RELEASE), scratch / OLDER_RELEASE), upstream=False)


def openapi_schema(node: object) -> object:
    """A bundled JSON Schema node back as a structural OpenAPI v3 node (the inverse of the conversion)."""
    if isinstance(node, list):
        return [openapi_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    node = _formats_back(node)
    for key, value in node.items():
        if key == "$schema" or (key == "additionalProperties" and value is False):
            continue  # draft-7 bookkeeping, and the closing the API server does by pruning and strictness
        if key == "properties":
            out[key] = {name: openapi_schema(sub) for name, sub in value.items()}
        elif key in ("exclusiveMinimum", "exclusiveMaximum") and not isinstance(value, bool):
            out["minimum" if key == "exclusiveMinimum" else "maximum"] = value
            out[key] = True
        elif key in ("items", "additionalProperties", "not", "anyOf", "allOf", "oneOf"):
            out[key] = openapi_schema(value)
        else:
            out[key] = value
    return out


def _formats_back(node: dict) -> dict:
    """An integer format's range, which the conversion writes as bounds, back as the format (the API server
    refuses a bound it cannot hold as an integer, such as 2**63); the conversion turns it into the same
    bounds again."""
    for name, (low, high) in FORMAT_BOUNDS.items():
        if node.get("maximum") == high:
            node = {key: value for key, value in node.items()
                    if key != "maximum" and not (key == "minimum" and value == low)}
            node["format"] = name
            break
    return node


def release(name: str | None = None) -> Release:
    """A bundled release: the one named, else the newest (what dgdlint uses with no flag)."""
    return choose_release(read_index(bundled_root()), name)


def crds(chosen: Release) -> list[dict]:
    """One apiextensions.k8s.io/v1 CRD per kind the release bundles."""
    root = bundled_root()
    out = []
    for kind, entry in sorted(chosen.kinds.items()):
        group, plural = entry["group"], kind.lower() + "s"
        if f"{plural}.{group}" not in DYNAMO_CRD_NAMES:
            raise ValueError(f"{kind}: not a Dynamo kind whose plural name is known ({plural}.{group})")
        versions = []
        for version in entry["served"]:
            schema = openapi_schema(json.loads((root / entry["files"][version]).read_text(encoding="utf-8")))
            item = {"name": version, "served": True, "storage": version == entry["storage"],
                    "schema": {"openAPIV3Schema": schema}}
            if version in entry.get("deprecated", []):
                item["deprecated"] = True
            if "status" in schema.get("properties", {}):
                item["subresources"] = {"status": {}}
            versions.append(item)
        out.append({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                    "metadata": {"name": f"{plural}.{group}"},
                    "spec": {"group": group, "scope": "Namespaced", "conversion": {"strategy": "None"},
                             "names": {"kind": kind, "listKind": f"{kind}List", "plural": plural,
                                       "singular": kind.lower()},
                             "versions": versions}})
    return out


def write_crds(chosen: Release, folder: Path) -> Path:
    """The release's CRDs as `<group>_<plural>.yaml` files in `folder` (JSON is YAML), as upstream names
    them, so `dgdlint --crd folder` and `dgdlint preflight --crd folder` read them like the real ones."""
    folder.mkdir(parents=True, exist_ok=True)
    for crd in crds(chosen):
        name = f"{crd['spec']['group']}_{crd['spec']['names']['plural']}.yaml"
        (folder / name).write_text(json.dumps(crd, indent=1) + "\n", encoding="utf-8")
    return folder
