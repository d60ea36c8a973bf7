"""`dgdlint diff`'s comparison: what applying a new set of objects over an old one will break.

Both sides go through load and model; objects are paired by (group, kind, namespace, name) and compared
through the normalized model only, so a v1alpha1 side and a v1beta1 side of one deployment compare by
meaning, not by shape. The webhook's update checks, the immutable fields and the workers' pods read each
side as the operator gets it: a v1alpha1 graph converted, with the v1beta1 fields its `nvidia.com/dgd-spec`
record restores (hub_restore; the pods in diff.pods), each finding at the field the user's file writes. The
rules' metadata is in the catalogue (dgdlint.rules.catalogue.DIFF_RULES); the command line in
dgdlint.commands.diff."""

from __future__ import annotations

from dgdlint.cosmos import is_cosmos_graph
from dgdlint.diff.cache import cache_claim_changed, download_not_rerun, dropped
from dgdlint.diff.comparison import Comparison, index_by_key, location, object_key
from dgdlint.diff.deployment import immutable_fields, sessions_lost
from dgdlint.diff.views import quantity, worker_view
from dgdlint.findings import Finding
from dgdlint.hub_restore import converted_view
from dgdlint.model import Model
from dgdlint.rules.catalogue import DIFF_RULES
from dgdlint.rules.webhook_update import REPLACED_ON_UPDATE, update_changes

__all__ = ["DIFF_RULES", "compare", "quantity", "replaced_on_update", "worker_view"]


def compare(old: Model, new: Model) -> list[Finding]:
    """The diff findings of applying `new` over `old`, in one pass over each side's objects."""
    run = Comparison(old, new)
    old_index, new_index = index_by_key(old), index_by_key(new)
    new_graphs = {object_key(g.obj): g for g in new.graphs}
    for old_graph in {object_key(g.obj): g for g in old.graphs}.values():
        new_graph = new_graphs.get(object_key(old_graph.obj))
        if new_graph is None:
            continue
        # as the operator compares them: a v1alpha1 side converted, with the v1beta1 fields its dgd-spec record
        # restores; findings still point where each user's file writes the field
        views = converted_view(old_graph), converted_view(new_graph, previous=old_graph.obj)
        immutable_fields(run, *views)
        for change in update_changes(*views, new.release):
            run.add(change.rule, new_graph.obj, change.path, change.message,
                    location(old_graph.obj, change.old_path, change.old_note))
        if is_cosmos_graph(old_graph) or is_cosmos_graph(new_graph):
            sessions_lost(run, *views)
            download_not_rerun(run, old_graph, new_graph)
            cache_claim_changed(run, old_graph, new_graph)
    dropped(run, old_index, new_index)
    return run.findings


def replaced_on_update(finding: Finding, old: Model) -> bool:
    """Whether a check finding on the new side is the create-time form of what the webhook judges
    differently on an update (update-runtime-version's ratchet), for a graph the old side has."""
    refs = old.memo("diff-graph-refs", lambda: {g.obj.ref for g in old.graphs})
    return finding.rule in REPLACED_ON_UPDATE and finding.object_ref in refs
