"""Placement: a pod whose node selector and required node affinity no node can meet together stays Pending
for ever. The API server takes it (each part is valid alone); the scheduler finds no node, and for a GPU
worker the usual cause is a product written one way in the node selector and another in the affinity
(values from two places, the chart's and an overlay's). Decided exactly in node_affinity.py."""

from __future__ import annotations

from dgdlint.model import Model
from dgdlint.rules.node_affinity import TERMS_SHOWN, node_verdicts
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.scheduling import node_selection_problems


@rule(
    name="node-affinity-unsatisfiable", code="DGD805", severity="error", family="gpu",
    title="Some node can meet a pod's node selector and required node affinity together",
    rationale="""The scheduler places a pod only on a node whose labels meet its node selector and at least
    one term of its required node affinity. When every term contradicts the node selector or itself (the GPU
    product selected as one product and required In a list without it; a label required to exist and not
    to; a Gt/Lt range with no integer in it; a Gt or Lt value that is no integer, such as a driver version
    `535.104`, which the scheduler cannot parse; a term with no expressions), no node can ever take the
    pod, whatever the cluster: the API server accepts it and it stays Pending. A DynamoGraphDeployment's
    component is judged on the pod settings the operator copies into its pods; a DaemonSet gets no pod at
    all (its controller makes pods only for the nodes they fit) rather than Pending ones.""",
    remediation="Make the node selector and one affinity term agree (select the GPU product in one place "
                "only), and compare Gt/Lt with integer labels such as nvidia.com/gpu.count.",
    reads=("pod specs of Job, CronJob, Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet",
           "DynamoGraphDeployment component pod settings (nodeSelector, affinity)"),
)
def node_affinity_unsatisfiable(model: Model):
    for owner in model.pod_owners():
        obj, pod, label = owner.obj, owner.pod, owner.label
        if next(node_selection_problems(pod), None) is not None:
            continue  # the API server refuses it: scheduling-spec-invalid says why
        verdicts = node_verdicts(pod)
        if not verdicts or any(verdict.witness is not None for verdict in verdicts):
            continue
        first = verdicts[0]
        related = [obj.location(r.path, "the node selector's entry") for verdict in verdicts
                   for r in verdict.blame if r.source == "nodeSelector"][:1]
        path = first.blame[-1].path if first.blame else first.path
        said = "; ".join(verdict.why for verdict in verdicts[:TERMS_SHOWN])
        if len(verdicts) > TERMS_SHOWN:
            said += f"; and {len(verdicts) - TERMS_SHOWN} more terms, none of which a node can meet either"
        yield Hit(obj, path, f"{label}: no node can take it: {said}", related=related)
