"""The operator's conversion records (`nvidia.com/dgd-spec`, `nvidia.com/dgd-status`) in a manifest, read as
the operator reads them (conversion_record.py): that they are set, and what the webhook refuses of them.

On a v1beta1 graph the webhook rebuilds the v1alpha1 view (ConvertFrom) and validates it: the record's
v1alpha1 fields are built into a v1alpha1 graph of their own, and the v1alpha1 rules that model those
checks judge it (the same rules that judge a v1alpha1 manifest). A v1alpha1 graph reaches the webhook
converted (ConvertTo), with the v1beta1 fields of the record restored (hub_restore.py): the webhook
view of the graph is built with them, the v1beta1 rules that read them judge it, and what they refuse
that they do not refuse without the record is the record's. Each finding is reported at the
annotation, naming the field in its JSON."""

from __future__ import annotations

from dgdlint.conversion_record import (
    RECORDS,
    SPEC_RECORD,
    STATUS_RECORD,
    alpha_view,
    hub_services,
    read_spec,
    status_problem,
)
from dgdlint.hub_restore import CONVERTED_VIEWS, RECORD_PATH, RestoredGraphView, converted_view
from dgdlint.model import DGD_KIND, KObject, Model, model_of
from dgdlint.rules.registry import REGISTRY, Hit, rule
from dgdlint.webhook_model import GraphView, graph_views

# The webhook's v1alpha1 checks that read a field the record restores (validatePVCV1alpha1,
# validateIngressSpecV1alpha1, the service annotation and frontendSidecar checks of
# validateDynamoComponentDeploymentSharedSpecV1alpha1), by the rule that models each.
_ALPHA_RULES = ("pvc-name-missing", "ingress-host-missing", "operator-annotation-invalid", "frontend-sidecar-invalid")
# The webhook's v1beta1 checks that a field ConvertTo restores can make refuse: frontendSidecar
# (validateDynamoComponentDeploymentSharedSpec), grove.forceScalingGroup (validateGroveSpec, the Grove name
# budget through UsesPCSG, a component providerOverride's target), a container's resource claims beside
# the GPU power limit, and the containers the GPU memory service's clients name (a restored container
# adds a name, the dropped generated main container takes `main` away).
_HUB_RULES = ("frontend-sidecar-invalid", "grove-pathway-required", "grove-name-budget", "provider-override-invalid",
              "gpu-power-limit-invalid", "gpu-memory-service-invalid")


def record_effect(view: GraphView, key: str, text: str) -> tuple[str, bool]:
    """What the operator does with a conversion record (the finding says it), and whether the record can go
    with nothing the operator would keep lost: it drops or ignores it, restores nothing from it, or it is a
    status (the operator's to write; one that does not decode only gets the graph refused)."""
    if view.alpha:  # ConvertTo: dgd-spec holds v1beta1 fields (restoreDGDHubSpec); dgd-status is dropped
        if key == STATUS_RECORD:
            return "the operator's conversion drops it", True
        record = read_spec(text, "v1beta1")
        if record.unread:
            return f"dgdlint cannot read it ({record.unread})", False
        if record.skipped:
            return f"it does not decode as a v1beta1 spec ({record.skipped}), so the operator ignores it", True
        # a null service converts to no component: nothing is restored into it
        restored = hub_services(record, [component.component.name for component in view.components
                                         if isinstance(view.obj.get(component.path), dict)])
        if not restored:
            return "it holds no v1beta1 fields of this graph's services, so the conversion restores nothing " \
                   "from it", True
        return (f"the conversion restores the v1beta1 fields it holds for {', '.join(restored)} into the object the "
                "webhook validates (operator-conversion-record-refused judges a restored frontendSidecar, "
                "grove.forceScalingGroup and pod template containers)"), False
    if key == STATUS_RECORD:
        problem = status_problem(text)
        return (f"it does not decode as the v1alpha1 status ({problem})" if problem else
                "the operator reads it as the v1alpha1 status"), True
    record = read_spec(text, "v1alpha1")
    if record.unread:
        return f"dgdlint cannot read it ({record.unread})", False
    if record.skipped:
        return f"it does not decode as a v1alpha1 spec ({record.skipped}), so the operator ignores it", True
    return "the webhook restores the v1alpha1 fields it holds and validates them", False


