"""What the Dynamo operator's webhook refuses on an update (ValidateUpdate), as rules of `dgdlint diff`.

Each comparison reads the old and new graph through webhook_model and yields plain changes; dgdlint.diff
turns them into findings. Component changes are judged per component name (added, removed and renamed
components are diff-immutable-field's). On an update the webhook does not apply the create-time
runtime-version rule; it lets an unchanged image and override through (the ratchet), so `dgdlint
diff` replaces check's runtime-version-required and main-image-missing on an updated graph by
update-runtime-version."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dgdlint.cosmos import is_semver, runtime_image_tag
from dgdlint.defaulting import WORKLOAD_PROVIDER, stored_provider
from dgdlint.model import as_str
from dgdlint.rules.registry import DiffRule
from dgdlint.rules.webhook_grove import expected_target
from dgdlint.rules.webhook_topology import restart_order_problems
from dgdlint.webhook_component import INTER_POD, ComponentView, Override
from dgdlint.webhook_model import GraphView


def _text(paragraph: str) -> str:
    return " ".join(paragraph.split())


_RECREATE = "Keep it as it was, or delete the DynamoGraphDeployment and create it again (its pods go with it)."

UPDATE_RULES = (
    DiffRule(
        name="update-workload-provider", code="DGD910", severity="error",
        title="The update leaves nvidia.com/workload-provider to the operator",
        rationale=_text("""The operator writes `nvidia.com/workload-provider` when it creates the graph
        (grove, or component with `nvidia.com/enable-grove: "false"`, whatever the manifest says) and its
        webhook refuses any later change: a manifest naming another provider, or removing the one it
        named. Restating the provider the operator wrote is fine."""),
        remediation="Leave the annotation out of the manifest, or keep the value the operator wrote.",
    ),
    DiffRule(
        name="update-provider-override-identity", code="DGD911", severity="error",
        title="A provider override keeps its apiVersion and target",
        rationale=_text("""The operator's webhook refuses an update that changes the `apiVersion` or
        `target` of an existing providerOverride (at the graph, a component or a multinode role); its
        value may change. A target left out counts as the one the operator filled in."""),
        remediation=_RECREATE,
    ),
    DiffRule(
        name="update-replicas-scaling-adapter", code="DGD912", severity="error",
        title="Replicas owned by a scaling adapter are not changed in the manifest",
        rationale=_text("""With a scaling adapter (before or after the update) the component's replicas
        belong to its DynamoGraphDeploymentScalingAdapter; the webhook refuses a manifest that changes
        them (unset counts as 1)."""),
        remediation="Scale through the DynamoGraphDeploymentScalingAdapter, and keep replicas as they were.",
    ),
    DiffRule(
        name="update-topology-constraint", code="DGD913", severity="error",
        title="Topology constraints stay as they were created",
        rationale=_text("""The webhook refuses adding, removing or changing `spec.topologyConstraint`
        (cluster topology and pack domain) or a component's `topologyConstraint` (pack domain)."""),
        remediation=_RECREATE,
    ),
    DiffRule(
        name="update-kv-transfer-policy", code="DGD914", severity="error",
        title="The KV transfer policy stays as it was created",
        rationale=_text("""The webhook refuses adding, removing or changing
        `spec.experimental.kvTransferPolicy` (an unset enforcement counts as `required`)."""),
        remediation=_RECREATE,
    ),
    DiffRule(
        name="update-gpu-memory-service-layout", code="DGD915", severity="error",
        title="The GPU memory service layout, inter-pod failover and forced scaling group stay as created",
        rationale=_text("""These decide which Grove objects a component is made of. The webhook refuses
        switching the inter-pod GPU memory service layout on or off, inter-pod failover on or off, a
        changed number of inter-pod failover shadows, and toggling `grove.forceScalingGroup`. Adding or
        removing an intra-pod GPU memory service is allowed."""),
        remediation=_RECREATE,
    ),
    DiffRule(
        name="update-gpu-power-limit", code="DGD916", severity="error",
        title="The GPU power limit, and the GPU and node counts it was set for, stay as created",
        rationale=_text("""The planner caches per-replica power from `dynamo.nvidia.com/gpu-power-limit`.
        The webhook refuses adding, removing or changing the annotation, and, while it is set, a change
        of the main container's `nvidia.com/gpu` count (limit, else request; other GPU resources do not
        count, and a v1alpha1 gpuType other than nvidia.com/gpu takes it away) or of the multinode node
        count."""),
        remediation=_RECREATE,
    ),
    DiffRule(
        name="update-runtime-version", code="DGD917", severity="error",
        title="An update keeps a main image, and a changed image without a runtime version names one",
        rationale=_text("""On an update the webhook refuses removing a component's main image, and a new
        image or override whose tag is no runtime version while runtimeVersionOverride is unset. An
        image and override left exactly as they were pass even without a semver tag (so a graph created
        before the rule keeps updating). Not checked for a release without runtimeVersionOverride."""),
        remediation="Add `runtimeVersionOverride: \"<dynamo runtime version>\"` with the new image, or keep "
                    "the image and override as they were.",
    ),
    DiffRule(
        name="restart-order-invalid", code="DGD918", severity="error",
        title="A restart order names every component once, for a sequential restart",
        rationale=_text("""`spec.restart` may be set only on an update (the CRD refuses it on create).
        The webhook refuses a `strategy.order` with a Parallel strategy, or one that repeats a component,
        names one the graph does not have, or leaves one out."""),
        remediation="List every component exactly once, or drop the order (and use `type: Parallel` only "
                    "without it).",
    ),
)


