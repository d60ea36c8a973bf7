"""ResourceClaims and ResourceClaimTemplates (resource.k8s.io/v1) as the API server validates them on create
(written from Kubernetes 1.37's resource validation, after the v1 defaults and the DRA feature gates that
are on by default):

- requests: at most 32, names that are DNS labels and unique; each one either `exactly` or
  `firstAvailable` (at most 8 subrequests, named as requests are, unique);
- a request or subrequest: a deviceClassName that is a DNS subdomain; allocationMode ExactCount (the
  default) or All; a count above zero with ExactCount (0 or none defaults to 1) and none with All; at most
  32 selectors, each with a CEL expression the server compiles (device_cel.py); tolerations with a label
  key, Equal (the default) with a label value or Exists with none, and an effect of NoSchedule, NoExecute
  or None;
- constraints (at most 32): requests that name requests of the claim (`request` or `request/subrequest`),
  unique, and a matchAttribute or distinctAttribute that is a domain and a C identifier;
- config (at most 32): requests as for constraints, and an opaque configuration with a driver (a CSI
  driver's name: a DNS subdomain of at most 63 characters) and parameters that are a JSON object of at most
  10 KiB (device_config.py, shared with device-class-invalid);
- a template's spec.metadata: labels and annotations of Kubernetes' syntax, and no other field set.

derivedAttributes are dropped on create (their DRADerivedAttributes gate is alpha, off in 1.37), so they
are not read. adminAccess needs a label on the namespace, which only the cluster knows."""

from __future__ import annotations

import re

from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.rules.device_config import opaque_problems, selector_problems
from dgdlint.rules.metadata import table_problems, template_field_set
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import (
    as_int,
    dns1123_label_problem,
    dns1123_subdomain_problem,
    label_value_problem,
    qualified_name_problem,
)

GROUP = "resource.k8s.io"
DEVICES = {"ResourceClaim": ("spec", "devices"), "ResourceClaimTemplate": ("spec", "spec", "devices")}
MAX_REQUESTS = 32  # DeviceRequestsMaxSize; also the most requests a constraint or a config names
MAX_SUBREQUESTS = 8
MAX_CONSTRAINTS = 32
MAX_CONFIG = 32
MAX_IDENTIFIER = 32  # DeviceMaxIDLength
MODES = ("ExactCount", "All")
EFFECTS = ("NoSchedule", "NoExecute", "None")
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)


def _too_many(items: list, limit: int, at: tuple, what: str):
    """The server's short cut for a list over its limit: one error for the list, its items left unread."""
    yield at, f"has {len(items)} {what}; at most {limit} are taken"


def _duplicates(names: list, at: tuple, what: str):
    seen = set()
    for index, name in enumerate(names):
        if name is not None and name in seen:
            yield at + (index,), f"{what} {name!r} is given twice"
        seen.add(name)


def request_names(requests: list) -> dict:
    """Each request's name with the names of its subrequests (None for a request without firstAvailable)."""
    names: dict = {}
    for request in requests:
        request = as_map(request)
        subrequests = as_list(request.get("firstAvailable"))
        name = as_str(request.get("name")) or ""
        names[name] = {as_str(as_map(s).get("name")) or "" for s in subrequests} if subrequests else None
    return names


def _reference_problem(name: str, names: dict) -> str | None:
    """A constraint's or config's request: `request` or `request/subrequest`, each part a DNS label."""
    parts = name.split("/")
    if len(parts) <= 2:
        bad = [part for part in parts if dns1123_label_problem(part)]
        if bad:
            return f"request {name!r} {dns1123_label_problem(bad[0])}"
        subrequests = names.get(parts[0], ())
        if parts[0] in names and (len(parts) == 1 or (subrequests is not None and parts[1] in subrequests)):
            return None
    return f"request {name!r} is not a request of the claim (a request's name, or a request's and a " \
           "subrequest's joined by '/')"


def _references(config: dict, at: tuple, names: dict, what: str):
    references = as_list(config.get("requests"))
    if len(references) > MAX_REQUESTS:
        yield from _too_many(references, MAX_REQUESTS, at + ("requests",), f"requests in a {what}")
        return
    for index, name in enumerate(references):
        if isinstance(name, str):
            problem = _reference_problem(name, names)
            if problem:
                yield at + ("requests", index), f"{what} {problem}"
    # names only: what is no string (a map, a list) the schema stage refuses, and it is no key to compare
    yield from _duplicates([name if isinstance(name, str) else None for name in references], at + ("requests",),
                           f"{what} request")


