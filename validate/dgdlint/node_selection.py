"""Whether any node at all can take a pod, by its node selector and required node affinity, decided as the
scheduler's node affinity filter matches a node (k8s.io/component-helpers nodeaffinity, with apimachinery's
label requirements): the node selector must hold, and one term of the required affinity at least.

A term holds when all its match expressions and match fields hold; a term with neither holds on no node,
and so does a term the scheduler cannot parse (an operator it does not know, a value that is no label
value, a Gt or Lt value that is no integer, a match field without exactly one value). Labels are
independent of one another, so a term can be met when, for each label key it names, some value (or the
label's absence) meets every requirement on that key. The values worth trying are few: those of the
shortest In on the key (no other value meets it), else no label, a value no NotIn names, and for Gt and Lt
an integer in range spelt in a way no NotIn names (a label value can be `007`, which Go's ParseInt reads as
7; it cannot be `-7` or `+7`). A node's name is met likewise, a DNS subdomain an In names or one no NotIn
names.

The answer is exact: a pod said to fit no node fits none, whatever the cluster's nodes; a node that fits is
given as a witness (its labels and name), which tests hand to the scheduler's own code.

Read by the rule node-affinity-unsatisfiable (rules/node_affinity.py, with preflight's reading of a cluster's
nodes) and by GPU fit (gpu.py: the products a pod may get are the values of the product label its live terms
admit, see admitted_values)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from dgdlint.label_syntax import dns1123_subdomain_problem, label_value_problem, qualified_name_problem
from dgdlint.model import PodSettings, as_list, as_map, as_str
from dgdlint.scalars import INT64_RANGE

_GO_INT = re.compile(r"[+-]?[0-9]+")
_LABEL_MAX = 63
NAME_FIELD = "metadata.name"
_SHOWN = 8  # values a message lists of one requirement


def go_parse_int(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64): None where Go's returns an error."""
    if not _GO_INT.fullmatch(text):
        return None
    value = int(text)
    return value if INT64_RANGE[0] <= value <= INT64_RANGE[1] else None


@dataclass
class Requirement:
    """One node requirement of a pod: a nodeSelector entry or a match expression of a term."""

    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist, Gt, Lt; Equals for a node selector's entry
    values: list[str]
    path: tuple
    source: str  # how a message names it: "nodeSelector" or "term 0"
    members: frozenset = field(init=False, repr=False)  # the values, for lookups that stay cheap on long lists

    def __post_init__(self):
        self.members = frozenset(self.values)

    def holds(self, value: str | None) -> bool:
        """Whether a node whose label (None: no such label) is `value` meets it (Requirement.Matches)."""
        if self.operator in ("In", "Equals"):
            return value is not None and value in self.members
        if self.operator == "NotIn":
            return value is None or value not in self.members
        if self.operator == "Exists":
            return value is not None
        if self.operator == "DoesNotExist":
            return value is None
        number = go_parse_int(value) if value is not None else None
        if number is None:
            return False
        threshold = go_parse_int(self.values[0])
        return number > threshold if self.operator == "Gt" else number < threshold

    def describe(self, within: str) -> str:
        """The requirement as a message says it, after its key (`=H100 (nodeSelector)`, `In [A, B]`), naming where
        it is written unless that is `within`."""
        if self.operator == "Equals":
            said = f"={self.values[0]}"
        elif self.operator in ("Exists", "DoesNotExist"):
            said = self.operator
        elif self.operator in ("Gt", "Lt"):
            said = f"{self.operator} {self.values[0]}"
        else:
            shown = self.values[:_SHOWN] + ([f"... {len(self.values)} in all"] if len(self.values) > _SHOWN else [])
            said = f"{self.operator} [{', '.join(shown)}]"
        return said if self.source == within else f"{said} ({self.source})"


@dataclass
class Verdict:
    """One term (with the node selector) judged: `witness` a node that meets it, else `why` not."""

    index: int | None  # the term's index; None: no required affinity, the node selector alone
    path: tuple
    witness: tuple[dict, str] | None = None  # (labels, name)
    why: str = ""
    blame: list[Requirement] = field(default_factory=list)
    labels: list[Requirement] = field(default_factory=list)  # what it judged: the node selector's, the term's


def _read(expression: dict) -> tuple[str, str, list[str | None]]:
    """A requirement's key, operator and values as written (None for a value that is no string)."""
    values = [value if isinstance(value, str) else None for value in as_list(expression.get("values"))]
    return as_str(expression.get("key")) or "", as_str(expression.get("operator")) or "", values


