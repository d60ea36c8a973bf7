"""A CRD's structural OpenAPI v3 schema as JSON Schema (draft 7), structure only.

The result validates like `kubectl --validate=strict` and keeps what the later checks read: the CEL rules
(`x-kubernetes-validations`), list types and keys, int-or-string, preserve-unknown-fields, and defaults
(the API server fills them in before the CEL rules run). JSON Schema
validators (ours, kubeconform) ignore those `x-` keys; the CEL and list-type checks walk them."""

from __future__ import annotations

from functools import cache

from dgdlint.scalars import INT64_RANGE
from dgdlint.schema.refs import every_node

# Extensions kept as they are: the CEL and list-type checks, and readers of the bundled schemas, need them.
KEPT_EXTENSIONS = (
    "x-kubernetes-validations",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
)
# Prose and hints that do not change what is valid (`format` is read first: see FORMAT_BOUNDS).
DROPPED = ("description", "example", "externalDocs", "format", "nullable", "title")
# The integer formats the API server enforces ("must be of type integer with format int32"), as bounds a
# JSON Schema validator checks. The string formats in these CRDs (date-time) sit in status only.
FORMAT_BOUNDS = {"int32": (-(2**31), 2**31 - 1), "int64": INT64_RANGE}
DRAFT7 = "http://json-schema.org/draft-07/schema#"


def openapi_to_jsonschema(node: object) -> object:
    """Convert one schema node (recursively).

    Objects with `properties` and no `additionalProperties` are closed unless
    `x-kubernetes-preserve-unknown-fields` keeps them open; int-or-string becomes
    `anyOf: [integer, string]`; OpenAPI's boolean exclusiveMinimum/Maximum become draft 7 numbers; the
    int32 and int64 formats become the bounds of their range."""
    if not isinstance(node, dict):
        return node
    out: dict = {}
    for key, value in node.items():
        if key in DROPPED:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: openapi_to_jsonschema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            out[key] = openapi_to_jsonschema(value)
        elif key in ("anyOf", "allOf", "oneOf") and isinstance(value, list):
            out[key] = [openapi_to_jsonschema(sub) for sub in value]
        elif key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
            bound = "minimum" if key == "exclusiveMinimum" else "maximum"
            if value and bound in node:
                out[key] = node[bound]
        elif key.startswith("x-kubernetes-"):
            if key in KEPT_EXTENSIONS:
                out[key] = value
        else:
            out[key] = value
    if "exclusiveMinimum" in out and "minimum" in out and out["exclusiveMinimum"] == out["minimum"]:
        del out["minimum"]
    if "exclusiveMaximum" in out and "maximum" in out and out["exclusiveMaximum"] == out["maximum"]:
        del out["maximum"]
    _bound(out, node.get("format"))
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
    preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
    if "properties" in out and "additionalProperties" not in out and not preserve:
        out["additionalProperties"] = False
    return out


def _bound(out: dict, format_name: object) -> None:
    """Narrow the node's range to its integer format's (an existing tighter bound stays); any other format
    (or a property that happens to be called "format") leaves it as it is."""
    bounds = FORMAT_BOUNDS.get(format_name) if isinstance(format_name, str) else None
    if bounds is None:
        return
    low, high = bounds
    if not (isinstance(out.get("minimum"), (int, float)) and out["minimum"] >= low) and "exclusiveMinimum" not in out:
        out["minimum"] = low
    if not (isinstance(out.get("maximum"), (int, float)) and out["maximum"] <= high) and "exclusiveMaximum" not in out:
        out["maximum"] = high


def bound_integer_formats(node: object) -> object:
    """Add the int32/int64 ranges to every node of a JSON schema that names one of those formats, in
    place (Kubernetes' own schemas, whose formats the JSON Schema validators leave unchecked); returns it."""
    for current in every_node(node):
        _bound(current, current.get("format"))
    return node


def version_schema(raw: dict) -> dict:
    """The JSON Schema document of one CRD version's openAPIV3Schema."""
    schema = openapi_to_jsonschema(raw)
    schema["$schema"] = DRAFT7
    return schema


@cache
def kubernetes_validator(validator_class):
    """`validator_class` (python-jsonschema) as the API server validates:
    - `integer` is a JSON number written as a whole number within int64, which the loader reads as an int
      (JSON Schema would also take a float without a fraction: `1e20`, past int64); an int above int64 (go-yaml's
      uint64) is a number and no integer, as the server's JSON reader makes it a float64 (a built-in integer
      field cannot decode it either);
    - `pattern` is matched by RE2, as Go's regexp matches it: `$` is the end of the text (Python's `re`
      also matches before a final newline, passing "name\\n"), `\\d` is an ASCII digit."""
    from jsonschema import validators

    checker = validator_class.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: type(value) is int and INT64_RANGE[0] <= value <= INT64_RANGE[1])
    return validators.extend(validator_class, type_checker=checker, validators={"pattern": _re2_pattern})


def _re2_pattern(validator, pattern, instance, _schema):
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _regexp(pattern)(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def _regexp(pattern: str):
    """The search function of `pattern` compiled by RE2 (Python's `re` for one RE2 cannot compile, which
    the API server would not have accepted in a CRD)."""
    import re

    import re2

    try:
        return re2.compile(pattern).search
    except re2.error:
        return re.compile(pattern).search