def qualified_attribute_problem(name: str) -> str | None:
    """A matchAttribute or distinctAttribute: a domain (a DNS subdomain) and a C identifier, joined by '/'.
    As in Kubernetes 1.37, a name with a second '/' is not checked further (a known gap of the server)."""
    parts = name.split("/")
    if len(parts) == 1:
        return _identifier_problem(name) or "must be a domain and a name joined by '/' (such as gpu.nvidia.com/uuid)"
    if len(parts) > 2:
        return None
    domain, identifier = parts
    if not domain:
        return "has an empty domain"
    # Kubernetes 1.37 checks this with its declarative format (a DNS subdomain as written, of at most 63
    # characters), not as a CSI driver's name in lower case as the handwritten check does: capitals refused
    problem = "must be no more than 63 characters" if len(domain) > 63 else dns1123_subdomain_problem(domain)
    if problem:
        return f"has a domain {domain!r} that {problem}"
    return _identifier_problem(identifier) if identifier else "has an empty name after its domain"


def _identifier_problem(name: str) -> str | None:
    if len(name) > MAX_IDENTIFIER:
        return f"has a name of {len(name)} characters; at most {MAX_IDENTIFIER} are taken"
    if not _C_IDENTIFIER.fullmatch(name):
        return f"has a name {name!r} that is no C identifier (letters, digits and '_', not starting with a digit)"
    return None


def _toleration_problems(toleration: dict, at: tuple):
    key = as_str(toleration.get("key"))
    if key and qualified_name_problem(key):
        yield at + ("key",), f"toleration key {key!r} {qualified_name_problem(key)}"
    operator = as_str(toleration.get("operator")) or "Equal"  # the v1 default, for an empty one too
    value = as_str(toleration.get("value")) or ""
    if operator == "Exists" and value:
        yield at + ("value",), f"toleration has operator Exists and a value {value!r} (none is taken)"
    elif operator == "Equal" and label_value_problem(value):
        yield at + ("value",), f"toleration value {value!r} {label_value_problem(value)}"
    elif operator not in ("Equal", "Exists"):
        yield at + ("operator",), f"toleration operator {operator!r} is not Equal or Exists"
    effect = as_str(toleration.get("effect"))
    if effect and effect not in EFFECTS:
        yield at + ("effect",), f"toleration effect {effect!r} is not one of {', '.join(EFFECTS)}"


def _device_problems(request: dict, at: tuple, what: str):
    """A request's `exactly`, or a subrequest: class, selectors, allocation mode and count, tolerations."""
    class_name = as_str(request.get("deviceClassName"))
    if class_name == "":
        yield at + ("deviceClassName",), f"{what} has an empty deviceClassName (one is required)"
    elif class_name is not None and dns1123_subdomain_problem(class_name):
        yield at + ("deviceClassName",), \
            f"{what} deviceClassName {class_name!r} {dns1123_subdomain_problem(class_name)}"
    for path, problem in selector_problems(as_list(request.get("selectors")), at + ("selectors",)):
        yield path, f"{what} {problem}"
    mode = as_str(request.get("allocationMode")) or "ExactCount"  # the v1 default
    count = as_int(request.get("count"))
    if mode == "All" and count:
        yield at + ("count",), f"{what} has allocationMode All and count {count} (All takes no count)"
    elif mode == "ExactCount" and count is not None and count < 0:
        yield at + ("count",), f"{what} count {count} is not above zero"
    elif mode not in MODES:
        yield at + ("allocationMode",), f"{what} allocationMode {mode!r} is not ExactCount or All"
    for index, toleration in enumerate(as_list(request.get("tolerations"))):
        for path, problem in _toleration_problems(as_map(toleration), at + ("tolerations", index)):
            yield path, f"{what} {problem}"


def _request_problems(request: dict, at: tuple):
    name = as_str(request.get("name"))
    what = f"request {name!r}" if name else "request"
    if name is not None and dns1123_label_problem(name):
        yield at + ("name",), f"request name {name!r} {dns1123_label_problem(name)}"
    subrequests = as_list(request.get("firstAvailable"))
    exactly = request.get("exactly")
    if not subrequests and exactly is None:
        yield at, f"{what} has neither exactly nor firstAvailable (one is required)"
    elif subrequests and exactly is not None:
        yield at, f"{what} has both exactly and firstAvailable (one is taken)"
    elif subrequests:
        if len(subrequests) > MAX_SUBREQUESTS:
            yield from _too_many(subrequests, MAX_SUBREQUESTS, at + ("firstAvailable",), "subrequests")
            return
        for index, subrequest in enumerate(subrequests):
            subrequest, where = as_map(subrequest), at + ("firstAvailable", index)
            sub = as_str(subrequest.get("name"))
            if sub is not None and dns1123_label_problem(sub):
                yield where + ("name",), f"{what} subrequest name {sub!r} {dns1123_label_problem(sub)}"
            yield from _device_problems(subrequest, where, f"subrequest {name}/{sub}" if name and sub else what)
        yield from _duplicates([as_str(as_map(s).get("name")) for s in subrequests], at + ("firstAvailable",),
                               f"{what} subrequest")
    else:
        yield from _device_problems(as_map(exactly), at + ("exactly",), what)


