"""Schema-stage findings: a JSON Schema error explained at its field, never echoing a value that may be
secret."""

from __future__ import annotations

import difflib
import re

from dgdlint.findings import Finding
from dgdlint.load import format_path
from dgdlint.model import KObject, as_map
from dgdlint.scalars import INT64_RANGE

# Values under these keys may be secrets: the schema stage never shows them.
SECRET_KEYS = {"env", "envs", "data", "stringData", "binaryData", "envFromSecret", "value"}
_SAFE_WORD = re.compile(r"^[A-Za-z0-9_./-]{1,40}$")

def object_finding(obj: KObject, rule: str, severity: str, message: str, remediation: str,
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
    # the loader makes every whole number within int64 an int: a whole float, or an int outside, is past it
    if (type(value) is int and not INT64_RANGE[0] <= value <= INT64_RANGE[1]) or (
            type(value) is float and value.is_integer()):
        return "a whole number past the int64 range"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _shown_number(value: object) -> str:
    """A number as the JSON kubectl sends writes it (Go's encoder: plain digits below 1e21)."""
    if type(value) is float and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def error_findings(obj: KObject, error, rule: str, source: str) -> list[Finding]:
    if error.validator in ("anyOf", "oneOf") and error.context:
        error = _most_specific(error)
    path = tuple(error.absolute_path)
    path_text = format_path(path)
    secret_like = obj.kind == "Secret" or any(isinstance(part, str) and part in SECRET_KEYS for part in path)
    validator, expected = error.validator, error.validator_value
    if validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(as_map(error.schema.get("properties")))
        extras = [key for key in error.instance if key not in allowed]
        out = []
        for key in extras:
            hint = difflib.get_close_matches(str(key), sorted(allowed), n=1)
            message = f"unknown field {key!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
            out.append(object_finding(obj, rule, "error", message + f" [{source}]",
                                       f"Remove {key!r} or correct its name; allowed here: "
                                       f"{', '.join(sorted(allowed)[:12])}{', ...' if len(allowed) > 12 else ''}.",
                                       path + (key,)))
        if out:
            return out
    if validator == "required":
        missing = [key for key in expected if key not in (error.instance or {})]
        # one error per missing field, each naming its own in its message ("'value' is a required property")
        name = next((key for key in missing if error.message.startswith(repr(key))), missing[0] if missing else "?")
        return [object_finding(obj, rule, "error", f"missing required field {name!r} [{source}]",
                                f"Add {format_path(path + (name,))}.", path)]
    if validator == "type":
        wanted = expected if isinstance(expected, str) else " or ".join(expected)
        got = _describe(error.instance)
        # Numbers and booleans help (a port given as 8000, not "8000"); strings are never shown.
        showable = isinstance(error.instance, (int, float, bool)) and not secret_like
        shown = f" ({_shown_number(error.instance)})"[:40] if showable else ""
        return [object_finding(obj, rule, "error", f"must be {wanted}, got {got}{shown} [{source}]",
                                f"Give {path_text or 'this field'} a value of type {wanted}"
                                + (" (quote numbers meant as strings)." if wanted == "string" else "."), path)]
    if validator == "enum":
        safe = isinstance(error.instance, str) and _SAFE_WORD.match(error.instance) and not secret_like
        shown = f" {error.instance!r}" if safe else ""
        return [object_finding(obj, rule, "error", f"value{shown} is not one of "
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
    return [object_finding(obj, rule, "error", f"{message} [{source}]",
                            f"Fix {path_text or 'the object'} to satisfy the schema ({validator}).", path)]




# Lists whose duplicate names a rule of the rule stage reports (duplicate-env), with its own rationale.
_LISTS_LEFT_TO_RULES = {"env"}
# A built-in list's duplicate is an error whether or not a create checks it (the pod validation refuses two
# containers or volumes of one name; it takes two ports, pull secrets, finalizers or host aliases of one key):
# server-side apply refuses every list-map or set duplicate, and Helm 4, Flux and `kubectl apply
# --server-side` apply that way, while a client-side apply keeps one of the two without a word.
_BUILTIN_REMEDIATION = ("Keep one entry per key (merge the two, or rename one): server-side apply (Helm 4, Flux, "
                        "kubectl apply --server-side) refuses the object, and a client-side apply silently keeps "
                        "one of the two.")


def violation_findings(obj: KObject, violations: list, builtin: bool) -> list[Finding]:
    """Findings of CEL rules and list-type keys (schema/validations.py's Violations)."""
    findings = []
    for violation in violations:
        if violation.kind == "cel":
            reason = f" ({violation.reason})" if violation.reason not in ("", "FieldValueInvalid") else ""
            findings.append(object_finding(obj, "crd-cel-rule", "error", violation.message + reason,
                                           f"Change the object so that the CRD's rule holds: {violation.rule}",
                                           violation.path))
        elif violation.kind == "cel-uncompiled":
            findings.append(object_finding(obj, "crd-cel-uncompiled", "info",
                                           f"CEL rule not checked: it {violation.message[:200]}; rule: "
                                           f"{violation.rule}", "Check this rule on a cluster (kubectl apply "
                                           "--dry-run=server).", violation.path))
        elif violation.kind == "duplicate" and violation.list_name not in _LISTS_LEFT_TO_RULES:
            finding = object_finding(obj, "kubernetes-list-duplicate" if builtin else "crd-list-duplicate",
                                     "error", violation.message, _BUILTIN_REMEDIATION if builtin else
                                     "Keep one entry per key (merge the two, or rename one).", violation.path)
            finding.related = [obj.location(path, note) for path, note in violation.related]
            findings.append(finding)
        elif violation.kind == "keyless" and builtin:  # a CRD's list-map keys are required or defaulted
            findings.append(object_finding(obj, "kubernetes-list-duplicate", "error", violation.message + (
                ": server-side apply refuses it"), "Give the entry its key, or leave the entry out: server-side "
                "apply (Helm 4, Flux, kubectl apply --server-side) refuses an entry without one, which a create "
                "takes.", violation.path))
    return findings
