"""node-affinity-unsatisfiable's reading of a pod (rules/placement.py) and preflight's reading of a node: one
verdict per required term, or why a given node refuses the pod. The scheduler's matching itself (requirement
parsing, each term's satisfiability and its witness node) is read in dgdlint/node_selection.py."""

from __future__ import annotations

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


def node_refusal(pod: PodSettings, labels: dict, name: str) -> list[str]:
    """Why the scheduler's node affinity filter keeps the pod off a node with these labels and this name (empty:
    it admits the pod there)."""
    def label(key: str) -> str | None:
        return as_str(labels.get(key)) if key in labels else None

    unmet = [r for r in selector_requirements(pod) if not r.holds(label(r.key))]
    if unmet:
        return [f"no label {r.key}={r.values[0]}" for r in unmet]
    terms = required_terms(pod)
    if terms is None:
        return []
    reasons = []
    for index, (term, path) in enumerate(terms):
        term_labels, fields, why = parse_term(term, f"term {index}", path)
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