@rule(
    name="operator-conversion-annotation", code="DGD619", severity="warning", family="admission",
    title="The operator's conversion annotations are left to the operator",
    rationale="""The operator keeps the fields one API version of a DynamoGraphDeployment cannot hold in
    `nvidia.com/dgd-spec` and `nvidia.com/dgd-status` on the stored object, and `kubectl get -o yaml`
    shows them. Applied in a manifest, they are read back: on a v1beta1 graph the webhook restores the
    v1alpha1 fields of `dgd-spec` and validates them, and refuses a `dgd-status` that does not decode
    (operator-conversion-record-refused reports both); on a v1alpha1 graph the conversion restores the
    v1beta1 fields of `dgd-spec` into the object the webhook validates (operator-conversion-record-refused
    judges those the webhook reads) and drops `dgd-status`. A `dgd-spec` that does not decode is ignored
    without a word. Either way the graph the operator runs is not the one the manifest shows. The message
    says what the operator does with each record.""",
    remediation="Remove nvidia.com/dgd-spec and nvidia.com/dgd-status from the manifest; write the fields "
                "in the spec instead.",
    fixable="""Removes a record the operator drops or ignores (a v1alpha1 graph's dgd-status, a dgd-spec that
    does not decode or restores nothing) and a dgd-status (the operator's to write). A dgd-spec whose fields
    the operator restores is left for a person: removing it drops them.""",
)
def operator_conversion_annotation(model: Model):
    for view in graph_views(model):
        for key in RECORDS:
            found = view.annotation(key)
            if found is None or not found.text:  # the operator skips an empty one
                continue
            yield Hit(view.obj, found.path, f"{view.obj.label}: annotation {key} is the operator's own conversion "
                                            f"record; {record_effect(view, key, found.text)[0]}")


def _alpha_refusals(view: GraphView, path: tuple, record):
    label = view.obj.label
    alpha = alpha_view(record, {component.component.name: component.raw for component in view.components})
    for name in alpha.null_services:
        yield Hit(view.obj, path, f"{label}: annotation {SPEC_RECORD} holds "
                                  f"{record.json_path(('spec', 'services', name))}: null, a service that is no "
                                  "component of the graph; the v1alpha1 view gets it as a nil service, on which "
                                  "the webhook's validation fails")
    if not alpha.spec:
        return
    restored = KObject.read_from(f"{SPEC_RECORD} of {label}", {
        "apiVersion": "nvidia.com/v1alpha1", "kind": DGD_KIND,
        "metadata": {"name": view.obj.name, "namespace": view.obj.namespace}, "spec": alpha.spec})
    inner_model = model_of([restored])
    for name in _ALPHA_RULES:
        for hit in REGISTRY[name].check(inner_model):
            inner = hit.message.removeprefix(f"{restored.label}: ").removeprefix(f"{restored.label} ")
            yield Hit(view.obj, path, f"{label}: annotation {SPEC_RECORD} holds {record.json_path(hit.path)}, "
                                      f"which the webhook validates in the v1alpha1 view: {inner} ({name})")


def _inner_model(model: Model, obj: KObject, restored: bool) -> Model:
    """A model of one graph, for the release and update the check is for, whose webhook view is the graph
    as written or, `restored`, with the v1beta1 fields the conversion restores (for every rule: a rule
    that reads the converted view reads the same one)."""
    inner = model_of([obj])
    inner.release, inner.stored = model.release, model.stored
    views = [converted_view(graph, inner.release, inner.stored.get(graph.obj.ref)) if restored
             else GraphView(graph, inner.release, inner.stored.get(graph.obj.ref)) for graph in inner.graphs]
    inner.memo("webhook-graph-views", lambda: views)
    inner.memo(CONVERTED_VIEWS, lambda: views)
    return inner


def _cause(record, restored: GraphView, hit_path: tuple) -> str:
    """The record's field behind a refusal found outside it: the component's restored grove, or the pod
    template that has the conversion drop its main container."""
    for component in restored.components:
        if component.hub is not None and hit_path[:len(component.path)] == component.path:
            hub = component.hub
            where = hub.grove.path if hub.grove else hub.spec_path("podTemplate") if hub.main_dropped else \
                hub.spec_path()
            return record.json_path(where[len(RECORD_PATH):])
    first = next((component.hub for component in restored.components if component.hub is not None), None)
    return record.json_path(first.spec_path()[len(RECORD_PATH):]) if first else "v1beta1 fields"


def _dropped_main(restored: GraphView, hit_path: tuple) -> str:
    """A note when the refused component lost its generated main container in the conversion."""
    for component in restored.components:
        hub = component.hub
        if hub is not None and hub.main_dropped and (hit_path[:len(component.path)] == component.path
                                                     or hit_path[:len(hub.spec_path())] == hub.spec_path()):
            return f"; the conversion drops the main container it generates for {component.component.name}, " \
                   "which holds nothing but its name, as the record's pod template has no container main"
    return ""


