"""Diff rules on one deployment kept under the same name: fields the operator will not change in place
(diff-immutable-field) and live streaming sessions a change loses (diff-sessions-lost)."""

from __future__ import annotations

from dgdlint.cosmos import is_streaming, nim_workers
from dgdlint.diff.comparison import Comparison, location, plural
from dgdlint.diff.pods import components_of, pods_of
from dgdlint.diff.views import describe_changes, view_changes, worker_view
from dgdlint.model import Graph
from dgdlint.webhook_component import ComponentView
from dgdlint.webhook_model import GraphView


def _components_container(graph: Graph) -> tuple:
    return graph.components[0].path[:-1] if graph.components else ("spec",)


def immutable_fields(run: Comparison, old: GraphView, new: GraphView) -> None:
    """Read from the graphs as the operator gets them: a v1alpha1 side converted (component names from the
    services, a null service none; `multinode: {}` is the CRD's default of 2 nodes), reported where the
    user's file writes the field."""
    label = new.obj.label
    before, after = old.graph.backend_framework or "", new.graph.backend_framework or ""
    if before != after:
        run.add("diff-immutable-field", new.obj, ("spec", "backendFramework"),
                f"{label}: backendFramework changes from {before or 'unset'!r} to {after or 'unset'!r}; the "
                "operator rejects the update (the field is immutable after creation)",
                location(old.obj, ("spec", "backendFramework"), f"before: {before or 'unset'}"))
    old_components, new_components = components_of(old), components_of(new)
    added = sorted(set(new_components) - set(old_components))
    removed = sorted(set(old_components) - set(new_components))
    if added or removed:
        parts = [f"{verb} {', '.join(names)}" for verb, names in (("added", added), ("removed", removed)) if names]
        where = new_components[added[0]].path if added else _components_container(new.graph)
        old_where = old_components[removed[0]].path if removed else _components_container(old.graph)
        run.add("diff-immutable-field", new.obj, where,
                f"{label}: the set of components changes ({'; '.join(parts)}); the operator rejects the update "
                "(component names are immutable: a rename is a removal plus an addition)",
                location(old.obj, old_where, "the components before"))
    for name, component in new_components.items():
        previous = old_components.get(name)
        if previous is not None and previous.is_multinode != component.is_multinode:
            def shape(c: ComponentView) -> str:
                return f"multinode ({c.node_count} nodes)" if c.is_multinode else "single-node"

            run.add("diff-immutable-field", new.obj, component.path + ("multinode", "nodeCount"),
                    f"{component.component.label} switches from {shape(previous)} to {shape(component)}; the "
                    "operator rejects the update (node topology is immutable after creation)",
                    location(old.obj, previous.path + ("multinode", "nodeCount"), f"before: {shape(previous)}"))


def _mode_path(graph: Graph) -> tuple:
    """Where a graph states its mode: a NIM worker's NIM_ENABLE_STREAMING, else its frontend's command."""
    for worker in nim_workers(graph):
        entry = worker.main.env_var("NIM_ENABLE_STREAMING")
        if entry is not None:
            return entry.path
    for frontend in graph.frontends:
        return frontend.main.path + ("command",)
    return ("spec",)


def sessions_lost(run: Comparison, old_view: GraphView, new_view: GraphView) -> None:
    """Streaming sessions a change loses, comparing each NIM worker's pod as the operator builds it (diff.pods)
    on both sides, whatever API version each is written in."""
    old, new = old_view.graph, new_view.graph
    old_pods, new_pods = pods_of(old_view), pods_of(new_view)
    old_workers = {c.name: old_pods[c.name] for c in nim_workers(old) if c.name in old_pods}
    new_workers = {c.name: new_pods[c.name] for c in nim_workers(new) if c.name in new_pods}
    was, becomes = is_streaming(old), is_streaming(new)
    if was != becomes:
        pods = sum(c.count for c in old_workers.values())
        if was:
            what = (f"{new.obj.label} switches from streaming to regular mode: the live streaming sessions on its "
                    f"{plural(pods, 'worker pod')} are lost (sessions never migrate) and the session API goes away")
        else:
            what = (f"{new.obj.label} switches from regular to streaming mode on the same deployment: its "
                    f"{plural(pods, 'worker pod')} {'is' if pods == 1 else 'are'} replaced and requests in flight "
                    f"on {'it' if pods == 1 else 'them'} fail")
        run.add("diff-sessions-lost", new.obj, _mode_path(new), what,
                location(old.obj, _mode_path(old), f"before: {'streaming' if was else 'regular'} mode"))
        return
    if not becomes:
        return
    for name, component in new_workers.items():
        previous = old_workers.get(name)
        if previous is None:
            continue  # a new or renamed component: diff-immutable-field says the update is rejected
        changes = view_changes(worker_view(previous), worker_view(component), previous.component.path,
                               component.component.path)
        label = component.component.label
        if changes:
            first = changes[0]
            run.add("diff-sessions-lost", new.obj, first.new_path,
                    f"{label}: {describe_changes(changes)} change in a streaming graph; the operator "
                    f"replaces its {plural(previous.count, 'worker pod')} and the live sessions on "
                    f"{'it' if previous.count == 1 else 'them'} are lost (sessions never migrate)",
                    location(old.obj, first.old_path, f"before: {first.aspect}"))
        elif component.count < previous.count:
            removed = previous.count - component.count
            run.add("diff-sessions-lost", new.obj, component.component.replicas_path,
                    f"{label} goes from {previous.count} to {plural(component.count, 'worker pod')} in a "
                    f"streaming graph: the live sessions on the {plural(removed, 'removed pod')} are lost "
                    "(sessions never migrate)",
                    location(old.obj, previous.component.replicas_path, f"before: {previous.count} pods"))
