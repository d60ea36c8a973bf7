"""The operator's conversion records as the operator reads them (api/v1alpha1, operator commit 2a6da14).

`nvidia.com/dgd-spec` holds what one API version of a graph cannot: on a v1beta1 object the v1alpha1
fields (ConvertTo's sparse save of pvcs, services' ingress, annotations, ...), on a v1alpha1 object the
v1beta1 ones. `nvidia.com/dgd-status` holds v1alpha1 status fields. How each is read:

- dgd-spec, empty: skipped. Otherwise restorePreservedSpec: the text must decode as a JSON object (or
  null) into map[string]json.RawMessage; with a `spec` key it is the envelope {version, spec, rawJSON},
  without one the spec itself (the legacy form). Any decode error (not JSON, no object, a field of the
  wrong type anywhere) makes it return ok=false, and the record is skipped silently: nothing restored,
  nothing refused. Unknown fields are ignored.
- dgd-status, empty: skipped. Otherwise getJSONAnnFromObj decodes it into the v1alpha1 status; a decode
  error fails ConvertFrom, and the webhook refuses the graph ("cannot validate preserved v1alpha1
  DynamoGraphDeployment fields"). Only ConvertFrom (a v1beta1 object) reads it; ConvertTo drops it.

The webhook validates a v1beta1 object and, from ConvertFrom, its v1alpha1 view
(alphaDynamoGraphDeploymentForValidation); `alpha_view` builds what of that view the record decides."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache, lru_cache

from dgdlint.go_json import BYTES, Pairs, TooDeep, Undecodable, decode, parse
from dgdlint.load import format_path
from dgdlint.schema.bundled import bundled_root, schema_file

SPEC_RECORD = "nvidia.com/dgd-spec"
STATUS_RECORD = "nvidia.com/dgd-status"
RECORDS = (SPEC_RECORD, STATUS_RECORD)
# The bundled schemas of the operator whose conversion this module follows: its Go types, field by field.
OPERATOR_RELEASE = "1.5.0-dev"
# metav1.Time fields of the v1alpha1 status (format date-time in the CRD; the bundled schema drops formats).
STATUS_TIMES = frozenset({("conditions", "*", "lasttransitiontime"), ("rollingupdate", "starttime"),
                          ("rollingupdate", "endtime")})
FRONTEND_SIDECAR = "sidecar-frontend"  # the container v1alpha1 frontendSidecar becomes


@cache
def _schema(version: str) -> dict:
    root = bundled_root()
    if root is None:
        return {}
    try:
        text = (root / schema_file(OPERATOR_RELEASE, "nvidia.com", "DynamoGraphDeployment", version)).read_text(
            encoding="utf-8")
    except OSError:
        return {}
    return json.loads(text).get("properties", {})


def _envelope(spec_schema: dict) -> dict:
    """preservedSpecEnvelope: {version int, spec T, rawJSON [{path, raw []byte, nil bool}]}."""
    raw = {"type": "object", "properties": {"path": {"type": "string"}, "raw": BYTES, "nil": {"type": "boolean"}}}
    return {"type": "object", "properties": {"version": {"type": "integer"}, "spec": spec_schema,
                                             "rawJSON": {"type": "array", "items": raw}}}


@dataclass
class SpecRecord:
    """A dgd-spec as restorePreservedSpec reads it into the `version` spec type."""

    version: str
    spec: dict | None = None  # the decoded spec (field names as Go's); None when skipped
    prefix: tuple = ()  # where the spec is in the JSON: ("spec",) in the envelope, () in the legacy form
    skipped: str = ""  # why the operator skips it
    unread: str = ""  # why dgdlint cannot tell what the operator does with it (then nothing is restored here)

    def json_path(self, path: tuple) -> str:
        """A path of the spec (`spec.pvcs[0].name`) as it is in the record's JSON."""
        return format_path(self.prefix + tuple(path[1:] if path[:1] == ("spec",) else path))