@dataclass(frozen=True)
class Change:
    rule: str
    path: tuple  # on the new side
    message: str
    old_path: tuple  # on the old side, for the related location
    old_note: str


def _pairs(old: GraphView, new: GraphView) -> Iterator[tuple[ComponentView, ComponentView]]:
    before = {c.component.name: c for c in old.components}
    for component in new.components:
        if component.component.name in before:
            yield before[component.component.name], component


def _shown(value) -> str:
    return "unset" if value is None else repr(value)


def workload_provider(old: GraphView, new: GraphView):
    """validateObjectMetaUpdate: the provider stored at create cannot change or go. Stored is what the old
    manifest names, else what the defaulting webhook wrote from its nvidia.com/enable-grove; a new
    manifest may restate it."""
    before, after = old.annotation(WORKLOAD_PROVIDER), new.annotation(WORKLOAD_PROVIDER)
    stored = stored_provider(old.obj)
    old_path, old_note = (before.path, f"before: {before.text}") if before is not None else \
        (("metadata",), f"the operator wrote {stored!r} at create")
    if after is not None and after.text != stored:
        yield Change("update-workload-provider", after.path,
                     f"{new.obj.label}: {WORKLOAD_PROVIDER} changes from {stored!r} to {after.text!r}; it "
                     "cannot change once set", old_path, old_note)
    elif after is None and before is not None:
        # kubectl apply removes an annotation the last applied manifest had and the new one has not
        yield Change("update-workload-provider", ("metadata", "annotations"),
                     f"{new.obj.label}: the update removes {WORKLOAD_PROVIDER} ({before.text!r}); it cannot "
                     "change once set", old_path, old_note)


def _identity(override: Override, component: ComponentView | None) -> tuple:
    return override.api_version, override.target or expected_target(override, component)[0]


def provider_override_identity(old: GraphView, new: GraphView):
    pairs = [(old.provider_override, new.provider_override, None, None)]
    for before, after in _pairs(old, new):
        pairs.append((before.provider_override, after.provider_override, before, after))
        roles = {o.scope: o for o in before.role_overrides()}
        pairs += [(roles.get(o.scope), o, before, after) for o in after.role_overrides()]
    for was, now, before, after in pairs:
        if was is None or now is None:
            continue
        old_id, new_id = _identity(was, before), _identity(now, after)
        for index, field in enumerate(("apiVersion", "target")):
            if old_id[index] != new_id[index]:
                owner = after.component.label if after else new.obj.label
                yield Change("update-provider-override-identity", now.path + (field,),
                             f"{owner}: providerOverride {field} changes from {_shown(old_id[index])} to "
                             f"{_shown(new_id[index])}; it is immutable", was.path + (field,),
                             f"before: {old_id[index]}")


