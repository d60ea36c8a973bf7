"""The CEL type check of device selectors (rules/device_cel.py, read by resource-claim-invalid and
device-class-invalid) against the real API server, over a table of expressions: each is posted as a
selector of a ResourceClaim and of a DeviceClass (a server-side dry run, 32 selectors to an object), and
the server refuses exactly the selectors the rule fails, both ways: what the server takes, the rule takes.
Where the rule says a literal is of mixed types, the server says so too (cel-go's homogeneous literal
check: "expected type A but found B"), of the same two types."""

from __future__ import annotations

import re

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import ApiError, resource_path

from dgdlint.engine import check_paths

pytestmark = CLUSTER

# List and map literals: cel-go's homogeneous aggregate literals (an attribute is of type any, dyn(x) of
# type dyn; an empty literal takes its neighbours' type; format's arguments are not looked into).
LITERALS = [
    "[1, 'a'].size() > 0",
    "{'a': 1, 'b': 'x'}.size() > 0",
    "{'a': 1, 2: 1}.size() > 0",
    "[1, 1.0].size() > 0",
    "[1, 1u].size() > 0",
    "[1, null].size() > 0",
    "[1, device.attributes['a'].b].size() > 0",
    "[device.driver, 'a'].size() > 0",
    "[dyn(1), 'a'].size() > 0",
    "[1, dyn('a')].size() > 0",
    "device.attributes['a'].exists(k, [k, 1].size() > 0)",
    "{'a': 1, 'b': 2}.size() > 0",
    "size([1 < 2.0, 'a']) > 0",
    "[dyn(1), device.attributes['a'].y].size() > 0",
    "{'a': device.attributes['a'].x, 'b': 1}.size() > 0",
    "{'a': device.attributes['a'].x, 'b': device.attributes['a'].y}.size() > 0",
    "[1.0, 2.0].all(x, x > 1)",
    "[{}, {'a': 1}].size() > 0",
    "[{'a': 1}, {}].size() > 0",
    "[[1, 2], [3]].size() > 0",
    "{'a': [], 'b': [1]}.size() > 0",
    "{'a': {'x': 1}, 'b': {'y': 'z'}}.size() > 0",
    "[device.driver, device.attributes['a'].x].size() > 0",
    "[?optional.of(1), 2].size() > 0",
    "[?optional.of('a'), 2].size() > 0",
    "{?'a': optional.of(1), 'b': 2}.size() > 0",
    "{'a': 1, ?'b': optional.of('x')}.size() > 0",
    "cel.bind(x, [1, 'a'], x.size() > 0)",
    "cel.bind(x, [1, 2], [x, [3]].size() > 0)",
    "[1u, 2u].size() > 0",
    "[1.0, 2].size() > 0",
    "[b'a', 'a'].size() > 0",
    "[timestamp('2020-01-01T00:00:00Z'), duration('1s')].size() > 0",
    "[null, null].size() > 0",
    "[1 < 2.0, true].size() > 0",
    "[device.driver.size(), 1].size() > 0",
    "[type(1), type('a')].size() > 0",
    "[device.allowMultipleAllocations, true].size() > 0",
    "[device.attributes, {}].size() > 0",
]
# An int, a uint and a double ordered with one another (cel-go's cross-type numeric comparisons), and
# what is built on the bool that makes.
NUMBERS = [
    "1 < 2.0",
    "1 == 1.0",
    "1 != 1.0",
    "(1 < 2.0) + 1 == 2",
    "(1 < 2.0) == 1",
    "1u < 2",
    "1.0 >= 2u",
    "(1.0 >= 2u) == 'a'",
    "!(1 < 2.0)",
    "(1 < 2.0) && true",
    "(1 < 2.0) ? 1 : 'a'",
    "1 < 2.0 || 1",
    "device.attributes['a'].x < 2.0",
    "[1, 2].all(x, x < 1.5)",
    "device.driver.size() < 10.0",
    "device.attributes['a'].x.size() > 1.0",
    "device.attributes['a'].x > 1u",
    "device.driver.size() >= 1.5 && device.driver.size() < 10u",
    "(1 < 2.0) in [true]",
    "[1, 2].exists(x, x > 1.5) == (2 > 1u)",
    "1 < 2.0 == true",
]
# Kubernetes' quantity functions, the standard and strings functions with the wrong arguments, the
# number of them or the receiver; attributes (of type any) as receivers, arguments and ranges; results of
# a type other than bool or any.
CALLS = [
    "[[1], ['a']].size() > 0",
    "[[], [1]].size() > 0",
    "[device.attributes['a'].b, 1].size() > 0",
    "'%s %d'.format(['a', 1]) == 'a 1'",
    "[1, 2].exists(x, x == 1)",
    "device.capacity['a'].b.isGreaterThan(1)",
    "device.capacity['a'].b.isGreaterThan('1Gi')",
    "device.capacity['a'].b.isGreaterThan(quantity('1Gi'))",
    "device.capacity['a'].b.isLessThan(1.0)",
    "device.capacity['a'].b.compareTo(1) > 0",
    "device.capacity['a'].b.compareTo('1') > 0",
    "device.capacity['a'].b.add(1).isInteger()",
    "device.capacity['a'].b.add(1u).isInteger()",
    "device.capacity['a'].b.add('1').isInteger()",
    "device.capacity['a'].b.add(1.0).isInteger()",
    "device.capacity['a'].b.sub(1).isInteger()",
    "device.capacity['a'].b.sub(1.0).isInteger()",
    "device.capacity['a'].b.asInteger(1) > 0",
    "device.capacity['a'].b.asInteger() > 0",
    "device.capacity['a'].b.asApproximateFloat() > 1",
    "device.capacity['a'].b.asApproximateFloat() > 1.0",
    "device.capacity['a'].b.sign() > 0",
    "device.capacity['a'].b.isInteger(1)",
    "quantity(1).isInteger()",
    "quantity('1').isInteger()",
    "isQuantity(1)",
    "isQuantity('1')",
    "device.capacity['a'].b.compareTo(device.capacity['a'].c) == 0",
    "device.capacity['a'].b.add(device.attributes['a'].x).isInteger()",
    "device.capacity['a'].b.isGreaterThan(device.attributes['a'].x)",
    "device.attributes['a'].x.isGreaterThan(1)",
    "device.attributes['a'].x.compareTo(1) > 0",
    "device.capacity['a'].b.asInteger() > 1.0",
    "device.capacity['a'].b.asInteger() == 1.0",
    "device.attributes['a'].x == 1",
    "device.attributes['a'].x == 'a'",
    "device.attributes['a'].x > 1",
    "device.attributes['a'].x + 1 > 1",
    "device.attributes['a'].x.startsWith('a')",
    "device.attributes['a'].x.isGreaterThan(quantity('1'))",
    "device.attributes['a'].x",
    "device.attributes['a'].x.exists(v, v == 1)",
    "device.attributes['a'].x.size() > 0",
    "size(device.attributes['a'].x) > 0",
    "device.attributes['a'].x == device.attributes['a'].y",
    "[device.attributes['a'].x, device.attributes['a'].y].size() > 0",
    "device.attributes['a'].x in [1, 2]",
    "1 in device.attributes['a'].x",
    "device.attributes['a'].x.compareTo(quantity('1')) > 0",
    "device.attributes['a'].x.matches('a')",
    "int(device.attributes['a'].x) > 1",
    "device.attributes['a'].x.isSorted()",
    "sign(device.capacity['a'].b) > 0",
    "sign(quantity('1')) > 0",
    "sign(1) > 0",
    "device.capacity['a'].b.isInteger()",
    "device.capacity['a'].b.asInteger(1, 2) > 0",
    "device.capacity['a'].b.add() == device.capacity['a'].b",
    "device.capacity['a'].b.add(1, 2) == device.capacity['a'].b",
    "device.capacity['a'].b.compareTo() > 0",
    "device.capacity['a'].b.isGreaterThan()",
    "quantity() == quantity('1')",
    "quantity('1', '2') == quantity('1')",
    "isQuantity('1', '2')",
    "device.capacity['a'].b.asApproximateFloat(1) > 0.0",
    "asInteger(device.capacity['a'].b) > 0",
    "isGreaterThan(device.capacity['a'].b, quantity('1'))",
    "device.driver.quantity() == quantity('1')",
    "device.driver.isQuantity()",
    "device.capacity['a'].b.add(quantity('1')).compareTo(quantity('2')) == 0",
    "device.capacity['a'].b.isGreaterThan(dyn(1))",
    "device.capacity['a'].b.add(dyn('x')).isInteger()",
    "device.capacity['a'].b.asInteger() < 1u",
    "device.capacity['a'].b.asApproximateFloat() < 1u",
    "device.attributes['a'].x.lowerAscii() == 'a'",
    "device.driver.substring(1, 2, 3) == 'a'",
    "device.driver.charAt() == 'a'",
    "size() == 0",
    "size(1, 2) == 0",
    "device.driver.lowerAscii(1) == 'a'",
    "dyn(true)",
    "dyn(1)",
    "[true][0]",
    "[device.attributes['a'].x][0]",
    "{'a': device.attributes['a'].x}['a']",
    "device.attributes['a'].x.all(v, v)",
    "[[], ['a']].size() > 0",
    "[[1], []].size() > 0",
    "[[1], [dyn(1)]].size() > 0",
    "[device.capacity['a'].b, quantity('1')].size() > 0",
    "[device.capacity['a'].b, 1].size() > 0",
    "[1, 2].map(x, [x, 'a']).size() > 0",
    "[1, 2].map(x, x * 2).size() > 0",
    "[1, 2].filter(x, x > 1).size() > 0",
    "[int(device.attributes['a'].x), 1].size() > 0",
    "'%s'.format([[1, 'a']]) == 'x'",
    "device.driver.split('.') == ['a', 'b']",
    "device.driver.split('.') == ['a', 1]",
    "device.capacity['a'].b.asApproximateFloat() < device.driver.size()",
    "quantity('1').sign() == 1",
    "sign(device.capacity['a'].b, 1) > 0",
    "device.driver.contains()",
    "device.driver.startsWith('a', 'b')",
    "device.driver.matches()",
    "int(1, 2) == 1",
    "device.attributes['a'].x.isQuantity()",
    "device.capacity['a'].b.isGreaterThan(device.capacity['a'].c, 1)",
    "device.driver.trim(1) == 'a'",
    "device.driver.replace('a', 'b', 1, 2) == 'x'",
    "device.driver.split('.', 2, 3).size() > 0",
]