@lru_cache(maxsize=64)
def read_spec(text: str, version: str) -> SpecRecord:
    """restorePreservedSpec of a non-empty record, into the spec of `version` (v1alpha1: restoreDGDSpokeSpec,
    read from a v1beta1 object; v1beta1: restoreDGDHubSpec, read from a v1alpha1 one)."""
    spec_schema = _schema(version).get("spec")
    if not spec_schema:
        return SpecRecord(version, unread=f"dgdlint has no {version} schema to read it with")
    try:
        top = parse(text)
    except TooDeep:
        return SpecRecord(version, unread="it is nested too deeply for dgdlint to read")
    except ValueError:
        return SpecRecord(version, skipped="it is not JSON")
    if top is None:  # null: an empty map, then the legacy form of an empty spec
        return SpecRecord(version, {})
    if not isinstance(top, Pairs):
        return SpecRecord(version, skipped="it is JSON but not an object")
    envelope = any(key == "spec" for key, _ in top)  # the map lookup is exact
    try:
        if envelope:
            decoded = decode(top, _envelope(spec_schema))
            return SpecRecord(version, decoded.get("spec") or {}, ("spec",))
        return SpecRecord(version, decode(top, spec_schema) or {})
    except Undecodable as error:
        return SpecRecord(version, skipped=f"{format_path(error.path) or 'it'} {error.problem}")
    except RecursionError:
        return SpecRecord(version, unread="it is nested too deeply for dgdlint to read")


@lru_cache(maxsize=64)
def status_problem(text: str) -> str | None:
    """Why getJSONAnnFromObj cannot decode a non-empty dgd-status into the v1alpha1 status; None when it can."""
    try:
        decode(parse(text), _schema("v1alpha1").get("status") or {}, (), STATUS_TIMES)
    except (TooDeep, RecursionError):
        return None  # dgdlint cannot read it: no refusal claimed
    except ValueError:
        return "it is not JSON"
    except Undecodable as error:
        return f"{format_path(error.path)} {error.problem}" if error.path else f"it {error.problem}"
    return None


@dataclass
class AlphaView:
    """What a v1beta1 graph's v1alpha1 view (ConvertFrom) takes from its dgd-spec, as a v1alpha1 spec."""

    spec: dict = field(default_factory=dict)
    null_services: list[str] = field(default_factory=list)  # nil services ConvertFrom adds: no component's


def alpha_view(record: SpecRecord, components: dict[str, dict]) -> AlphaView:
    """The fields of the v1alpha1 view that come from the record, for a v1beta1 graph whose components
    are `components` (name -> raw component). restoreDGDAlphaOnlySpecFromSaved restores spec.pvcs whole
    (a v1beta1 spec has none) and adds a null service of the record that names no component;
    ConvertToDynamoComponentDeploymentSharedSpec then restores, per component, the record's service by
    the component's name (fillSharedAlphaOnlyFromPreserved). Of what it restores, the webhook's v1alpha1
    checks read: ingress and annotations (a v1beta1 component has neither), and, when the component's
    frontendSidecar is `sidecar-frontend` and the record's service has a frontendSidecar, that
    frontendSidecar (restoredDefaultFrontendSidecar) with the record's extraPodSpec container of that
    name (restorePreservedFrontendSidecarConflict). A volume mount is restored only as the compilation
    cache, which needs no mountPoint; a failover only disabled, which is not checked."""
    view = AlphaView()
    spec = record.spec or {}
    pvcs = spec.get("pvcs")
    if pvcs:
        # PVC.Name is a *string: unset (or a null entry, a zero PVC) is refused as empty is
        view.spec["pvcs"] = [dict(entry or {}, name=(entry or {}).get("name") or "") for entry in pvcs]
    services = {}
    for name, saved in (spec.get("services") or {}).items():
        if name not in components:
            if saved is None:
                view.null_services.append(name)
            continue
        if saved is None:
            continue
        restored = {key: saved[key] for key in ("ingress", "annotations") if saved.get(key) is not None}
        if components[name].get("frontendSidecar") == FRONTEND_SIDECAR and saved.get("frontendSidecar") is not None:
            restored["frontendSidecar"] = saved["frontendSidecar"]
            clash = [c for c in (saved.get("extraPodSpec") or {}).get("containers") or []
                     if isinstance(c, dict) and c.get("name") == FRONTEND_SIDECAR]
            if clash:
                restored["extraPodSpec"] = {"containers": clash[:1]}
        services[name] = restored
    if services:
        view.spec["services"] = services
    return view


def hub_services(record: SpecRecord, services: list[str]) -> list[str]:
    """The services of a v1alpha1 graph whose v1beta1 fields ConvertTo restores from a decoded dgd-spec
    (restoredDGDHubComponentsByName: a component of the record by the service's name)."""
    named = {component.get("name") for component in (record.spec or {}).get("components") or []
             if isinstance(component, dict)}
    return [name for name in services if name in named]
