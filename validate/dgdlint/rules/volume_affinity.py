"""Whether any node can take a pod together with the PersistentVolumes its claims bind to, decided as the
scheduler's VolumeBinding filter decides it (k8s.io/component-helpers storage/volume CheckNodeAffinity, with
the node affinity matching of scheduling/corev1): a node must meet the pod's node selector and one term of
its required node affinity, and, for each volume, one term of the volume's `spec.nodeAffinity.required`.

The volume's terms are matched against a node made of the real node's labels alone: it has no name, and
the matching code checks a term's matchFields only against a node with one, so a volume's matchFields
(`metadata.name In [node-1]`) hold on every node once parsed (In or NotIn, one value). A pod term and one
term of each volume hold on one node exactly when the term joining their label requirements (and the pod
term's field requirements) does, as a term is the conjunction of its requirements; so each such joined
term is decided by node_affinity.py's exact reading, which also gives a witness node. A term that matches
no node alone (empty, unparsed, self-contradicting) is left out before joining; a volume none of whose
terms any node meets is unusable by every pod. A volume of an in-tree source that the scheduler may
translate to CSI first (TRANSLATED_SOURCES; the node affinity's keys then change with the node) is not
judged."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from dgdlint.model import KObject, PodSettings, as_list, as_map, as_str
from dgdlint.node_selection import Requirement, Verdict
from dgdlint.rules.node_affinity import TERMS_SHOWN, node_refusal, node_verdicts

REQUIRED = ("spec", "nodeAffinity", "required", "nodeSelectorTerms")
# In-tree volume sources the scheduler may translate to their CSI driver's before matching (csi-translation-lib,
# on nodes whose CSINode says the plugin is migrated), which rewrites the node affinity's topology keys.
TRANSLATED_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "cinder", "azureDisk", "azureFile",
                      "vsphereVolume", "portworxVolume")
MOST_JOINED = 4096  # joined terms tried at most for one pod; beyond, the pod is left undecided


@dataclass
class VolumeTerms:
    """A volume's required node affinity as the scheduler reads it: the terms some node can meet (index,
    label requirements as written), and why each other term matches no node."""

    volume: KObject
    terms: list[tuple[int, list]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def _terms_alone(volume: KObject, terms: list[dict]) -> PodSettings:
    """A pod whose required terms are these (its node selector empty), for node_verdicts to judge."""
    spec = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                          {"nodeSelectorTerms": terms}}}}
    return PodSettings(volume, (), spec)


def _field_parses(expression: object) -> bool:
    """Whether the scheduler parses a matchField (In or NotIn, one value). Parsed, it is never checked against
    the node the volume is matched with, which has no name and so no fields to check."""
    expression = as_map(expression)
    operator, values = as_str(expression.get("operator")), as_list(expression.get("values"))
    return operator in ("In", "NotIn") and len(values) == 1 and isinstance(values[0], str)


def _required(volume: KObject) -> dict | None:
    """The volume's required node affinity as the scheduler matches it, None for a volume it may translate."""
    spec = as_map(volume.value.get("spec"))
    if any(spec.get(source) is not None for source in TRANSLATED_SOURCES):
        return None
    return as_map(as_map(spec.get("nodeAffinity")).get("required"))


def volume_terms(volume: KObject) -> VolumeTerms | None:
    """The volume's required terms judged one by one; None when it has no required node affinity (or none
    the API server keeps: persistent-volume-invalid's), or is of a source the scheduler may translate."""
    terms = as_list((_required(volume) or {}).get("nodeSelectorTerms"))
    if not terms:
        return None
    read = VolumeTerms(volume)
    written = [as_map(term) for term in terms]
    labels_only = [{"matchExpressions": as_list(term.get("matchExpressions"))} if term.get("matchExpressions")
                   else {} for term in written]
    verdicts = node_verdicts(_terms_alone(volume, labels_only))
    for index, (term, verdict) in enumerate(zip(written, verdicts, strict=True)):
        expressions, fields = as_list(term.get("matchExpressions")), as_list(term.get("matchFields"))
        unparsed = next((f for f in fields if not _field_parses(f)), None)
        if not expressions and not fields:
            read.refused.append(f"term {index} is empty, and an empty term matches no node")
        elif unparsed is not None:
            read.refused.append(f"term {index}: matchFields {_field_text(unparsed)} is not In or NotIn with one "
                                "value, so the scheduler never matches the term")
        elif not expressions:  # fields alone, never checked: the term holds on every node
            read.terms.append((index, []))
        elif verdict.witness is None:
            read.refused.append(verdict.why)
        else:
            read.terms.append((index, expressions))
    return read


def _field_text(expression: object) -> str:
    expression = as_map(expression)
    values = ", ".join(str(v) for v in as_list(expression.get("values")))
    return f"{as_str(expression.get('key')) or ''} {as_str(expression.get('operator')) or ''} [{values}]"