# Deeper than cel-cpp's parser goes (32 levels), which cel-go takes (about 250): the rule does not judge them.
DEPTH = ["device.driver.size()" + " + 1" * 40 + " > 0", "(" * 40 + "device.driver == 'a'" + ")" * 40]

# What the server refuses and the rule takes: an overload of indexOf or lastIndexOf, for want of a declaration
# here (Kubernetes' list library extends them, so none is judged, the strings extension's among them), and
# an expression deeper than cel-cpp parses, whose types are then not checked.
GAPS = ["device.driver.indexOf('a', 1, 2) > 0", "(" * 40 + "[1, 'a'].size() > 0" + ")" * 40]

TABLE = LITERALS + NUMBERS + CALLS + DEPTH + GAPS
_MIXED = re.compile(r"expected type '([^']*)' but found '([^']*)'")
_INDEX = re.compile(r"selectors\[(\d+)\]")


def as_object(kind: str, expressions: list[str]) -> tuple[dict, str]:
    """A ResourceClaim or a DeviceClass selecting with `expressions`, and the rule that judges it."""
    selectors = [{"cel": {"expression": expression}} for expression in expressions]
    if kind == "DeviceClass":
        return ({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
                 "spec": {"selectors": selectors}}, "device-class-invalid")
    return ({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "gpu"},
             "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                 "deviceClassName": "gpu.nvidia.com", "selectors": selectors}}]}}}, "resource-claim-invalid")


def refused(plane, namespace: str, body: dict) -> dict[int, str]:
    """The selectors the server refuses in creating `body`: index -> its message."""
    path = resource_path(plane, body["apiVersion"], body["kind"], namespace) + "?dryRun=All"
    try:
        plane.request("POST", path, body)
    except ApiError as error:
        causes = error.body.get("details", {}).get("causes", [])
        assert causes and all(_INDEX.search(c.get("field", "")) for c in causes), error.body
        return {int(_INDEX.search(c["field"])[1]): c["message"] for c in causes}
    return {}


@pytest.mark.parametrize("kind", ["ResourceClaim", "DeviceClass"])
@pytest.mark.parametrize("start", range(0, len(TABLE), 32))
def test_the_server_and_the_rule_judge_each_selector_alike(kind, start, control_plane, namespace, tmp_path):
    expressions = TABLE[start:start + 32]
    body, rule = as_object(kind, expressions)
    by_server = refused(control_plane, namespace, body)
    manifest = tmp_path / "selectors.yaml"
    manifest.write_text(yaml.safe_dump(body), encoding="utf-8")
    by_rule = {int(_INDEX.search(f.path)[1]): f.message for f in check_paths([str(manifest)]).findings
               if f.rule == rule}
    gaps = {i for i, expression in enumerate(expressions) if expression in GAPS}
    assert assert_alike(expressions, by_server, by_rule, gaps) == []


def assert_alike(expressions: list[str], by_server: dict, by_rule: dict, gaps: set) -> list[str]:
    """What the server and the rule judge differently, one line each ([] when they agree)."""
    differences = []
    for i, expression in enumerate(expressions):
        server, ours = by_server.get(i), by_rule.get(i)
        if i in gaps:
            if server is None or ours is not None:
                differences.append(f"{expression!r}: no longer a gap (server {server!r}, rule {ours!r})")
        elif (server is None) != (ours is None):
            differences.append(f"{expression!r}: server {server!r}, rule {ours!r}")
        elif ours is not None and "literal of mixed types" in ours:
            mixed = _MIXED.search(server)
            if mixed is None or f"expected type {mixed[1]!r} but found {mixed[2]!r}" not in ours:
                differences.append(f"{expression!r}: server {server!r}, rule {ours!r}")
    return differences