def _label_requirement(expression: dict, path: tuple, source: str) -> tuple[Requirement | None, str]:
    """A match expression as the scheduler parses it (nodeSelectorRequirementsAsSelector, NewRequirement), or
    why it cannot."""
    key, operator, values = _read(expression)
    if operator not in ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"):
        return None, f"{source}: operator {operator!r} is one the scheduler does not know"
    if qualified_name_problem(key):
        return None, f"{source}: key {key!r} is no label key"
    if None in values:
        return None, f"{source}: {key} has a value that is not a string"
    if operator in ("In", "NotIn") and not values:
        return None, f"{source}: {key} {operator} has no values"
    if operator in ("Exists", "DoesNotExist") and values:
        return None, f"{source}: {key} {operator} has values"
    if operator in ("Gt", "Lt"):
        if len(values) != 1:
            return None, f"{source}: {key} {operator} has other than one value"
        if go_parse_int(values[0]) is None:
            what = "an integer beyond 64 bits" if _GO_INT.fullmatch(values[0]) else "no integer"
            return None, f"{source}: {key} {operator} {values[0]!r} compares with {what}"
    for value in values:
        if label_value_problem(value):
            return None, f"{source}: {key} has value {value!r}, which is no label value"
    return Requirement(key, operator, values, path, source), ""


def _field_requirement(expression: dict, path: tuple, source: str) -> tuple[Requirement | None, str]:
    """A match field as the scheduler parses it (nodeSelectorRequirementsAsFieldSelector), or why it cannot."""
    key, operator, values = _read(expression)
    if operator not in ("In", "NotIn"):
        return None, f"{source}: field operator {operator!r} is not In or NotIn"
    if len(values) != 1 or values[0] is None:
        return None, f"{source}: {key} {operator} has other than one value"
    return Requirement(key, operator, values, path, source), ""


def _label_candidates(key: str, requirements: list[Requirement]) -> list[str | None]:
    """Every label value (None: absent) that can decide the requirements on one key (see the module's text). A
    node's labels are valid keys and values (the API server keeps no other), so only those are tried. Where an
    In (or the node selector) names values, only the fewest such are tried: no other value can meet it."""
    if qualified_name_problem(key):
        return [None]
    listed = [r.values for r in requirements if r.operator in ("In", "Equals")]
    if listed:
        return [value for value in dict.fromkeys(min(listed, key=len)) if not label_value_problem(value)]
    taken = {value for requirement in requirements if requirement.operator == "NotIn" for value in requirement.values}
    candidates: list[str | None] = [None, next(f"x{index}" for index in range(len(taken) + 1)
                                               if f"x{index}" not in taken)]
    low, high = 0, INT64_RANGE[1]  # a label value that ParseInt reads is digits only: at least 0
    for requirement in requirements:
        if requirement.operator == "Gt":
            low = max(low, go_parse_int(requirement.values[0]) + 1)
        elif requirement.operator == "Lt":
            high = min(high, go_parse_int(requirement.values[0]) - 1)
    tries = len(taken) + 1  # as many spellings as the named values could take, and one
    for number in range(low, min(high, low + tries) + 1):
        for zeros in range(tries + 1):
            spelt = "0" * zeros + str(number)
            if len(spelt) > _LABEL_MAX:
                break
            if spelt not in taken:
                candidates.append(spelt)
                return candidates
    return candidates


def _field_candidates(key: str, requirements: list[Requirement]) -> list[str]:
    """The values of a node's field worth trying. A node's fields are its name alone (a field selector on another
    key reads it as empty); the names worth trying: those an In names (a node's name is a DNS subdomain), else
    one no NotIn names."""
    if key != NAME_FIELD:
        return [""]
    listed = [r.values for r in requirements if r.operator == "In"]
    if listed:
        return [value for value in dict.fromkeys(min(listed, key=len)) if not dns1123_subdomain_problem(value)]
    taken = {value for requirement in requirements for value in requirement.values}
    return [next(f"node-{i}" for i in range(len(taken) + 1) if f"node-{i}" not in taken)]


def _meet(requirements: list[Requirement], candidates) -> tuple[dict | None, list[Requirement]]:
    """{key: the value that meets every requirement on it}, or None and the requirements on a key none meets."""
    by_key: dict[str, list[Requirement]] = {}
    for requirement in requirements:
        by_key.setdefault(requirement.key, []).append(requirement)
    chosen = {}
    for key, on_key in by_key.items():
        found = next((value for value in candidates(key, on_key) if all(r.holds(value) for r in on_key)), _NONE)
        if found is _NONE:
            return None, on_key
        chosen[key] = found
    return chosen, []


_NONE = object()


def parse_term(term: dict, source: str, path: tuple) -> tuple[list[Requirement], list[Requirement], str]:
    """A required term's label and field requirements as the scheduler parses them; a reason instead (third)
    when it matches no node whatever its labels (empty, or not parsed)."""
    labels, fields = [], []
    expressions, matched_fields = as_list(term.get("matchExpressions")), as_list(term.get("matchFields"))
    if not expressions and not matched_fields:
        return [], [], f"{source} is empty, and an empty term matches no node"
    for at, expression in enumerate(expressions):
        requirement, why = _label_requirement(as_map(expression), path + ("matchExpressions", at), source)
        if requirement is None:
            return [], [], f"{why}, so the scheduler never matches the term"
        labels.append(requirement)
    for at, expression in enumerate(matched_fields):
        requirement, why = _field_requirement(as_map(expression), path + ("matchFields", at), source)
        if requirement is None:
            return [], [], f"{why}, so the scheduler never matches the term"
        fields.append(requirement)
    return labels, fields, ""


