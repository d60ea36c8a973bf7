"""The defaults server-side apply gives a built-in list's keys when an entry leaves them out, as dgdlint
declares them (schema.builtin.declare_key_defaults, read by the list-key check), against the ones the real API
server's OpenAPI (/openapi/v3) declares: for every keyed list of every built-in definition both know."""

from __future__ import annotations

import pytest
from cluster_support import CLUSTER

from dgdlint.schema.builtin import BuiltinSchemas
from dgdlint.schema.listtypes import key_defaults

pytestmark = CLUSTER
_NONE = "no default"


def _server_definitions(plane) -> dict:
    found = {}
    for entry in plane.request("GET", "/openapi/v3")["paths"].values():
        document = plane.request("GET", "/" + entry["serverRelativeURL"].lstrip("/"))
        found.update(document.get("components", {}).get("schemas", {}))
    return found


def _item_name(node: dict) -> str:
    items = node.get("items") or {}
    refs = [items] + list(items.get("allOf") or [])
    return next((str(r["$ref"]).rpartition("/")[2] for r in refs if isinstance(r, dict) and "$ref" in r), "")


def _keyed_lists(definitions: dict):
    """(definition, field, item definition, keys) of every `map` list a definition's properties hold."""
    for name, schema in definitions.items():
        for field, node in ((schema or {}).get("properties") or {}).items():
            if isinstance(node, dict) and node.get("x-kubernetes-list-type") == "map":
                yield name, field, _item_name(node), list(node.get("x-kubernetes-list-map-keys") or [])


@pytest.fixture(scope="module")
def server(control_plane) -> dict:
    return _server_definitions(control_plane)


def test_every_keyed_list_s_key_defaults_are_the_server_s(server):
    schemas = BuiltinSchemas()
    schemas.validators("v1", "Pod")  # loads the definitions
    ours = schemas.definitions()
    compared, differ = 0, []
    for name, field, item, keys in _keyed_lists(ours):
        if name not in server or item not in server:
            continue  # a definition this server does not serve (another version's)
        declared = key_defaults(keys, ours.get(item))
        theirs = (server[item].get("properties") or {})
        for key in keys:
            wanted = theirs.get(key, {}).get("default", _NONE)
            got = declared.get(key, _NONE)
            compared += 1
            if wanted != got:
                differ.append(f"{name}.{field} [{item}] {key}: server {wanted!r}, dgdlint {got!r}")
    assert compared >= 40, compared  # the keyed lists of pods, services, webhooks, statuses...
    assert not differ, "\n".join(differ)
