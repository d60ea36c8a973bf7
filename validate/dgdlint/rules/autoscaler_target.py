"""A HorizontalPodAutoscaler aimed at something that cannot be scaled: the API server stores it, and the
autoscaler controller then fails to read the target's scale subresource on every pass (FailedGetScale),
so nothing is ever scaled.

What has a scale subresource: of Kubernetes' workloads, Deployments, ReplicaSets, StatefulSets and
ReplicationControllers (not DaemonSets, Jobs, CronJobs or Pods); of the Dynamo operator's kinds, only the
DynamoGraphDeploymentScalingAdapter (its CRDs give the DynamoGraphDeployment and the
DynamoComponentDeployment a status subresource and no scale). Other custom kinds are not judged.

A component under a scaling adapter whose manifest still states replicas: the next apply resets the
autoscaler's count, which the operator's webhook refuses."""

from __future__ import annotations

from dgdlint.model import DYNAMO_GROUP, Model, api_group, as_map, as_str
from dgdlint.rules.registry import Hit, rule
from dgdlint.webhook_model import graph_views

SCALING_ADAPTER = "DynamoGraphDeploymentScalingAdapter"
# Kinds whose API has no scale subresource, by group.
UNSCALABLE = {
    "apps": {"DaemonSet"},
    "batch": {"Job", "CronJob"},
    "": {"Pod", "Service", "ConfigMap", "Secret", "PersistentVolumeClaim"},
    DYNAMO_GROUP: {"DynamoGraphDeployment", "DynamoComponentDeployment", "DynamoGraphDeploymentRequest",
                   "DynamoModel"},
}


@rule(
    name="autoscaler-target-unscalable", code="DGD508", severity="warning", family="hygiene",
    title="An autoscaler's target can be scaled",
    rationale="""The API server takes a HorizontalPodAutoscaler whatever kind its scaleTargetRef names, but
    the autoscaler can only scale a kind with a scale subresource. A DynamoGraphDeployment has none (nor
    does a DynamoComponentDeployment): its components are scaled through a
    DynamoGraphDeploymentScalingAdapter, which the operator creates for a component with a scaling adapter.
    A DaemonSet, Job, CronJob or Pod has none either. The autoscaler then reports FailedGetScale on every
    pass and never changes a replica count.""",
    remediation="Enable the component's scaling adapter (v1alpha1 scalingAdapter.enabled: true, v1beta1 "
                "scalingAdapter: {}) and point scaleTargetRef at the DynamoGraphDeploymentScalingAdapter "
                "(apiVersion nvidia.com/v1alpha1); for a built-in workload, at its Deployment or StatefulSet.",
    reads=("HorizontalPodAutoscaler",),
)
def autoscaler_target_unscalable(model: Model):
    for obj in model.objects:
        if obj.kind != "HorizontalPodAutoscaler" or obj.group != "autoscaling":
            continue
        target = as_map(as_map(obj.value.get("spec")).get("scaleTargetRef"))
        kind, group = as_str(target.get("kind")), api_group(as_str(target.get("apiVersion")) or "")
        if kind is None or kind not in UNSCALABLE.get(group, ()):
            continue
        advice = f"scale its components through their {SCALING_ADAPTER}s" if group == DYNAMO_GROUP else \
            "point it at a Deployment, ReplicaSet or StatefulSet"
        yield Hit(obj, ("spec", "scaleTargetRef", "kind"),
                  f"{obj.label}: scales a {kind}, which has no scale subresource: the autoscaler cannot read or "
                  f"change its replicas (FailedGetScale); {advice}")


@rule(
    name="replicas-beside-scaling-adapter", code="DGD509", severity="warning", family="hygiene",
    title="A component under a scaling adapter leaves replicas to it",
    rationale="""With a scaling adapter (v1alpha1 `scalingAdapter.enabled: true`, v1beta1 `scalingAdapter:
    {}`), the component's replica count belongs to its DynamoGraphDeploymentScalingAdapter, which an HPA,
    KEDA or the Planner changes. A manifest that also states `replicas` sets the count back on every
    re-apply (`helm upgrade`, a GitOps sync, `kubectl apply`) once the autoscaler has moved it: the
    operator's webhook refuses that change from anyone but the operator, so the whole update fails (and
    server-side apply reports a conflict with the adapter's field manager). Left out, replicas start at 1.""",
    remediation="Drop `replicas` from a component with a scaling adapter (set the autoscaler's minimum "
                "instead), or drop the scaling adapter.",
)
def replicas_beside_scaling_adapter(model: Model):
    for view in graph_views(model):
        for component in view.components:
            replicas = component.field("replicas")
            if component.scaling_adapter and replicas.present:
                yield Hit(view.obj, replicas.path,
                          f"{component.component.label}: states replicas {replicas.value} beside a scaling adapter "
                          "that owns the count: once an autoscaler has scaled the component, re-applying this "
                          "manifest sets it back, which the operator's webhook refuses")
