"""The bundled schemas: one tree per Dynamo operator release, `<release>/<group>/<kind>_<version>.json`
(kind in lower case, as kubeconform and the public CRD catalogs lay them out), and `index.json`, which
records each release's source (repository, commit, date, CRD files and their digests) and, per kind, the
served, deprecated and storage versions. Written by `dgdlint schemas --release`, read by the schema stage
when no `--crd` is given."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from dgdlint.schema.crd import CrdError, CrdVersionSchema, crd_versions, read_crd_source, storage_version

INDEX = "index.json"
INDEX_FORMAT = 1


def bundled_root() -> Path | None:
    """`dgdlint/schemas` inside an installed wheel, else `schemas/` at the top of the source tree."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "schemas", package.parents[1] / "schemas"):
        if (candidate / INDEX).is_file():
            return candidate
    return None


def release_order(name: str) -> tuple:
    """1.1.0 < 1.5.0-dev < 1.5.0 < 1.10.0: numbers compared as numbers, a pre-release before its release."""
    core, _, pre = name.partition("-")
    numbers = tuple(int(part) if part.isdigit() else 0 for part in core.split("."))
    return numbers, 0 if pre else 1, pre


@dataclass
class Release:
    """One release of bundled schemas: where they came from and the kinds and versions it has."""

    name: str
    repository: str
    ref: str
    commit: str
    date: str
    kinds: dict[str, dict] = field(default_factory=dict)

    def serving(self, group: str, kind: str, version: str) -> bool:
        entry = self.kinds.get(kind)
        return bool(entry) and entry.get("group") == group and version in entry.get("served", [])

    def label(self) -> str:
        return f"Dynamo {self.name}"


def read_index(root: Path) -> list[Release]:
    """The bundled releases, oldest first."""
    try:
        data = json.loads((root / INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CrdError(f"{root / INDEX}: cannot read the index of bundled schemas: {error}") from None
    releases = [Release(name=name, repository=entry.get("repository", ""), ref=entry.get("ref", ""),
                        commit=entry.get("commit", ""), date=entry.get("date", ""), kinds=entry.get("kinds", {}))
                for name, entry in (data.get("releases") or {}).items()]
    return sorted(releases, key=lambda release: release_order(release.name))


def choose_release(releases: list[Release], wanted: str | None) -> Release:
    """The release asked for (exactly, or the newest whose name starts with `wanted.`/`wanted-`), else the newest."""
    if not releases:
        raise CrdError("no bundled schemas found")
    if not wanted:
        return releases[-1]
    wanted = wanted.removeprefix("v")
    matching = [r for r in releases if r.name == wanted or r.name.startswith((wanted + ".", wanted + "-"))]
    if not matching:
        raise CrdError(f"--dynamo-version {wanted}: no bundled schemas for it (bundled: "
                       f"{', '.join(r.name for r in releases)}; or give the CRD with --crd)")
    return matching[-1]


def release_versions(root: Path, release: Release) -> list[CrdVersionSchema]:
    """The schemas of a release's served versions; each file is read only when an object needs it."""
    out = []
    for kind, entry in sorted(release.kinds.items()):
        for version, relative in sorted(entry.get("files", {}).items()):
            out.append(CrdVersionSchema(entry["group"], kind, version, served=True,
                                        deprecated=version in entry.get("deprecated", []),
                                        source=f"{release.label()} (bundled)", path=root / relative,
                                        release=release.name))
    return out


def schema_file(release: str, group: str, kind: str, version: str) -> str:
    return f"{release}/{group}/{kind.lower()}_{version}.json"


def write_release(out: Path, release: str, sources: list[str], repository: str, ref: str, commit: str,
                  date: str) -> list[str]:
    """Convert the CRDs in `sources` (files or folders) into `out/<release>/...` and record the release in
    `out/index.json` (other releases kept). Returns the files written, relative to `out`."""
    if not re.fullmatch(r"[0-9A-Za-z][0-9A-Za-z.+-]*", release):
        raise CrdError(f"--release {release!r}: use a release name such as 1.1.0 or 1.5.0-dev")
    index_path = out / INDEX
    index = {"format": INDEX_FORMAT, "releases": {}}
    if index_path.is_file():
        try:
            index = json.loads(index_path.read_text(encoding="utf-8"))
        except ValueError as error:
            raise CrdError(f"{index_path}: not JSON: {error}") from None
    for relative in _release_files(index.get("releases", {}).get(release, {})):
        (out / relative).unlink(missing_ok=True)  # a version or kind the release no longer has
    kinds: dict[str, dict] = {}
    written = []
    for file in _source_files(sources):
        for crd in read_crd_source(str(file)):
            versions = crd_versions(crd, str(file))
            if not versions:
                continue
            files = {}
            for version in versions:
                if not version.served:
                    continue
                relative = schema_file(release, version.group, version.kind, version.version)
                target = out / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(json.dumps(version.schema, indent=1, sort_keys=True) + "\n", encoding="utf-8")
                files[version.version] = relative
                written.append(relative)
            kinds[versions[0].kind] = {
                "group": versions[0].group,
                "served": [v.version for v in versions if v.served],
                "deprecated": [v.version for v in versions if v.deprecated],
                "storage": storage_version(crd),
                "files": files,
                "source": {"file": file.name, "sha256": _sha256(file.read_bytes())},
            }
    if not kinds:
        raise CrdError(f"{', '.join(sources)}: no CustomResourceDefinition with a schema found")
    index.setdefault("releases", {})[release] = {"repository": repository, "ref": ref, "commit": commit,
                                                 "date": date, "kinds": kinds}
    index["releases"] = dict(sorted(index["releases"].items(), key=lambda item: release_order(item[0])))
    out.mkdir(parents=True, exist_ok=True)
    index_path.write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return written


def _release_files(entry: dict) -> list[str]:
    return [relative for kind in entry.get("kinds", {}).values() for relative in kind.get("files", {}).values()]


def _source_files(sources: list[str]) -> list[Path]:
    files = []
    for source in sources:
        path = Path(source)
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml", ".json")))
        elif path.is_file():
            files.append(path)
        else:
            raise CrdError(f"{source}: no such CRD file or directory (bundling reads local files)")
    return files


def _sha256(data: bytes) -> str:
    import hashlib  # (here: OpenSSL's start costs every check 4 ms, and only `dgdlint schemas` writes digests)

    return hashlib.sha256(data).hexdigest()