def _judge(selector: list[Requirement], term: dict | None, index: int | None, path: tuple) -> Verdict:
    verdict = Verdict(index, path)
    source = f"term {index}"
    labels, fields = list(selector), []
    if term is not None:
        term_labels, fields, verdict.why = parse_term(term, source, path)
        if verdict.why:
            return verdict
        labels += term_labels
    verdict.labels = labels
    chosen, blame = _meet(labels, _label_candidates)
    if chosen is None:
        verdict.why = f"{source}: {blame[0].key} cannot be " + " and ".join(r.describe(source) for r in blame)
        verdict.blame = blame
        return verdict
    named, blame = _meet(fields, _field_candidates)
    if named is None:
        verdict.why = f"{source}: a node's {blame[0].key} cannot be " + " and ".join(r.describe(source) for r in blame)
        verdict.blame = blame
        return verdict
    verdict.witness = ({key: value for key, value in chosen.items() if value is not None},
                       named.get(NAME_FIELD, "node-0"))
    return verdict


def selector_requirements(pod: PodSettings) -> list[Requirement]:
    """The node selector's entries as requirements; one whose value is no string is the schema's to report."""
    path = pod.field_path("nodeSelector")
    return [Requirement(str(key), "Equals", [value], path + (key,), "nodeSelector")
            for key, value in pod.node_selector.items() if isinstance(value, str)]


def required_terms(pod: PodSettings) -> list[tuple[dict, tuple]] | None:
    """The required node affinity's terms with their paths; None when the pod has none (any node will do)."""
    required = as_map(pod.affinity.get("nodeAffinity")).get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(required, dict):
        return None
    path = pod.field_path("affinity") + ("nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                                         "nodeSelectorTerms")
    return [(as_map(term), path + (index,)) for index, term in enumerate(as_list(required.get("nodeSelectorTerms")))]


def term_verdicts(pod: PodSettings) -> list[Verdict]:
    """One verdict per required term (the node selector with each), or one for the node selector alone when
    the pod has no required node affinity. The pod fits some node when one verdict has a witness."""
    selector, terms = selector_requirements(pod), required_terms(pod)
    if terms is None:
        return [_judge(selector, None, None, pod.field_path("nodeSelector"))]
    return [_judge(selector, term, index, path) for index, (term, path) in enumerate(terms)]


@dataclass
class Admitted:
    """The values of one label a node that takes the pod may carry, and the field that first says so."""

    values: list[str]  # empty: no node can take the pod
    path: tuple


def _written(selector: list[Requirement], terms: list[tuple[dict, tuple]] | None, key: str) -> list[tuple]:
    """Where the node selector and the terms name the label `key`, in order (an In's path ends at its values)."""
    paths = [r.path for r in selector if r.key == key]
    for term, path in terms or ():
        for at, expression in enumerate(as_list(term.get("matchExpressions"))):
            expression = as_map(expression)
            if as_str(expression.get("key")) == key:
                values = ("values",) if expression.get("operator") == "In" else ()
                paths.append(path + ("matchExpressions", at) + values)
    return paths


def admitted_values(pod: PodSettings, key: str) -> Admitted | None:
    """The values of label `key` on the nodes that can take the pod: a value is admitted when some live term
    (one a node can meet), together with the node selector, admits it. None when the pod does not bound them:
    neither the node selector nor any term names the key, or a live term leaves it open (names it not at all,
    or with no In: NotIn, Exists, Gt, Lt alone). A live term that requires the label absent admits no value
    (and when no live term admits one, the pod lands on unlabelled nodes only: None too). Empty values: no
    node can take the pod."""
    selector, terms = selector_requirements(pod), required_terms(pod)
    written = _written(selector, terms, key)
    if not written:
        return None
    values: dict[str, None] = {}
    where, unlabelled = None, False
    for verdict in term_verdicts(pod):
        if verdict.witness is None:
            continue  # no node meets this term: what it names is nobody's to get
        on_key = [r for r in verdict.labels if r.key == key]
        listed = [r for r in on_key if r.operator in ("In", "Equals")]
        if not listed:
            if any(value is not None for value in _label_candidates(key, on_key)
                   if all(r.holds(value) for r in on_key)):
                return None  # the term leaves the label open
            unlabelled = True  # it takes only nodes without the label
            continue
        values.update(dict.fromkeys(value for value in listed[0].values if not label_value_problem(value)
                                    and all(r.holds(value) for r in on_key)))
        where = where or (listed[0].path + (("values",) if listed[0].operator == "In" else ()))
    if not values and unlabelled:
        return None  # nodes without the label only: which value they would have had, nothing says
    return Admitted(list(values), where or written[0])
