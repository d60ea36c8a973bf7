"""node-affinity-unsatisfiable's reading of a pod (rules/placement.py) and preflight's reading of a node: one
verdict per required term, or why a given node refuses the pod. The scheduler's matching itself (requirement
parsing, each term's satisfiability and its witness node) is read in dgdlint/node_selection.py."""

from __future__ import annotations

from collections.abc import Callable

from dgdlint.model import PodSettings, as_str
from dgdlint.node_selection import (
    NAME_FIELD,
    Verdict,
    parse_term,
    required_terms,
    selector_requirements,
    term_verdicts,
)

TERMS_SHOWN = 4  # terms a message explains


def node_verdicts(pod: PodSettings) -> list[Verdict]:
    """One verdict per required term (the node selector with each), or one for the node selector alone when
    the pod has no required node affinity; none when a node selector's value is no string. The pod fits some
    node when one verdict has a witness."""
    if not all(isinstance(value, str) for value in pod.node_selector.values()):
        return []  # the schema's to report: the scheduler never reads such a pod
    return term_verdicts(pod)


def node_filter(pod: PodSettings) -> Callable[[dict, str], list[str]]:
    """node_refusal for one pod and many nodes: the pod's node selector and terms are read once, and the
    function returned says why a node with these labels and this name refuses it (empty: it admits it)."""
    selector = selector_requirements(pod)
    terms = required_terms(pod)
    parsed = None if terms is None else [(index, *parse_term(term, f"term {index}", path))
                                         for index, (term, path) in enumerate(terms)]

    def refusal(labels: dict, name: str) -> list[str]:
        def label(key: str) -> str | None:
            return as_str(labels.get(key)) if key in labels else None

        unmet = [r for r in selector if not r.holds(label(r.key))]
        if unmet:
            return [f"no label {r.key}={r.values[0]}" for r in unmet]
        if parsed is None:
            return []
        reasons = []
        for index, term_labels, fields, why in parsed:
            if why:
                reasons.append(why)
                continue
            failed = [r for r in term_labels if not r.holds(label(r.key))]
            failed += [r for r in fields if not r.holds(name if r.key == NAME_FIELD else "")]
            if not failed:
                return []
            reasons.append(f"term {index}: {failed[0].key} is not {failed[0].describe(f'term {index}')}")
        if not reasons:
            return ["required node affinity has no terms"]
        more = f"; and {len(reasons) - TERMS_SHOWN} more terms" if len(reasons) > TERMS_SHOWN else ""
        return ["required node affinity unmet (" + "; ".join(reasons[:TERMS_SHOWN]) + more + ")"]

    return refusal


def node_refusal(pod: PodSettings, labels: dict, name: str) -> list[str]:
    """Why the scheduler's node affinity filter keeps the pod off a node with these labels and this name (empty:
    it admits the pod there)."""
    return node_filter(pod)(labels, name)
