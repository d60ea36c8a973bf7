"""The schema stage: each object against the JSON schema of its kind and apiVersion.

Custom resources (the DGD and other Dynamo CRDs) use a schema derived at run time from a CRD that
the user gives as a path, a URL or `cluster`; built-in kinds use Kubernetes' own schemas as bundled
by `kubernetes-validate`. A kind with no schema at hand is skipped (one info finding per kind)."""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from dgdlint.findings import Finding
from dgdlint.load import format_path
from dgdlint.model import DYNAMO_GROUP, KObject, as_map, as_str

CLUSTER = "cluster"
URL_TIMEOUT_SECONDS = 30
MAX_ERRORS_PER_OBJECT = 200


class CrdError(Exception):
    """A CRD source that cannot be read or is not a CRD (a usage problem, exit 2)."""


# ---------------------------------------------------------------------------------------------
# CRD -> JSON schema


def openapi_to_jsonschema(node: object) -> object:
    """Convert a structural OpenAPI v3 schema (as in a CRD) to JSON Schema draft 7.

    Objects with `properties` and no `additionalProperties` are closed (as `kubectl --validate=strict`
    treats them), unless `x-kubernetes-preserve-unknown-fields` keeps them open; int-or-string
    becomes `anyOf: [integer, string]`. Descriptions and defaults are dropped."""
    if not isinstance(node, dict):
        return node
    out: dict = {}
    for key, value in node.items():
        if key in ("description", "default", "example", "externalDocs", "format", "nullable",
                   "x-kubernetes-validations", "x-kubernetes-list-type", "x-kubernetes-list-map-keys",
                   "x-kubernetes-map-type", "x-kubernetes-embedded-resource", "title"):
            continue
        if key == "properties":
            out[key] = {name: openapi_to_jsonschema(sub) for name, sub in as_map(value).items()}
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            out[key] = openapi_to_jsonschema(value)
        elif key in ("anyOf", "allOf", "oneOf") and isinstance(value, list):
            out[key] = [openapi_to_jsonschema(sub) for sub in value]
        elif key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
            bound = "minimum" if key == "exclusiveMinimum" else "maximum"
            if value and bound in node:
                out[key] = node[bound]
        elif key.startswith("x-kubernetes-"):
            continue
        else:
            out[key] = value
    if "exclusiveMinimum" in out and "minimum" in out and out["exclusiveMinimum"] == out["minimum"]:
        del out["minimum"]
    if "exclusiveMaximum" in out and "maximum" in out and out["exclusiveMaximum"] == out["maximum"]:
        del out["maximum"]
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
    preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
    if "properties" in out and "additionalProperties" not in out and not preserve:
        out["additionalProperties"] = False
    return out


