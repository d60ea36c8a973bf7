"""No key the templates need can go missing. `--set key=null` makes Helm drop the key, so a template
that reads it would render an empty or zero value (`NIM_HTTP_API_PORT: "0"`, `apiVersion: nvidia.com/`);
values.schema.json lists such keys as `required` at every level and refuses the values with a message
naming the key. Every other key is read behind a guard: dropping it renders exactly what its empty value
renders (or, for a Kubernetes field passed through as it is, leaves the field unset)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
import yaml
from chart_support import CHART, render

from dgdlint.render import RenderError

DEFAULTS = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))
SCHEMA = json.loads((CHART / "values.schema.json").read_text(encoding="utf-8"))

# Kubernetes objects the chart passes through as they are: a key dropped there is a field left unset,
# which Kubernetes defines (no CPU limit, the runtime's default). Their own `required` is Kubernetes'.
PASS_THROUGH = {"#/definitions/resources", "#/definitions/podSecurityContext", "#/definitions/containerSecurityContext"}
# Lists whose absence means nothing sensible: the download command.
LISTS_THE_TEMPLATES_NEED = {"download.command"}


@dataclass(frozen=True)
class Key:
    path: tuple[str, ...]
    default: object
    required: bool
    node: dict
    pass_through: bool

    @property
    def dotted(self) -> str:
        return ".".join(self.path)

    @property
    def nullable(self) -> bool:
        types = self.node.get("type")
        return types == "null" or (isinstance(types, list) and "null" in types) \
            or any(branch.get("type") == "null" for branch in self.node.get("anyOf", []))


def _resolve(node: dict) -> tuple[dict, str | None]:
    ref = node.get("$ref")
    if ref is None:
        return node, None
    found = SCHEMA
    for part in ref.removeprefix("#/").split("/"):
        found = found[part]
    return found, ref


def _keys(defaults: dict, schema: dict, path: tuple[str, ...] = (), pass_through: bool = False):
    for name, default in defaults.items():
        node, ref = _resolve(schema["properties"][name])
        through = pass_through or ref in PASS_THROUGH
        key = Key(path + (name,), default, name in schema.get("required", []), node, through)
        yield key
        if isinstance(default, dict) and "properties" in node:
            yield from _keys(default, node, key.path, through)


KEYS = list(_keys(DEFAULTS, SCHEMA))
REQUIRED = [key for key in KEYS if key.required]
OPTIONAL = [key for key in KEYS if not key.required]


def _dropped(path: tuple[str, ...], value: object = None) -> dict:
    """Values that set `path` (None: `--set path=null`, which drops the key)."""
    values: object = value
    for name in reversed(path):
        values = {name: values}
    return values


def _outcome(values: dict) -> tuple[str, object]:
    try:
        return "rendered", render(values).objects
    except RenderError as error:
        return "failed", str(error)


def _missing_message(key: Key) -> str:
    return f"at '{''.join('/' + part for part in key.path[:-1])}': missing property '{key.path[-1]}'"


def _templates_need(key: Key) -> bool:
    """The policy: a chart setting with a real default, and every section, is needed; a null-able value,
    an empty string or map (documented as "derive it" or "none") and a list whose absence means none are
    not."""
    if key.nullable or key.default in ("", {}):
        return False
    if isinstance(key.default, list):
        return key.dotted in LISTS_THE_TEMPLATES_NEED
    return True


@pytest.mark.parametrize(("values", "message"), [
    ({"worker": {"httpPort": None}}, "at '/worker': missing property 'httpPort'"),
    ({"download": {"command": None}}, "at '/download': missing property 'command'"),
    ({"operator": {"apiVersion": None}}, "at '/operator': missing property 'apiVersion'"),
    ({"worker": None}, "at '': missing property 'worker'"),
    ({"ingress": {"tls": None}}, "at '/ingress': missing property 'tls'"),
])
def test_a_needed_key_set_to_null_fails_at_the_schema_naming_the_key(values, message):
    outcome, got = _outcome(values)
    assert outcome == "failed" and message in got, f"{values} {outcome}: {str(got)[:300]!r}; expected {message!r}"
    assert "values don't meet the specifications of the schema" in got


@pytest.mark.parametrize("key", REQUIRED, ids=[key.dotted for key in REQUIRED])
def test_every_required_key_dropped_fails_at_the_schema(key):
    outcome, got = _outcome(_dropped(key.path))
    expected = _missing_message(key)
    assert outcome == "failed" and expected in got, (
        f"--set {key.dotted}=null {outcome}: {str(got)[:300]!r}; expected the schema to say {expected!r}")


@pytest.mark.parametrize("key", OPTIONAL, ids=[key.dotted for key in OPTIONAL])
def test_every_optional_key_dropped_renders_what_its_empty_value_renders(key):
    dropped = _outcome(_dropped(key.path))
    assert not (dropped[0] == "failed" and "error calling" in dropped[1]), (
        f"--set {key.dotted}=null breaks a template: {dropped[1][:400]!r}; guard it with a default or require it")
    if key.pass_through or isinstance(key.default, dict):
        # A Kubernetes field left unset; and Helm merges a map into the default, so only null takes one away.
        assert dropped[0] == "rendered", f"--set {key.dotted}=null failed: {dropped[1][:400]!r}"
        if key.default == {}:
            assert dropped == _outcome({}), f"--set {key.dotted}=null renders otherwise than the default {{}}"
        return
    empty = {str: "", list: []}.get(type(key.default))
    if empty is None:
        assert key.nullable, f"{key.dotted} (default {key.default!r}) has no empty value: require it"
        assert dropped[0] == "rendered", f"--set {key.dotted}=null failed: {dropped[1][:400]!r}"
        return
    with_empty = _outcome(_dropped(key.path, empty))
    assert dropped == with_empty, f"--set {key.dotted}=null renders otherwise than {key.dotted}={empty!r}"


@pytest.mark.parametrize("key", [key for key in KEYS if not key.pass_through],
                         ids=[key.dotted for key in KEYS if not key.pass_through])
def test_the_schema_requires_exactly_the_keys_the_templates_need(key):
    wanted = _templates_need(key)
    assert key.required == wanted, (
        f"{key.dotted} (default {key.default!r}) is {'required' if key.required else 'optional'} in the schema; "
        f"expected {'required' if wanted else 'optional'}")


def test_every_required_name_is_a_property_of_its_object():
    def walk(node, where="#"):
        if isinstance(node, dict):
            assert set(node.get("required", [])) <= set(node.get("properties", {})) or "properties" not in node, where
            for name, child in node.items():
                walk(child, f"{where}/{name}")
        elif isinstance(node, list):
            for index, child in enumerate(node):
                walk(child, f"{where}/{index}")
    walk(SCHEMA)

