"""The plan: what a set of manifests will ask of the cluster, before it is applied.

Per DynamoGraphDeployment component and per workload (the download Job above all): pods, GPUs (resource,
count per pod, product when a `nvidia.com/gpu.product` selector names one), CPU, memory, shared memory,
images, streaming endpoint and the claims it mounts with their sizes; then totals over every pod; then
the findings of the GPU fit rules (and of parsing, and of the schema stage when a CRD is given).

How the numbers are counted:
- A pod's request for a resource is what the scheduler reserves: the larger of its containers' sum
  (sidecar init containers included) and its largest init container, a request defaulting to the limit
  when only a limit is set. Limits follow the same rule and are unbounded when a container has none.
- A DGD component has replicas x nodes pods (a multi-node component asks for its GPUs on each node); a
  Job has `parallelism` pods at once (at most `completions`); Deployments, StatefulSets and ReplicaSets
  their replicas; a Pod one. A DaemonSet's pod count depends on the cluster and is not counted.
- Totals count every pod of every component and workload as if all ran at once: the peak of a gated
  download (workers wait holding their GPUs) and of an upgrade (the download hook runs beside the old
  workers). A first install runs the pre-install hooks before the rest (plan.phases): it needs the larger
  of the two phases. The totals without Jobs are the steady state.
- Helm test hooks (`helm.sh/hook: test`) are left out: installing or applying never creates them."""


from dgdlint.plan.build import (
    DASH,
    ClaimPlan,
    ClaimUse,
    GraphPlan,
    Part,
    Plan,
    Totals,
    build_plan,
    component_part,
    in_plan_scope,
    is_helm_test_hook,
    workload_part,
)
from dgdlint.plan.resources import PodResources, pod_resources

__all__ = ["DASH", "ClaimPlan", "ClaimUse", "GraphPlan", "Part", "Plan", "PodResources", "Totals", "build_plan",
           "component_part", "in_plan_scope", "is_helm_test_hook", "pod_resources", "workload_part"]