def replicas_with_adapter(old: GraphView, new: GraphView):
    for before, after in _pairs(old, new):
        if (before.scaling_adapter or after.scaling_adapter) and before.replicas != after.replicas:
            yield Change("update-replicas-scaling-adapter", after.field("replicas").path,
                         f"{after.component.label}: replicas change from {before.replicas} to {after.replicas} "
                         "while a scaling adapter owns them", before.field("replicas").path,
                         f"before: {before.replicas}")


def _constraint(view_value, keys) -> tuple | None:
    if not isinstance(view_value.value, dict):
        return None
    return tuple(as_str(view_value.value.get(key)) or "" for key in keys)


def topology_constraints(old: GraphView, new: GraphView):
    keys = ("topologyProfile" if new.alpha else "clusterTopologyName", "packDomain")
    old_keys = ("topologyProfile" if old.alpha else "clusterTopologyName", "packDomain")
    pairs = [(_constraint(old.topology_constraint, old_keys), _constraint(new.topology_constraint, keys),
              new.topology_constraint.path, old.topology_constraint.path, new.obj.label)]
    for before, after in _pairs(old, new):
        pairs.append((_constraint(before.topology_constraint, ("packDomain",)),
                      _constraint(after.topology_constraint, ("packDomain",)),
                      after.topology_constraint.path, before.topology_constraint.path, after.component.label))
    for was, now, path, old_path, owner in pairs:
        if was != now:
            verb = "is added" if was is None else "is removed" if now is None else "changes"
            yield Change("update-topology-constraint", path, f"{owner}: topologyConstraint {verb}; it is immutable "
                         "after creation", old_path, "before: " + ("unset" if was is None else "/".join(was)))


def _policy(view: GraphView) -> tuple | None:
    policy = view.kv_transfer_policy.value
    if not isinstance(policy, dict):
        return None
    return (as_str(policy.get("clusterTopologyName")) or "", as_str(policy.get("labelKey")) or "",
            as_str(policy.get("domain")) or "", as_str(policy.get("enforcement")) or "required",
            policy.get("preferredWeight"))


def kv_transfer_policy(old: GraphView, new: GraphView):
    was, now = _policy(old), _policy(new)
    if was != now:
        verb = "is added" if was is None else "is removed" if now is None else "changes"
        yield Change("update-kv-transfer-policy", new.kv_transfer_policy.path,
                     f"{new.obj.label}: kvTransferPolicy {verb}; it is immutable after creation",
                     old.kv_transfer_policy.path, "the policy before")


def gms_layout(old: GraphView, new: GraphView):
    rule = "update-gpu-memory-service-layout"
    for before, after in _pairs(old, new):
        label = after.component.label
        if before.inter_pod_gms != after.inter_pod_gms:
            yield Change(rule, after.experimental_path("gpuMemoryService") + ("mode",),
                         f"{label}: the inter-pod GPU memory service layout is switched "
                         f"{'on' if after.inter_pod_gms else 'off'}; it cannot be toggled after creation",
                         before.experimental_path("gpuMemoryService"), "the layout before")
        was, now = before.failover_mode == INTER_POD, after.failover_mode == INTER_POD
        if was != now:
            yield Change(rule, after.experimental_path("failover"), f"{label}: inter-pod failover is switched "
                         f"{'on' if now else 'off'}; it cannot be toggled after creation",
                         before.experimental_path("failover"), "failover before")
        elif was and before.num_shadows != after.num_shadows:
            yield Change(rule, after.experimental_path("failover") + ("numShadows",),
                         f"{label}: inter-pod failover shadows change from {before.num_shadows} to "
                         f"{after.num_shadows}; immutable after creation",
                         before.experimental_path("failover") + ("numShadows",), f"before: {before.num_shadows}")
        if before.forced_scaling_group != after.forced_scaling_group:
            yield Change(rule, after.force_scaling_group.path, f"{label}: grove.forceScalingGroup is toggled; it "
                         "cannot change after creation", before.force_scaling_group.path,
                         f"before: {before.forced_scaling_group}")


