"""A v1 List is its items: one with no list of items has no object to apply (kubectl finds none either),
which is an error at the List, not a pass."""

from __future__ import annotations

import pytest

from dgdlint.engine import check_texts
from dgdlint.schema import SchemaStage

ITEM = "  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: a\n"


@pytest.mark.parametrize(("text", "line"), [("apiVersion: v1\nkind: List\n", 1),
                                            ("apiVersion: v1\nkind: List\nitems: x\n", 3),
                                            ("apiVersion: v1\nkind: List\nitems: null\n", 3),
                                            ("apiVersion: v1\nkind: List\nitems: {a: 1}\n", 3)])
def test_a_list_without_a_list_of_items_is_an_error_at_the_list(text, line):
    result = check_texts({"l.yaml": text})
    [finding] = [f for f in result.findings if f.severity == "error"]
    assert (finding.rule, finding.line) == ("not-an-object", line)
    assert result.model.objects == []


def test_a_list_of_objects_is_its_items():
    result = check_texts({"l.yaml": "apiVersion: v1\nkind: List\nitems:\n" + ITEM})
    assert [obj.kind for obj in result.model.objects] == ["ConfigMap"]
    assert [f for f in result.findings if f.severity == "error"] == []


def test_a_list_inside_a_list_is_flattened_as_kubectl_flattens_it():
    """kubectl's resource builder (cli-runtime's FlattenListVisitor) takes a List's items that are lists
    apart too, breadth first: their objects are checked, and the inner List is no object of its own."""
    inner = "  - apiVersion: v1\n    kind: List\n    items:\n" + "".join(
        "    " + line + "\n" for line in ITEM.replace("name: a", "name: b").splitlines())
    text = "apiVersion: v1\nkind: List\nitems:\n" + inner + ITEM
    result = check_texts({"l.yaml": text})
    assert [obj.name for obj in result.model.objects] == ["a", "b"]
    assert [f for f in result.findings if f.severity == "error"] == []
    bad = check_texts({"l.yaml": text.replace("name: b", "name: b\n        data: {k: 1}")}, SchemaStage())
    [finding] = [f for f in bad.findings if f.severity == "error"]
    assert (finding.rule, finding.path, finding.line) == ("kubernetes-schema", "data.k", 11)


def test_a_list_inside_a_list_without_items_is_an_error_where_it_is():
    result = check_texts({"l.yaml": "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: List\n"})
    [finding] = [f for f in result.findings if f.severity == "error"]
    assert (finding.rule, finding.line, finding.path) == ("not-an-object", 4, "items[0]")