def _hub_refusals(model: Model, view: GraphView, path: tuple, record):
    restored = _inner_model(model, view.obj, True)
    restored_view = graph_views(restored)[0]
    if not isinstance(restored_view, RestoredGraphView):  # nothing the webhook reads is restored
        return
    plain = _inner_model(model, view.obj, False)
    for name in _HUB_RULES:
        # refused there without the record too (maybe said otherwise: a Grove name shortened anew): not the record's
        seen = {hit.path for hit in REGISTRY[name].check(plain)}
        for hit in REGISTRY[name].check(restored):
            if hit.path in seen:
                continue
            inside = hit.path[:len(RECORD_PATH)] == RECORD_PATH
            where = record.json_path(hit.path[len(RECORD_PATH):]) if inside else _cause(record, restored_view, hit.path)
            yield Hit(view.obj, path, f"{view.obj.label}: annotation {SPEC_RECORD} holds {where}, which the "
                                      f"conversion restores into the object the webhook validates: {hit.message} "
                                      f"({name}){_dropped_main(restored_view, hit.path)}", related=list(hit.related))


@rule(
    name="operator-conversion-record-refused", code="DGD647", severity="error", family="admission",
    title="The operator's conversion records in a manifest pass its webhook",
    rationale="""For a v1beta1 DynamoGraphDeployment the operator's webhook rebuilds the v1alpha1 view
    (alphaDynamoGraphDeploymentForValidation, ConvertFrom) from the object and its conversion records,
    and validates it. `nvidia.com/dgd-spec` gives that view its spec.pvcs and, for each component, the
    service's ingress, annotations and frontendSidecar, so a record with a pvc without a name, an
    enabled ingress without a host or a vLLM executor backend other than mp or ray refuses the graph;
    a null service that is no component makes the validation fail. A `dgd-spec` the operator cannot
    decode into its v1alpha1 type (not JSON, no object, a field of the wrong type) is skipped without a
    word, so it refuses nothing. A `nvidia.com/dgd-status` that does not decode into the v1alpha1
    status refuses the graph ("cannot validate preserved v1alpha1 DynamoGraphDeployment fields").
    A v1alpha1 graph reaches the webhook converted to v1beta1 (ConvertTo), and the conversion restores,
    for each service, v1beta1 fields of the `dgd-spec` component of the same name (the last of a name;
    a record that does not decode as a v1beta1 spec is skipped; `dgd-status` is dropped unread). The
    webhook refuses a restored `frontendSidecar` (given only to a service without a v1alpha1
    frontendSidecar, and only when the record's pod template has no container of that name) that is
    empty, has no pod template or names no container of the pod; a restored
    `experimental.grove.forceScalingGroup: true` (restored beside a converted GPU memory service,
    failover or checkpoint, or alone when the record's experimental block has none of them) off the
    Grove pathway, over the Grove name budget as a scaling group, or against a component
    providerOverride's target; and resource claims of a restored container (one the record adds, or
    the record's `sidecar-frontend` lending its fields to the generated one) beside the GPU power
    limit. Restored containers are the record's with more than a name that the pod lacks. Where the
    record's component has a pod template without a container `main`, the conversion drops the `main`
    container it generated from a service that gives it nothing (no resources, envs, envFromSecret,
    probes, mounts but the compilation cache, or extraPodSpec.mainContainer field but its name): a
    restored frontendSidecar or a GPU memory service client naming `main` then names no container, and
    a pod template left with nothing is none. Not judged: the pod template's other metadata,
    volume-mount fields and the component and container order, which the webhook does not read. An
    update's comparison with the stored object (`dgdlint diff`) reads the restored fields of both sides.
    ConvertTo's own errors (merging two containers of one type) cannot occur on decoded input.""",
    remediation="Remove nvidia.com/dgd-spec and nvidia.com/dgd-status from the manifest; write the fields "
                "in the spec instead.",
)
def operator_conversion_record_refused(model: Model):
    for view in graph_views(model):
        spec = view.annotation(SPEC_RECORD)
        if view.alpha:
            if spec is not None and spec.text:
                record = read_spec(spec.text, "v1beta1")
                if not record.skipped and not record.unread:
                    yield from _hub_refusals(model, view, spec.path, record)
            continue
        if spec is not None and spec.text:
            record = read_spec(spec.text, "v1alpha1")
            if not record.skipped and not record.unread:
                yield from _alpha_refusals(view, spec.path, record)
        status = view.annotation(STATUS_RECORD)
        problem = status_problem(status.text) if status is not None and status.text else None
        if problem:
            yield Hit(view.obj, status.path, f"{view.obj.label}: annotation {STATUS_RECORD} does not decode as the "
                                             f"v1alpha1 status ({problem}); the webhook cannot rebuild the v1alpha1 "
                                             "view and refuses the graph")