def power_limit(old: GraphView, new: GraphView):
    rule = "update-gpu-power-limit"
    for before, after in _pairs(old, new):
        label = after.component.label
        was, now = before.power_limit, after.power_limit
        if (was is None) != (now is None) or (was is not None and was.text != now.text):
            yield Change(rule, now.path if now else after.pod_annotations_path,
                         f"{label}: the GPU power limit changes from {_shown(was.text if was else None)} to "
                         f"{_shown(now.text if now else None)}; it is immutable",
                         was.path if was else before.pod_annotations_path, "the power limit before")
        if was is None:
            continue
        gpus_before, gpus_after = before.power_gpu_quantity, after.power_gpu_quantity
        if gpus_before.value != gpus_after.value:
            yield Change(rule, gpus_after.path, f"{label}: the main container's nvidia.com/gpu changes from "
                         f"{_shown(gpus_before.value)} to {_shown(gpus_after.value)} under a GPU power limit",
                         gpus_before.path, f"before: {gpus_before.value}")
        if before.node_count != after.node_count:
            yield Change(rule, after.field("multinode", "nodeCount").path, f"{label}: the node count changes from "
                         f"{before.node_count} to {after.node_count} under a GPU power limit",
                         before.field("multinode", "nodeCount").path, f"before: {before.node_count}")


def _main_image(component: ComponentView) -> str:
    return (component.component.main.image or "") if component.main_declared else ""


def _runtime_version_required(image: str, override: str | None) -> bool:
    if override:
        return False
    return not is_semver(runtime_image_tag(image) if image else None)


def runtime_version(old: GraphView, new: GraphView, release):
    if not release.has_field(new.obj.version, new.component_schema_path("runtimeVersionOverride")):
        return
    for before, after in _pairs(old, new):
        image_before, image_after = _main_image(before), _main_image(after)
        override_before = before.component.runtime_version_override or ""
        override_after = after.component.runtime_version_override or ""
        label = after.component.label
        if not image_after and image_before:
            yield Change("update-runtime-version", after.component.main.path,
                         f"{label}: the update removes the main image", before.component.main.image_path,
                         f"before: {image_before}")
        elif _runtime_version_required(image_after, override_after) and \
                (image_after != image_before or override_after != override_before):
            what = f"the image changes to {image_after!r}, whose tag is no runtime version, without " \
                "runtimeVersionOverride" if image_after != image_before else \
                f"runtimeVersionOverride changes from {override_before!r} to {override_after or 'unset'!r}, and the " \
                f"tag of {image_after!r} is no runtime version"
            yield Change("update-runtime-version", after.component.main.image_path, f"{label}: {what}",
                         before.component.main.image_path,
                         f"before: {image_before or 'unset'}")


def restart_order(old: GraphView, new: GraphView):
    for path, problem in restart_order_problems(new):
        yield Change("restart-order-invalid", path, problem, ("spec",), "the graph before")


def update_changes(old: GraphView, new: GraphView, release) -> Iterator[Change]:
    """Everything the webhook refuses about updating `old` to `new` (beyond diff-immutable-field)."""
    for compare in (workload_provider, provider_override_identity, replicas_with_adapter, topology_constraints,
                    kv_transfer_policy, gms_layout, power_limit, restart_order):
        yield from compare(old, new)
    yield from runtime_version(old, new, release)


REPLACED_ON_UPDATE = ("runtime-version-required", "main-image-missing")

