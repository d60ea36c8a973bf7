"""CRDs given by the user (a file, a folder, an http(s) URL or `cluster`) and their versions' schemas."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

from dgdlint.model import as_map, as_str
from dgdlint.schema.openapi import kubernetes_validator, version_schema

CLUSTER = "cluster"
URL_TIMEOUT_SECONDS = 30
# Part of the cache key: a change to the conversion must not reuse schemas converted the old way.
CONVERSION_REVISION = "3"


class CrdError(Exception):
    """A CRD source that cannot be read or is not a CRD (a usage problem, exit 2)."""


class CrdVersionSchema:
    """One version of one CRD: its JSON schema (read on first use when it comes from a file) and flags."""

    def __init__(self, group: str, kind: str, version: str, served: bool, deprecated: bool,
                 schema: dict | None = None, source: str = "", path: Path | None = None, release: str | None = None):
        self.group, self.kind, self.version = group, kind, version
        self.served, self.deprecated = served, deprecated
        self.source, self.path, self.release = source, path, release
        self._schema = schema
        self._validator = None
        self._fast = None
        self._checks = None

    @property
    def schema(self) -> dict:
        if self._schema is None:
            try:
                self._schema = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise CrdError(f"{self.path}: cannot read the bundled schema: {error}") from None
        return self._schema

    def validator(self):
        """python-jsonschema: slower, but explains every error (best match inside anyOf/oneOf)."""
        if self._validator is None:
            from jsonschema import Draft7Validator

            self._validator = kubernetes_validator(Draft7Validator)(self.schema)
        return self._validator

    def fast(self):
        """jsonschema-rs: answers valid/invalid in microseconds; the slow validator explains failures."""
        if self._fast is None:
            import jsonschema_rs

            self._fast = jsonschema_rs.Draft7Validator(self.schema, validate_formats=False)
        return self._fast


def crd_versions(crd: dict, source: str) -> list[CrdVersionSchema]:
    if as_str(crd.get("kind")) != "CustomResourceDefinition":
        raise CrdError(f"{source}: not a CustomResourceDefinition (kind {crd.get('kind')!r})")
    spec = as_map(crd.get("spec"))
    group = as_str(spec.get("group")) or ""
    kind = as_str(as_map(spec.get("names")).get("kind")) or ""
    shared = as_map(spec.get("validation")).get("openAPIV3Schema")
    out = []
    for version in spec.get("versions") or []:
        version = as_map(version)
        raw = as_map(version.get("schema")).get("openAPIV3Schema") or shared
        if not isinstance(raw, dict):
            continue
        out.append(CrdVersionSchema(group, kind, as_str(version.get("name")) or "", version.get("served") is not False,
                                    version.get("deprecated") is True, version_schema(raw), source))
    return out


def storage_version(crd: dict) -> str | None:
    for version in as_map(crd.get("spec")).get("versions") or []:
        if as_map(version).get("storage") is True:
            return as_str(version.get("name"))
    return None


def _documents_from_text(text: str, source: str) -> list[dict]:
    import yaml

    try:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        documents = [doc for doc in yaml.load_all(text, Loader=loader) if doc]
    except yaml.YAMLError as error:
        raise CrdError(f"{source}: not valid YAML: {' '.join(str(error).split())}") from None
    flat = []
    for doc in documents:
        if isinstance(doc, dict) and as_str(doc.get("kind")) == "List":
            flat.extend(item for item in doc.get("items") or [] if isinstance(item, dict))
        elif isinstance(doc, dict):
            flat.append(doc)
    return flat


def _crd_files(path: Path) -> list[Path]:
    return sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml", ".json")) if path.is_dir() else [path]


def read_crd_source(source: str) -> list[dict]:
    """CRD objects from a file, a directory of files, an http(s) URL, or `cluster`."""
    if source == CLUSTER:
        return read_crds_from_cluster()
    if re.match(r"^https?://", source):
        import urllib.request

        try:
            with urllib.request.urlopen(source, timeout=URL_TIMEOUT_SECONDS) as response:  # noqa: S310
                text = response.read(64 * 1024 * 1024).decode("utf-8")
        except Exception as error:  # network errors come in many types; all mean the same here
            raise CrdError(f"{source}: cannot fetch the CRD: {error}") from None
        return _documents_from_text(text, source)
    path = Path(source)
    if not path.exists():
        raise CrdError(f"{source}: no such CRD file or directory")
    documents = []
    for file in _crd_files(path):
        try:
            text = file.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as error:
            raise CrdError(f"{file}: cannot read the CRD: {error}") from None
        documents.extend(_documents_from_text(text, str(file)))
    return documents


# The DGD and the other Dynamo CRDs the operator installs; `--crd cluster` reads these.
DYNAMO_CRD_NAMES = (
    "dynamographdeployments.nvidia.com",
    "dynamocomponentdeployments.nvidia.com",
    "dynamographdeploymentrequests.nvidia.com",
    "dynamographdeploymentscalingadapters.nvidia.com",
    "dynamomodels.nvidia.com",
)


def read_crds_from_cluster(api=None, names: Iterable[str] = DYNAMO_CRD_NAMES) -> list[dict]:
    """Read the Dynamo CRDs from the current kube context with the `kubernetes` client.

    `api` is an ApiextensionsV1Api (injected in tests). CRDs the cluster does not have are skipped; at
    least one must be found."""
    try:
        from kubernetes import client, config
    except ImportError:
        raise CrdError("--crd cluster needs the kubernetes client: pip install 'dgdlint[cluster]'") from None
    if api is None:
        try:
            config.load_kube_config()
        except Exception as error:
            raise CrdError(f"--crd cluster: no usable kube context: {error}") from None
        api = client.ApiextensionsV1Api()
    serializer = client.ApiClient()
    found = []
    for name in names:
        try:
            crd = api.read_custom_resource_definition(name)
        except client.exceptions.ApiException as error:
            if error.status == 404:
                continue
            raise CrdError(f"--crd cluster: reading {name} failed: {error.status} {error.reason}") from None
        except Exception as error:
            raise CrdError(f"--crd cluster: reading {name} failed: {error}") from None
        found.append(serializer.sanitize_for_serialization(crd))
    if not found:
        raise CrdError("--crd cluster: the cluster has none of the Dynamo CRDs (is the operator installed?)")
    return found


def _cache_dir() -> Path | None:
    if os.environ.get("DGDLINT_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dgdlint"


def cached_crd_versions(source: str) -> list[CrdVersionSchema]:
    """CRD versions of a source; for local files, the converted schemas are cached by content hash, so a
    pre-commit run does not re-parse a 1.6 MB CRD each time. URLs and the cluster are always read."""
    import hashlib

    from dgdlint import __version__

    path = Path(source)
    cache = _cache_dir()
    if cache is None or source == CLUSTER or re.match(r"^https?://", source) or not path.exists():
        return [v for doc in read_crd_source(source) for v in crd_versions(doc, source)]
    digest = hashlib.sha256(f"{__version__}/{CONVERSION_REVISION}".encode())
    try:
        for file in _crd_files(path):
            digest.update(file.name.encode() + b"\0" + file.read_bytes())
    except OSError as error:
        raise CrdError(f"{source}: cannot read the CRD: {error.strerror}") from None
    entry = cache / f"crd-{digest.hexdigest()[:32]}.json"
    try:
        cached = json.loads(entry.read_text(encoding="utf-8"))
        return [CrdVersionSchema(source=source, **item) for item in cached]
    except (OSError, ValueError, TypeError):
        pass
    versions = [v for doc in read_crd_source(source) for v in crd_versions(doc, source)]
    try:
        cache.mkdir(parents=True, exist_ok=True)
        temporary = entry.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps([{"group": v.group, "kind": v.kind, "version": v.version, "served": v.served,
                                          "deprecated": v.deprecated, "schema": v.schema} for v in versions]))
        os.replace(temporary, entry)
    except OSError:
        pass  # a read-only home: no cache, same result
    return versions


def crd_sources_from_env(environ=os.environ) -> list[str]:
    """DGDLINT_CRD: sources joined by the path separator; a URL's own `:` (`https://...`) is not a separator."""
    parts = environ.get("DGDLINT_CRD", "").split(os.pathsep)
    sources: list[str] = []
    for part in parts:
        if sources and sources[-1] in ("http", "https") and part.startswith("//"):
            sources[-1] += os.pathsep + part
        elif sources and re.fullmatch(r"https?://[^/]+", sources[-1]) and re.match(r"[0-9]+(/|$)", part):
            sources[-1] += os.pathsep + part  # a port: http://host:8080/crd.yaml
        else:
            sources.append(part)
    return [source for source in sources if source]
