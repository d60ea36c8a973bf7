"""Label selectors as Kubernetes reads them (written from apimachinery's label selector validation and
matching): what makes one invalid, and whether one selects a set of labels. A workload's, a disruption
budget's and a network policy's selectors are all checked this way by the API server."""

from __future__ import annotations

from collections.abc import Iterator

from dgdlint.model import as_list, as_map, as_str
from dgdlint.rules.syntax import dns1123_subdomain_problem, label_value_problem, qualified_name_problem

OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
NODE_OPERATORS = (*OPERATORS, "Gt", "Lt")


def selector_problems(selector: object, path: tuple) -> Iterator[tuple[tuple, str]]:
    """(path, problem) for what the API server refuses in the label selector at `path`, each problem worded to
    follow "has an invalid selector: ": label keys and values of the wrong syntax, an unknown operator,
    values missing for In and NotIn or given for Exists and DoesNotExist."""
    selector = as_map(selector)
    for key, value in as_map(selector.get("matchLabels")).items():
        problem = qualified_name_problem(str(key))
        if problem:
            yield path + ("matchLabels", key), f"key {str(key)!r} {problem}"
        elif isinstance(value, str) and label_value_problem(value):
            yield path + ("matchLabels", key), f"value {value!r} of {key} {label_value_problem(value)}"
    for index, expression in enumerate(as_list(selector.get("matchExpressions"))):
        yield from requirement_problems(as_map(expression), path + ("matchExpressions", index))


def requirement_problems(expression: dict, where: tuple, operators: tuple[str, ...] = OPERATORS,
                         check_values: bool = True) -> Iterator[tuple[tuple, str]]:
    """(path, problem) for one selector requirement (a label selector's, or with Gt and Lt among
    `operators` a node selector's); a missing key or operator is the schema's to report."""
    operator, values = as_str(expression.get("operator")), as_list(expression.get("values"))
    if operator in ("In", "NotIn") and not values:
        yield where + ("values",), f"operator {operator} needs values"
    elif operator in ("Exists", "DoesNotExist") and values:
        yield where + ("values",), f"operator {operator} takes no values"
    elif operator in ("Gt", "Lt") and operator in operators and len(values) != 1:
        yield where + ("values",), f"operator {operator} takes exactly one value"
    elif operator is not None and operator not in operators:
        yield where + ("operator",), f"operator {operator!r} is not one of {', '.join(operators)}"
    key = as_str(expression.get("key"))
    problem = qualified_name_problem(key) if key is not None else None
    if problem:
        yield where + ("key",), f"key {key!r} {problem}"
    for value_index, value in enumerate(values):
        problem = label_value_problem(value) if check_values and isinstance(value, str) else None
        if problem:
            yield where + ("values", value_index), f"value {value!r} {problem}"


def _text_of(value: object) -> str:
    return as_str(value) or ""


def node_term_problems(term: dict, where: tuple, check_values: bool) -> Iterator[tuple[tuple, str]]:
    """(path, problem) for one node selector term at `where` (a pod's node affinity, a PersistentVolume's):
    its match expressions as requirements with Gt and Lt (`check_values`: their values read as label values,
    as a required term's are), its match fields on metadata.name with In or NotIn and one node name."""
    for index, requirement in enumerate(as_list(term.get("matchExpressions"))):
        for at, problem in requirement_problems(as_map(requirement), where + ("matchExpressions", index),
                                                NODE_OPERATORS, check_values):
            yield at, f"node selector {problem}"
    for index, requirement in enumerate(as_list(term.get("matchFields"))):
        requirement, at = as_map(requirement), where + ("matchFields", index)
        operator, values = _text_of(requirement.get("operator")), as_list(requirement.get("values"))
        if operator not in ("In", "NotIn"):
            yield at + ("operator",), f"node field selector operator {operator!r} is not In or NotIn"
        elif len(values) != 1:
            yield at + ("values",), f"node field selector operator {operator} takes exactly one value"
        if _text_of(requirement.get("key")) != "metadata.name":
            yield at + ("key",), f"node field selector key {_text_of(requirement.get('key'))!r} is not metadata.name"
        else:
            for value_index, value in enumerate(values):
                problem = dns1123_subdomain_problem(_text_of(value))
                if problem:
                    yield at + ("values", value_index), f"node name {_text_of(value)!r} {problem}"


def selects(selector: dict, labels: dict) -> bool | None:
    """Whether a label selector selects `labels` (None when it has an operator Kubernetes does not know)."""
    for key, value in as_map(selector.get("matchLabels")).items():
        if as_str(labels.get(key)) != as_str(value):
            return False
    for expression in map(as_map, as_list(selector.get("matchExpressions"))):
        key, operator = as_str(expression.get("key")), as_str(expression.get("operator"))
        values = {as_str(v) for v in as_list(expression.get("values"))}
        if operator not in OPERATORS:
            return None
        present = key in labels
        if (operator == "In" and not (present and as_str(labels[key]) in values)) or \
                (operator == "NotIn" and present and as_str(labels[key]) in values) or \
                (operator == "Exists" and not present) or (operator == "DoesNotExist" and present):
            return False
    return True