@dataclass
class Joint:
    """A pod and its volumes judged together: a witness node (labels, name) that takes the pod with them
    all, else up to TERMS_SHOWN explanations of joined terms no node meets, of `tried` in all."""

    witness: tuple[dict, str] | None = None
    why: list[str] = field(default_factory=list)
    tried: int = 0


def _pod_terms(pod: PodSettings, verdicts: list[Verdict]) -> list[tuple[int | None, dict]]:
    """The pod's required terms some node meets with its node selector (index, term); [(None, {})] when it
    has no required node affinity."""
    if verdicts and verdicts[0].index is None:
        return [(None, {})]
    written = as_list(as_map(as_map(pod.affinity.get("nodeAffinity")).get(
        "requiredDuringSchedulingIgnoredDuringExecution")).get("nodeSelectorTerms"))
    return [(v.index, as_map(written[v.index])) for v in verdicts if v.witness is not None]


def _origin(requirement: Requirement, pod_index: int | None, spans: list[tuple[int, str, int]]) -> str:
    """Where a requirement of a joined term is written: the node selector, the pod's term, or a volume's."""
    if requirement.source == "nodeSelector":
        return "the pod's nodeSelector"
    at = requirement.path[-1] if requirement.path[-2:-1] == ("matchExpressions",) else -1
    for start, name, index in reversed(spans):
        if at >= start >= 0:
            return f"{name}'s term {index}"
    return f"the pod's term {pod_index}"


def _explain(verdict: Verdict, pod_index: int | None, spans: list) -> str:
    """Why no node meets a joined term: the requirements on one key that clash, each with where it is written."""
    if not verdict.blame:
        return verdict.why
    parts = [f"{r.describe(r.source)} ({_origin(r, pod_index, spans)})" for r in verdict.blame]
    first = verdict.blame[0]
    subject = f"a node's {first.key}" if first.path[-2:-1] == ("matchFields",) else first.key
    return f"{subject} cannot be " + " and ".join(parts)


def joint_verdict(pod: PodSettings, volumes: list[VolumeTerms]) -> Joint | None:
    """The pod with these volumes (each with a term some node meets), judged together; None when the pod
    alone fits no node (node-affinity-unsatisfiable's) or there are too many joined terms to try."""
    alone = node_verdicts(pod)
    if not alone or all(verdict.witness is None for verdict in alone):
        return None
    pod_terms = _pod_terms(pod, alone)
    choices = [[(v.volume.name, index, expressions) for index, expressions in v.terms] for v in volumes]
    count = len(pod_terms)
    for options in choices:
        count *= len(options)
    if count > MOST_JOINED or count == 0:
        return None
    joint = Joint()
    for (pod_index, term), picked in itertools.product(pod_terms, itertools.product(*choices)):
        expressions = list(as_list(term.get("matchExpressions")))
        spans = []
        for name, index, volume_expressions in picked:
            spans.append((len(expressions), name, index))
            expressions += volume_expressions
        fields = as_list(term.get("matchFields"))
        spec = dict(pod.spec)
        if expressions or fields:
            joined = {"matchExpressions": expressions} if expressions else {}
            if fields:
                joined["matchFields"] = fields
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                                 {"nodeSelectorTerms": [joined]}}}
        else:
            spec.pop("affinity", None)
        verdict = node_verdicts(PodSettings(pod.obj, pod.path, spec))[0]
        joint.tried += 1
        if verdict.witness is not None:
            return Joint(witness=verdict.witness, tried=joint.tried)
        if len(joint.why) < TERMS_SHOWN:
            joint.why.append(_explain(verdict, pod_index, spans))
    return joint


def volume_refusal(volume: KObject, labels: dict) -> list[str]:
    """Why the VolumeBinding filter keeps a pod whose claim is bound to `volume` off a node with these labels
    (empty: it does not): the volume's terms read by node_affinity.node_refusal against a node without a
    name, a term's parsed matchFields left out as the scheduler leaves them unchecked."""
    required = _required(volume)
    if required is None or "nodeSelectorTerms" not in required:
        return []
    kept = []
    for term in as_list(required.get("nodeSelectorTerms")):
        term = as_map(term)
        fields = as_list(term.get("matchFields"))
        if fields and all(_field_parses(f) for f in fields):
            if not as_list(term.get("matchExpressions")):
                return []  # fields alone, never checked: the term holds on every node
            term = {"matchExpressions": term["matchExpressions"]}
        kept.append(term)
    reasons = node_refusal(_terms_alone(volume, kept), labels, "")
    return [reason.replace("required node affinity", f"{volume.label}'s required node affinity", 1)
            for reason in reasons]