@dataclass
class CrdVersionSchema:
    group: str
    kind: str
    version: str
    served: bool
    deprecated: bool
    schema: dict
    source: str
    _validator: object = None
    _fast: object = None

    def validator(self):
        """python-jsonschema: slower, but explains every error (best match inside anyOf/oneOf)."""
        if self._validator is None:
            from jsonschema import Draft7Validator

            self._validator = Draft7Validator(self.schema)
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
        schema = openapi_to_jsonschema(raw)
        schema["$schema"] = "http://json-schema.org/draft-07/schema#"
        out.append(CrdVersionSchema(group, kind, as_str(version.get("name")) or "", version.get("served") is not False,
                                    version.get("deprecated") is True, schema, source))
    return out


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
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml", ".json"))
    elif path.is_file():
        files = [path]
    else:
        raise CrdError(f"{source}: no such CRD file or directory")
    documents = []
    for file in files:
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

    `api` is an ApiextensionsV1Api (injected in tests; no API server runs there). CRDs the cluster
    does not have are skipped; at least one must be found."""
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


# ---------------------------------------------------------------------------------------------
# Built-in kinds: Kubernetes' own schemas from kubernetes-validate.


class BuiltinSchemas:
    def __init__(self, kubernetes_version: str | None = None):
        self.requested = kubernetes_version
        self._root = None
        self._version = None
        self._registry = None
        self._fast_registry = None
        self._definitions = None
        self._validators: dict[tuple[str, str], tuple] = {}

    def _schema_dir(self):
        if self._root is None:
            import importlib.util

            # Locate the package's data without importing it (its __init__ pulls in jsonschema: ~35 ms).
            spec = importlib.util.find_spec("kubernetes_validate")
            if spec is None or not spec.submodule_search_locations:
                raise CrdError("kubernetes-validate is not installed: no schemas for built-in kinds")
            base = Path(list(spec.submodule_search_locations)[0]) / "kubernetes-json-schema"
            versions = sorted(
                (entry.name[1:].split("-")[0] for entry in base.iterdir()
                 if entry.name.startswith("v") and entry.name.endswith("-local-strict")),
                key=lambda v: tuple(int(p) for p in v.split(".")),
            )
            chosen = versions[-1]
            if self.requested:
                wanted = tuple(int(p) for p in re.findall(r"\d+", self.requested)[:2])
                fitting = [v for v in versions if tuple(int(p) for p in v.split(".")[:2]) <= wanted]
                if not fitting:
                    raise CrdError(f"--kubernetes-version {self.requested}: schemas start at {versions[0]}")
                chosen = fitting[-1]
            self._version = chosen
            self._root = base / f"v{chosen}-local-strict"
        return self._root

    @property
    def version(self) -> str:
        self._schema_dir()
        return self._version

    def validators(self, api_version: str, kind: str) -> tuple | None:
        """(fast, explain) validators for a built-in kind, or None when Kubernetes has no such schema."""
        key = (api_version, kind)
        if key in self._validators:
            return self._validators[key]
        root = self._schema_dir()
        group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
        resource = root / f"{kind.lower()}-{group_version}.json"
        found = None
        if resource.is_file():
            import jsonschema_rs

            if self._definitions is None:
                self._definitions = json.loads((root / "_definitions.json").read_text())
                self._fast_registry = jsonschema_rs.Registry([(self._definitions["$id"], self._definitions)])
            schema = json.loads(resource.read_text())
            fast = jsonschema_rs.Draft202012Validator(schema, registry=self._fast_registry, validate_formats=False)
            found = (fast, lambda schema=schema: self._explainer(schema))
        self._validators[key] = found
        return found

    def _explainer(self, schema: dict):
        from jsonschema import Draft202012Validator
        from referencing import Registry, Resource

        if self._registry is None:
            self._registry = Resource.from_contents(self._definitions) @ Registry()
        return Draft202012Validator(schema, registry=Resource.from_contents(schema) @ self._registry)


# ---------------------------------------------------------------------------------------------
# The stage


def prune_nulls(value: object) -> object:
    """Drop null map values, as the API server prunes them before validation."""
    if isinstance(value, dict):
        return {k: prune_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [prune_nulls(item) for item in value]
    return value


# Values under these keys may be secrets: the schema stage never shows them.
_SECRET_KEYS = {"env", "envs", "data", "stringData", "binaryData", "envFromSecret", "value"}
_SAFE_WORD = re.compile(r"^[A-Za-z0-9_./-]{1,40}$")


@dataclass
class SchemaStage:
    crd_sources: list[str] = field(default_factory=list)
    kubernetes_version: str | None = None
    crds: dict[tuple[str, str, str], CrdVersionSchema] = field(default_factory=dict)
    builtins: BuiltinSchemas | None = None

    def __post_init__(self):
        for source in self.crd_sources:
            for version in _cached_crd_versions(source):
                self.crds[(version.group, version.kind, version.version)] = version
        if self.crd_sources and not self.crds:
            raise CrdError(f"{', '.join(self.crd_sources)}: no CustomResourceDefinition with a schema found")
        self.builtins = BuiltinSchemas(self.kubernetes_version)

    @property
    def has_crds(self) -> bool:
        return bool(self.crds)

    def check(self, objects: list[KObject]) -> list[Finding]:
        findings: list[Finding] = []
        skipped_kinds: dict[str, KObject] = {}
        dgd_without_crd: list[KObject] = []
        for obj in objects:
            group, version, kind = obj.group, obj.version, obj.kind
            crd = self.crds.get((group, kind, version))
            if crd is not None:
                if not crd.served:
                    findings.append(_object_finding(obj, "crd-version-not-served", "error",
                                                    f"{kind} {obj.api_version} is not served by the CRD in "
                                                    f"{crd.source}", "Use a served apiVersion."))
                    continue
                findings.extend(self._validate(obj, crd.fast(), crd.validator, "crd-schema", f"CRD {kind} {version}"))
                continue
            found = self.builtins.validators(obj.api_version, kind)
            if found is not None:  # a built-in kind, including those of *.k8s.io groups (Ingress, RBAC, ...)
                findings.extend(self._validate(obj, found[0], found[1], "kubernetes-schema",
                                               f"Kubernetes {self.builtins.version}"))
                continue
            # A custom resource whose CRD was not given (or lacks this version).
            known = sorted(v for g, k, v in self.crds if g == group and k == kind)
            if known:
                findings.append(_object_finding(
                    obj, "crd-version-unknown", "error",
                    f"{kind} apiVersion {obj.api_version} is not in the CRD (it has {', '.join(known)})",
                    f"Use one of {', '.join(group + '/' + v for v in known)}."))
            elif group == DYNAMO_GROUP and not self.crds:
                dgd_without_crd.append(obj)
            else:
                skipped_kinds.setdefault(f"{kind} ({obj.api_version})", obj)
        for label, obj in sorted(skipped_kinds.items()):
            findings.append(_object_finding(obj, "schema-unavailable", "info",
                                            f"no schema at hand for {label}: schema check skipped for this kind",
                                            "Pass its CRD with --crd to check it."))
        if dgd_without_crd:
            kinds = sorted({obj.kind for obj in dgd_without_crd})
            findings.append(_object_finding(
                dgd_without_crd[0], "schema-skipped", "info",
                f"schema stage skipped for {', '.join(kinds)} ({len(dgd_without_crd)} object(s)): no CRD given",
                "Pass the CRD with --crd PATH|URL|cluster or DGDLINT_CRD to check custom resources."))
        return findings

    def _validate(self, obj: KObject, fast, explainer, rule: str, source: str) -> list[Finding]:
        instance = prune_nulls(obj.value)
        if fast.is_valid(instance):
            return []
        findings = []
        for error in explainer().iter_errors(instance):
            findings.extend(_error_findings(obj, error, rule, source))
            if len(findings) >= MAX_ERRORS_PER_OBJECT:
                break
        findings.sort(key=lambda f: (f.line, f.column, f.path))
        return findings


def _object_finding(obj: KObject, rule: str, severity: str, message: str, remediation: str,
                    path: tuple = ()) -> Finding:
    line, column = obj.position(path)
    return Finding(rule=rule, severity=severity, stage="schema", file=obj.file, line=line, column=column,
                   path=format_path(path), message=message, remediation=remediation, object_ref=obj.ref)


def _most_specific(error):
    """Inside anyOf/oneOf, the error of the branch that got furthest (check-jsonschema does the same)."""
    from jsonschema.exceptions import best_match

    while error.context:
        deeper = best_match(error.context)
        if deeper is None or deeper is error:
            break
        error = deeper
    return error


def _describe(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _error_findings(obj: KObject, error, rule: str, source: str) -> list[Finding]:
    if error.validator in ("anyOf", "oneOf") and error.context:
        error = _most_specific(error)
    path = tuple(error.absolute_path)
    path_text = format_path(path)
    secret_like = obj.kind == "Secret" or any(isinstance(part, str) and part in _SECRET_KEYS for part in path)
    validator, expected = error.validator, error.validator_value
    if validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(as_map(error.schema.get("properties")))
        extras = [key for key in error.instance if key not in allowed]
        out = []
        for key in extras:
            hint = difflib.get_close_matches(str(key), sorted(allowed), n=1)
            message = f"unknown field {key!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
            out.append(_object_finding(obj, rule, "error", message + f" [{source}]",
                                       f"Remove {key!r} or correct its name; allowed here: "
                                       f"{', '.join(sorted(allowed)[:12])}{', ...' if len(allowed) > 12 else ''}.",
                                       path + (key,)))
        if out:
            return out
    if validator == "required":
        missing = [key for key in expected if key not in (error.instance or {})]
        name = missing[0] if missing else "?"
        return [_object_finding(obj, rule, "error", f"missing required field {name!r} [{source}]",
                                f"Add {format_path(path + (name,))}.", path)]
    if validator == "type":
        wanted = expected if isinstance(expected, str) else " or ".join(expected)
        got = _describe(error.instance)
        # Numbers and booleans help (a port given as 8000, not "8000"); strings are never shown.
        showable = isinstance(error.instance, (int, float, bool)) and not secret_like
        shown = f" ({error.instance!r})"[:40] if showable else ""
        return [_object_finding(obj, rule, "error", f"must be {wanted}, got {got}{shown} [{source}]",
                                f"Give {path_text or 'this field'} a value of type {wanted}"
                                + (" (quote numbers meant as strings)." if wanted == "string" else "."), path)]
    if validator == "enum":
        safe = isinstance(error.instance, str) and _SAFE_WORD.match(error.instance) and not secret_like
        shown = f" {error.instance!r}" if safe else ""
        return [_object_finding(obj, rule, "error", f"value{shown} is not one of "
                                f"{', '.join(map(repr, expected))} [{source}]",
                                f"Use one of {', '.join(map(str, expected))}.", path)]
    # Other constraints are described from the schema side only: the value itself is never echoed.
    if validator == "pattern":
        message = f"does not match the pattern {expected!r}"
    elif validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
                       "minItems", "maxItems", "minProperties", "maxProperties", "multipleOf"):
        message = f"violates {validator} {expected}"
    else:
        message = f"fails the schema's {validator!r} constraint"
    return [_object_finding(obj, rule, "error", f"{message} [{source}]",
                            f"Fix {path_text or 'the object'} to satisfy the schema ({validator}).", path)]


def _cache_dir() -> Path | None:
    if os.environ.get("DGDLINT_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dgdlint"


def _cached_crd_versions(source: str) -> list[CrdVersionSchema]:
    """CRD versions of a source; for local files, the converted schemas are cached by content hash, so a
    pre-commit run does not re-parse a 1.6 MB CRD each time. URLs and the cluster are always read."""
    import hashlib

    from dgdlint import __version__

    path = Path(source)
    cache = _cache_dir()
    if cache is None or source == CLUSTER or re.match(r"^https?://", source) or not path.exists():
        return [v for doc in read_crd_source(source) for v in crd_versions(doc, source)]
    digest = hashlib.sha256(__version__.encode())
    files = sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml", ".json")) if path.is_dir() else [path]
    try:
        for file in files:
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
        elif sources and re.fullmatch(r"https?://[^/]+", sources[-1]) and re.match(r"\d+(/|$)", part):
            sources[-1] += os.pathsep + part  # a port: http://host:8080/crd.yaml
        else:
            sources.append(part)
    return [source for source in sources if source]
