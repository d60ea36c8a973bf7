"""Diff rules on one deployment kept under the same name: fields the operator will not change in place
(diff-immutable-field) and live streaming sessions a change loses (diff-sessions-lost)."""

from __future__ import annotations

from dgdlint.cosmos import is_streaming, nim_workers
from dgdlint.diff.comparison import Comparison, location, plural
from dgdlint.diff.views import describe_changes, view_changes, worker_view
from dgdlint.model import Component, Graph


def _components_container(graph: Graph) -> tuple:
    return graph.components[0].path[:-1] if graph.components else ("spec",)


def immutable_fields(run: Comparison, old: Graph, new: Graph) -> None:
    label = new.obj.label
    before, after = old.backend_framework or "", new.backend_framework or ""
    if before != after:
        run.add("diff-immutable-field", new.obj, ("spec", "backendFramework"),
                f"{label}: backendFramework changes from {before or 'unset'!r} to {after or 'unset'!r}; the "
                "operator rejects the update (the field is immutable after creation)",
                location(old.obj, ("spec", "backendFramework"), f"before: {before or 'unset'}"))
    old_components = {c.name: c for c in old.components}
    new_components = {c.name: c for c in new.components}
    added = sorted(set(new_components) - set(old_components))
    removed = sorted(set(old_components) - set(new_components))
    if added or removed:
        parts = [f"{verb} {', '.join(names)}" for verb, names in (("added", added), ("removed", removed)) if names]
        where = new_components[added[0]].path if added else _components_container(new)
        old_where = old_components[removed[0]].path if removed else _components_container(old)
        run.add("diff-immutable-field", new.obj, where,
                f"{label}: the set of components changes ({'; '.join(parts)}); the operator rejects the update "
                "(component names are immutable: a rename is a removal plus an addition)",
                location(old.obj, old_where, "the components before"))
    for name, component in new_components.items():
        previous = old_components.get(name)
        if previous is not None and (previous.node_count > 1) != (component.node_count > 1):
            def shape(c: Component) -> str:
                return f"multinode ({c.node_count} nodes)" if c.node_count > 1 else "single-node"

            run.add("diff-immutable-field", new.obj, component.path + ("multinode", "nodeCount"),
                    f"{component.label} switches from {shape(previous)} to {shape(component)}; the operator "
                    "rejects the update (node topology is immutable after creation)",
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


def sessions_lost(run: Comparison, old: Graph, new: Graph) -> None:
    old_workers = {c.name: c for c in nim_workers(old)}
    new_workers = {c.name: c for c in nim_workers(new)}
    was, becomes = is_streaming(old), is_streaming(new)
    if was != becomes:
        pods = sum(c.pods for c in old_workers.values())
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
        changes = view_changes(worker_view(previous), worker_view(component), previous.path, component.path)
        if changes:
            first = changes[0]
            run.add("diff-sessions-lost", new.obj, first.new_path,
                    f"{component.label}: {describe_changes(changes)} change in a streaming graph; the operator "
                    f"replaces its {plural(previous.pods, 'worker pod')} and the live sessions on "
                    f"{'it' if previous.pods == 1 else 'them'} are lost (sessions never migrate)",
                    location(old.obj, first.old_path, f"before: {first.aspect}"))
        elif component.pods < previous.pods:
            removed = previous.pods - component.pods
            run.add("diff-sessions-lost", new.obj, component.replicas_path,
                    f"{component.label} goes from {previous.pods} to {plural(component.pods, 'worker pod')} in a "
                    f"streaming graph: the live sessions on the {plural(removed, 'removed pod')} are lost "
                    "(sessions never migrate)",
                    location(old.obj, previous.replicas_path, f"before: {previous.pods} pods"))
