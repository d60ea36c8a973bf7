"""A v1 List is its items: one with no list of items has no object to apply (kubectl finds none either),
which is an error at the List, not a pass."""

from __future__ import annotations

import pytest

from dgdlint.engine import check_texts

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
