"""Diff rules on the model cache and on what a change deletes: a download that does not run for a new
model (diff-download-not-rerun), a moved or dropped cache claim (diff-cache-changed), deployments and
claims missing from the new set (diff-deleted)."""

from __future__ import annotations

from dgdlint.cosmos import cache_mounts, is_streaming, nim_workers, same_model_value
from dgdlint.diff.comparison import PVC_KIND, Comparison, absent, location, object_key, plural, shown
from dgdlint.diff.views import MODEL_FIELDS, model_identity
from dgdlint.downloads import download_jobs
from dgdlint.model import DGD_KIND, DYNAMO_GROUP, Graph, KObject, Model, as_str, canonical_json


def rerun_on_every_upgrade(job: KObject) -> bool:
    """A pre-upgrade hook that Helm deletes before creating it again (its default delete policy): it runs
    on every `helm upgrade` whatever its name, so keeping the name is no stale Job."""
    events = job.annotation_items("helm.sh/hook")
    policies = job.annotation_items("helm.sh/hook-delete-policy")
    return "pre-upgrade" in events and (not policies or "before-hook-creation" in policies)


def download_not_rerun(run: Comparison, old: Graph, new: Graph) -> None:
    old_workers = {c.name: c for c in nim_workers(old)}
    for component in nim_workers(new):
        previous = old_workers.get(component.name)
        if previous is None:
            continue
        before, after = model_identity(previous.main), model_identity(component.main)
        changed = [name for name in MODEL_FIELDS if not same_model_value(name, before[name][0], after[name][0])]
        if not changed:
            continue
        first = changed[0]
        moved = f"{component.label}: the change moves {first} from {shown(before[first][0])} to " \
                f"{shown(after[first][0])}"
        new_jobs = download_jobs(run.new, new)
        old_jobs = download_jobs(run.old, old)
        if not new_jobs:
            if old_jobs:
                job = old_jobs[0][0]
                run.add("diff-download-not-rerun", new.obj, after[first][1],
                        f"{moved}, but the new set has no download Job (the old one was {job.label}): nothing "
                        "downloads the new model into the cache",
                        location(old.obj, before[first][1], f"before: {before[first][0] or 'unset'}"),
                        location(job.obj, ("metadata", "name"), "the old download Job"))
            continue
        for job, container in new_jobs:
            fetched = model_identity(container)
            previous_job = run.old_job(job.obj)
            template = ("spec", "template")
            unchanged = previous_job is not None and not rerun_on_every_upgrade(job.obj) and \
                canonical_json(previous_job.obj.get(template)) == canonical_json(job.obj.get(template))
            stale = [name for name in changed if not same_model_value(name, fetched[name][0], after[name][0])]
            for name in stale:
                got = fetched[name][0]
                if unchanged:
                    tail = f"{job.label} is unchanged: it still has {shown(got)} and does not run again"
                elif same_model_value(name, got, before[name][0]):
                    tail = f"{job.label} still downloads {shown(got)}"
                else:
                    tail = f"{job.label} has {shown(got)}"
                run.add("diff-download-not-rerun", new.obj, after[name][1],
                        f"{component.label}: the change moves {name} from {shown(before[name][0])} to "
                        f"{shown(after[name][0])}, but {tail}",
                        location(old.obj, before[name][1], f"before: {before[name][0] or 'unset'}"),
                        location(job.obj, fetched[name][1], f"{job.label}'s {name}"))
            if stale or previous_job is None or unchanged or rerun_on_every_upgrade(job.obj):
                continue  # a Job with a new name, or a hook Helm re-creates, is created and runs
            run.add("diff-download-not-rerun", job.obj, ("spec", "template"),
                    f"{moved} and {job.label} follows, but under the same name: a Job's pod template is "
                    "immutable, so the update is rejected and the download does not run again",
                    location(previous_job.obj, ("spec", "template"), f"{job.label} before"),
                    location(new.obj, after[first][1], f"{component.label}'s new {first}"))


