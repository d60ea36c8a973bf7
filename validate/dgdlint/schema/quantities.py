"""Quantities in built-in kinds, as the API server decodes them.

A built-in kind's quantity fields (container requests and limits, a claim's storage, an emptyDir's size
limit, ...) are decoded by Go: the text, trimmed of spaces, must parse as a quantity, or the whole object
is refused before validation ("cannot be handled as a Job"). Kubernetes' JSON schemas only say "a string
or a number", so this walk finds those fields by their type in the kind's schema and parses them as
apimachinery does (dgdlint.quantity.go_quantity)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from dgdlint.quantity import go_quantity
from dgdlint.scalars import go_trim_space
from dgdlint.schema.refs import children, ref_name, resolve, subtree_holds

QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
# What Go's JSON encoder escapes in a string (control characters, quote, backslash, the HTML characters and
# the two line separators): the quantity reader takes the text between the quotes as it is, escapes and all.
_JSON_ESCAPED = re.compile("[\x00-\x1f\"\\\\<>&\u2028\u2029]")


class QuantityWalker:
    """The quantity fields of one kind's schema; which subtrees hold one is learned once per schema node."""

    def __init__(self, definitions: dict):
        self.definitions = definitions
        self._holds: dict[int, bool] = {}
        quantity = definitions.get(QUANTITY)
        self._is_quantity = lambda node: node is quantity

    def bad(self, value: object, schema: object, path: tuple = ()) -> Iterator[tuple[tuple, str]]:
        """(path, what is wrong) for each quantity field whose value Go cannot read as a quantity."""
        if ref_name(schema) == QUANTITY:
            problem = _problem(value)
            if problem:
                yield path, problem
            return
        node = resolve(schema, self.definitions)
        if not self._holds_quantity(node):
            return
        properties, values, items = children(node)
        if isinstance(value, dict):
            for key, item in value.items():
                below = properties.get(key, values)
                if below is not None:
                    yield from self.bad(item, below, path + (key,))
        elif isinstance(value, list) and items is not None:
            for index, item in enumerate(value):
                yield from self.bad(item, items, path + (index,))

    def _holds_quantity(self, node: dict) -> bool:
        return subtree_holds(node, self._is_quantity, self._holds, self.definitions)


def _problem(value: object) -> str:
    if value is None or isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return ""  # null is no quantity at all; other types are the schema's to report
    if isinstance(value, str):
        if _JSON_ESCAPED.search(value):
            return ("is not a quantity Kubernetes can read: it holds a character JSON escapes (a tab, a newline, a "
                    "quote), which the API server's quantity reader does not unescape")
        text = go_trim_space(value)  # the reader trims spaces from the text between the quotes
    else:
        text = str(value)
    if go_quantity(text) is None:
        return ("is not a quantity Kubernetes can read (such as 500m, 2, 16Gi, 1e3); the API server refuses "
                "the object before validating it")
    return ""