def _constraint_problems(constraint: dict, at: tuple, names: dict):
    yield from _references(constraint, at, names, "constraint")
    for field in ("matchAttribute", "distinctAttribute"):
        value = constraint.get(field)
        if value is not None:
            if isinstance(value, str) and qualified_attribute_problem(value):
                yield at + (field,), f"constraint {field} {value!r} {qualified_attribute_problem(value)}"
            return
    yield at, "constraint has neither matchAttribute nor distinctAttribute (one is required)"


def _config_problems(config: dict, at: tuple, names: dict):
    yield from _references(config, at, names, "config")
    yield from opaque_problems(config, at)

def device_claim_problems(devices: dict, at: tuple):
    """(path, problem) for a claim's `devices`, at `at`."""
    requests = as_list(devices.get("requests"))
    if len(requests) > MAX_REQUESTS:
        yield from _too_many(requests, MAX_REQUESTS, at + ("requests",), "requests")
    else:
        for index, request in enumerate(requests):
            yield from _request_problems(as_map(request), at + ("requests", index))
        yield from _duplicates([as_str(as_map(r).get("name")) for r in requests], at + ("requests",), "request")
    names = request_names(requests)
    for key, limit, check, what in (("constraints", MAX_CONSTRAINTS, _constraint_problems, "constraints"),
                                    ("config", MAX_CONFIG, _config_problems, "configs")):
        items = as_list(devices.get(key))
        if len(items) > limit:
            yield from _too_many(items, limit, at + (key,), what)
            continue
        for index, item in enumerate(items):
            yield from check(as_map(item), at + (key, index), names)


def template_metadata_problems(metadata: dict):
    """A template's spec.metadata, the metadata of the claims made of it: labels and annotations of
    Kubernetes' syntax, and nothing else set (metadata.template_field_set)."""
    at = ("spec", "metadata")
    for key in ("labels", "annotations"):
        if isinstance(metadata.get(key), dict):
            yield from table_problems(metadata[key], key, at + (key,))
    for key, value in metadata.items():
        if key not in ("labels", "annotations") and template_field_set(key, value):
            yield at + (key,), f"template metadata sets {key}; only labels and annotations are taken (each " \
                               "claim made of the template is named after its pod)"


@rule(
    name="resource-claim-invalid", code="DGD646", severity="error", family="admission",
    title="Resource claims and claim templates are ones the API server takes",
    rationale="""A DRA deployment ships a ResourceClaimTemplate (resource.k8s.io/v1) beside the pods that
    name it. The API server refuses a claim or template whose requests are not DNS labels or repeat one,
    that write neither or both of exactly and firstAvailable, whose deviceClassName is empty or no DNS
    subdomain, whose allocationMode is not ExactCount or All, whose count is negative or given with All,
    whose selector's CEL expression does not compile in the DRA environment (only `device` is declared) or
    does not evaluate to a bool, whose constraints or config name a request the claim does not have or
    give an attribute that is no domain/name, or whose opaque config has a bad driver name or parameters
    that are not a JSON object of at most 10 KiB; and one over the list limits (32 requests, 8
    subrequests, 32 selectors, constraints and configs); and a template whose spec.metadata sets more than
    labels and annotations, or labels or annotations out of syntax. The JSON schema takes all of these, and
    the pods that name such a template are never made.""",
    remediation="Name requests as DNS labels, give each one exactly (deviceClassName, count) or firstAvailable, "
                "write selectors against device.driver, device.attributes[DOMAIN].NAME and "
                "device.capacity[DOMAIN].NAME, and point constraints and config at the claim's own requests.",
    reads=("ResourceClaim", "ResourceClaimTemplate"),
)
def resource_claim_invalid(model: Model):
    for obj in model.objects:
        at = DEVICES.get(obj.kind)
        if at is None or obj.group != GROUP or obj.version != "v1":
            continue
        if obj.kind == "ResourceClaimTemplate" and isinstance(obj.get(("spec", "metadata")), dict):
            for path, problem in template_metadata_problems(obj.get(("spec", "metadata"))):
                yield Hit(obj, path, f"{obj.label}: {problem}")
        devices = obj.get(at)
        if isinstance(devices, dict):
            for path, problem in device_claim_problems(devices, at):
                yield Hit(obj, path, f"{obj.label}: {problem}")