def cache_claim_changed(run: Comparison, old: Graph, new: Graph) -> None:
    old_workers = {c.name: c for c in nim_workers(old)}
    for component in nim_workers(new):
        previous = old_workers.get(component.name)
        if previous is None:
            continue
        before = {m.claim: m for m in cache_mounts(previous.main) if m.claim}
        after = {m.claim: m for m in cache_mounts(component.main) if m.claim}
        if not before or set(before) == set(after):
            continue
        old_mount = next(iter(before.values()))
        if after:
            mount = next(iter(after.values()))
            run.add("diff-cache-changed", new.obj, mount.path,
                    f"{component.label}: the model cache moves from claim {', '.join(sorted(before))} to "
                    f"{', '.join(sorted(after))}; the new claim starts without the downloaded model and the old "
                    "one keeps its space",
                    location(old.obj, old_mount.path, f"before: claim {old_mount.claim}"))
        else:
            run.add("diff-cache-changed", new.obj, component.main.path,
                    f"{component.label}: no longer mounts the model cache (claim {', '.join(sorted(before))}): "
                    "every new pod downloads the model at start",
                    location(old.obj, old_mount.path, f"before: claim {old_mount.claim}"))


def _helm_managed(obj: KObject) -> bool:
    labels = obj.metadata.get("labels") if isinstance(obj.metadata.get("labels"), dict) else {}
    return as_str(labels.get("app.kubernetes.io/managed-by")) == "Helm" or "helm.sh/chart" in labels \
        or "meta.helm.sh/release-name" in obj.annotations


def _mounted_claims(model: Model) -> set[tuple[str, str]]:
    claims = set()
    for graph in model.graphs:
        for component in graph.components:
            for mount in component.main.mounts:
                if mount.claim:
                    claims.add((graph.obj.namespace, mount.claim))
    for job in model.workloads:
        for container in job.all_containers:
            for mount in container.mounts:
                if mount.claim:
                    claims.add((job.obj.namespace, mount.claim))
    return claims


def dropped(run: Comparison, old_index: dict, new_index: dict) -> None:
    """DGDs and claims of the old set that the new set no longer has or creates."""
    new_graphs_by_namespace = {}
    for graph in run.new.graphs:
        new_graphs_by_namespace.setdefault(graph.obj.namespace, graph)
    old_graphs = {object_key(graph.obj): graph for graph in run.old.graphs}
    still_mounted = None
    for key, obj in old_index.items():
        if key in new_index:
            continue
        if obj.kind == DGD_KIND and obj.group == DYNAMO_GROUP:
            other = new_graphs_by_namespace.get(obj.namespace)
            related = (location(other.obj, ("metadata", "name"),
                                 f"the new set has {other.obj.label} instead: another name is another deployment")
                       if other else absent(run.new, f"no {obj.label} in the new set"))
            graph = old_graphs[key]
            pods = sum(c.pods for c in nim_workers(graph))
            sessions = f", and the live streaming sessions on its {plural(pods, 'worker pod')}" \
                if is_streaming(graph) and pods else ""
            run.add("diff-deleted", obj, ("metadata", "name"),
                    f"{obj.label} ({obj.namespace}) is not in the new set: applying it with pruning "
                    f"(helm upgrade, kubectl apply --prune, GitOps) deletes the deployment and its pods{sessions}",
                    related)
        elif obj.kind == PVC_KIND and not obj.group and run.new.pvc(obj.namespace, obj.name) is None:
            if still_mounted is None:
                still_mounted = _mounted_claims(run.new)
            mounted = (obj.namespace, obj.name) in still_mounted
            note = "; the new set still mounts it, so it must now exist outside the set" if mounted else ""
            related = absent(run.new, f"no {obj.label} in the new set")
            if _helm_managed(obj):
                kept = obj.annotations.get("helm.sh/resource-policy") == "keep"
                fate = ("Helm keeps it (resource-policy keep) but no longer manages it: the claim and its cached "
                        "model stay until deleted by hand" if kept else
                        "Helm deletes it on upgrade, with the cached model")
                run.add("diff-cache-changed", obj, ("metadata", "name"),
                        f"{obj.label} was created by the chart and the new release drops it: {fate}{note}", related)
            else:
                run.add("diff-deleted", obj, ("metadata", "name"),
                        f"{obj.label} ({obj.namespace}) is not in the new set: a pruning apply deletes it with its "
                        f"data{note}", related)
    # Claims a v1alpha1 DGD creates itself (`spec.pvcs[].create: true`) and no longer does.
    for graph in run.old.graphs:
        new_graph = new_index.get(object_key(graph.obj))
        if new_graph is None:
            continue  # the deleted DGD is reported, its claims with it
        for entry, path in graph.pvc_entries:
            name = as_str(entry.get("name"))
            if entry.get("create") is True and name and run.new.pvc(graph.obj.namespace, name) is None:
                run.add("diff-cache-changed", graph.obj, path,
                        f"{graph.obj.label} no longer creates claim {name} (spec.pvcs create: true): the operator "
                        "stops managing it and its cached model",
                        location(new_graph, ("spec",), f"{new_graph.label} without that claim"))
