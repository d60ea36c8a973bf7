"""Quantities and times in built-in kinds, as the API server decodes them.

A built-in kind's quantity fields (container requests and limits, a claim's storage, an emptyDir's size
limit, ...) are decoded by Go: the text, trimmed of spaces, must parse as a quantity, or the whole object
is refused before validation ("cannot be handled as a Job"). Kubernetes' JSON schemas only say "a string
or a number", so this walk finds those fields by their type in the kind's schema and parses them as
apimachinery does (dgdlint.quantity.go_quantity). Its time fields (metav1.Time: an ObjectMeta's
creationTimestamp, in the object's metadata or a template's) are read the same way, as RFC 3339 text
(dgdlint.go_time): `creationTimestamp: ""` is refused, a null is no time at all."""

from __future__ import annotations

import re
from collections.abc import Iterator

from dgdlint.go_time import rfc3339_problem
from dgdlint.quantity import go_quantity
from dgdlint.scalars import go_trim_space
from dgdlint.schema.refs import children, ref_name, resolve, subtree_holds

QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
QUANTITY_REMEDIATION = "Write the quantity as Kubernetes does: \"500m\", \"2\", \"16Gi\"."
TIME_REMEDIATION = "Write the time in RFC 3339 (2026-12-02T08:00:00Z), or leave it out."
# What Go's JSON encoder escapes in a string (control characters, quote, backslash, the HTML characters and
# the two line separators): the quantity reader takes the text between the quotes as it is, escapes and all.
_JSON_ESCAPED = re.compile("[\x00-\x1f\"\\\\<>&\u2028\u2029]")


class QuantityWalker:
    """The quantity and time fields of one kind's schema; which subtrees hold one is learned once per
    schema node."""

    def __init__(self, definitions: dict):
        self.definitions = definitions
        self._holds: dict[int, bool] = {}
        decoded = (definitions.get(QUANTITY), definitions.get(TIME))
        self._is_decoded = lambda node: node is decoded[0] or node is decoded[1]

    def bad(self, value: object, schema: object, path: tuple = ()) -> Iterator[tuple[tuple, str, str]]:
        """(path, what is wrong, what to do) for each quantity or time field whose value Go cannot read as one."""
        name = ref_name(schema)
        if name == QUANTITY or name == TIME:
            problem = _problem(value) if name == QUANTITY else _time_problem(value)
            if problem:
                yield path, problem, QUANTITY_REMEDIATION if name == QUANTITY else TIME_REMEDIATION
            return
        node = resolve(schema, self.definitions)
        if not self._holds_decoded(node):
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

    def _holds_decoded(self, node: dict) -> bool:
        return subtree_holds(node, self._is_decoded, self._holds, self.definitions)


def _time_problem(value: object) -> str:
    if not isinstance(value, str):
        return ""  # null is no time at all; other types are the schema's to report
    problem = rfc3339_problem(value)
    if problem is None:
        return ""
    return (f"is not a time Kubernetes can read (RFC 3339, such as 2026-12-02T08:00:00Z): it {problem}; the API "
            "server refuses the object before validating it")


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
