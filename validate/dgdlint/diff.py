"""`dgdlint diff OLD NEW`: what applying NEW over OLD will break, before it is applied.

Both sides go through load and model; objects are paired by (group, kind, namespace, name) and compared
through the normalized model only, so a v1alpha1 side and a v1beta1 side of one deployment compare by
meaning, not by shape. The new side is also checked as `check` would; both sets of findings are
reported together, with check's formats and exit codes."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from dgdlint.cosmos import (
    cache_mounts,
    download_jobs,
    env_text,
    is_cosmos_graph,
    is_streaming,
    nim_workers,
)
from dgdlint.findings import Finding, Location
from dgdlint.load import LoadResult, format_path
from dgdlint.model import DGD_KIND, DYNAMO_GROUP, Component, Container, Graph, KObject, Model, as_str, canonical_json
from dgdlint.quantity import canonical_quantity

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
PVC_KIND = "PersistentVolumeClaim"


# ---------------------------------------------------------------------------------------------
# The diff rules, as data: the same fields as a rule of the registry, so the catalogue and
# `explain` can read them, but each compares two models instead of checking one.


@dataclass(frozen=True)
class DiffRule:
    name: str
    code: str
    severity: str
    title: str
    rationale: str
    remediation: str
    reads: tuple[str, ...] = ("DynamoGraphDeployment",)
    family: str = "diff"
    fail_example: str = ""
    pass_example: str = ""


def _text(paragraph: str) -> str:
    return " ".join(paragraph.split())


DIFF_RULES: dict[str, DiffRule] = {r.name: r for r in (
    DiffRule(
        name="diff-immutable-field", code="DGD901", severity="error",
        title="The change keeps what the operator will not change in place",
        rationale=_text("""The operator's admission webhook rejects an update that changes
        `backendFramework`, adds, removes or renames components, or switches a component between
        single-node and multinode. The apply fails and the running deployment stays as it was."""),
        remediation=_text("""Keep the field as it is, or delete the DynamoGraphDeployment and create it
        again (its pods, and any live sessions, go with it)."""),
    ),
    DiffRule(
        name="diff-sessions-lost", code="DGD902", severity="warning",
        title="The change keeps the live streaming sessions",
        rationale=_text("""Streaming sessions live in one worker and never migrate. Switching the same
        deployment between regular and streaming mode replaces every worker; changing a streaming
        worker's image, env, resources or pod settings replaces its pods; scaling streaming workers
        down removes pods. Sessions on the replaced or removed pods are lost."""),
        remediation=_text("""Apply the change in a quiet window and tell session clients to reconnect,
        or run the new version as a second deployment (its own name and streaming endpoint) and move
        clients over before removing the old one."""),
        reads=("DynamoGraphDeployment",),
    ),
    DiffRule(
        name="diff-download-not-rerun", code="DGD903", severity="error",
        title="A change of the workers' model runs a download for it",
        rationale=_text("""The download Job fills the cache for one image, variant, precision and tags
        selector. When the change moves the workers to another model but not the Job, or leaves the
        Job as an object Kubernetes will not run again (unchanged, or changed in place: a Job's
        template is immutable), nothing downloads what the new workers load."""),
        remediation=_text("""Change the download Job with the workers, and give it a new name whenever
        what it downloads changes (the chart adds a hash of the model to the name), or delete the old
        Job before applying."""),
        reads=("DynamoGraphDeployment", "Job"),
    ),
    DiffRule(
        name="diff-cache-changed", code="DGD904", severity="warning",
        title="The change keeps the model cache",
        rationale=_text("""Workers that mount another claim start on a cache without the downloaded
        model, and the old claim keeps its space. A claim the old set created and the new one no
        longer does is deleted with its cached model, or, kept by Helm's resource policy, left
        unmanaged."""),
        remediation=_text("""Keep the claim name, or let the download Job fill the new claim before
        the workers start and delete the old claim on purpose."""),
        reads=("DynamoGraphDeployment", "PersistentVolumeClaim"),
    ),
    DiffRule(
        name="diff-deleted", code="DGD905", severity="warning",
        title="The change deletes no deployment or claim by omission",
        rationale=_text("""An object missing from the new set is deleted by `helm upgrade` and by any
        pruning apply: a DynamoGraphDeployment takes its pods (and their sessions) with it, a
        PersistentVolumeClaim its data."""),
        remediation=_text("""Keep the object in the new set, or delete it on purpose in a separate
        step."""),
        reads=("DynamoGraphDeployment", "PersistentVolumeClaim"),
    ),
)}


def existing(obj: KObject, path: tuple) -> tuple:
    """The path itself, or its nearest ancestor present in the object: a diff points at what is there."""
    path = tuple(path)
    while path and obj.get(path) is None:
        path = path[:-1]
    return path


def _finding(rule: str, obj: KObject, path: tuple, message: str, related: list[Location]) -> Finding:
    meta = DIFF_RULES[rule]
    path = existing(obj, path)
    line, column = obj.position(path)
    return Finding(rule=rule, severity=meta.severity, stage="rule", file=obj.file, line=line, column=column,
                   path=format_path(path), message=message, remediation=meta.remediation, related=related,
                   object_ref=obj.ref)


# ---------------------------------------------------------------------------------------------
# Normalization: what a pod runs, as comparable text, whatever the DGD's shape.

def quantity(text: str | None) -> str:
    """A Kubernetes quantity as an exact number, so `1`, `"1"` and `1000m` compare equal."""
    return canonical_quantity(text)


def effective_env(container: Container) -> dict[str, tuple[str, tuple]]:
    """Name -> (value, path) as the container gets it: later entries win, references shown as such."""
    env: dict[str, tuple[str, tuple]] = {}
    for entry in container.env:
        value = (entry.value or "") if entry.is_literal else "from " + canonical_json(entry.value_from)
        env[entry.name] = (value, entry.path)
    return env


def _resources(container: Container) -> dict[str, tuple[str, tuple]]:
    """Requests and limits by resource; a missing request defaults to the limit, as the API server does."""
    out = {}
    for resource, (text, path) in container.limits.items():
        out[f"limits {resource}"] = (quantity(text), path)
        out[f"requests {resource}"] = (quantity(text), path)
    for resource, (text, path) in container.requests.items():
        out[f"requests {resource}"] = (quantity(text), path)
    return out


def _container_view(view: dict, prefix: str, container: Container) -> None:
    view[prefix + "image"] = (container.image or "", container.image_path)
    view[prefix + "command"] = (canonical_json(container.command_line), container.path + ("command",))
    view[prefix + "workingDir"] = (container.working_dir or "", container.path + ("workingDir",))
    for name, entry in effective_env(container).items():
        view[f"{prefix}env {name}"] = entry
    for name, entry in _resources(container).items():
        view[f"{prefix}resources {name}"] = entry
    for mount in container.mounts:
        target = mount.claim or f"volume {mount.volume}"
        view[f"{prefix}mount {mount.mount_path}"] = (canonical_json([target, mount.sub_path]), mount.path)


# Pod-spec keys compared through the containers and mounts instead (their shape differs between APIs).
_POD_KEYS_COMPARED_ELSEWHERE = {"containers", "initContainers", "mainContainer", "volumes"}


def worker_view(component: Component) -> dict[str, tuple[str, tuple]]:
    """Everything that, changed, makes the operator replace a component's pods: aspect -> (value, path).
    Replicas and node count are left out: they scale or are immutable, they do not replace pods."""
    view: dict[str, tuple[str, tuple]] = {}
    _container_view(view, "", component.main)
    for container in component.init_containers:
        _container_view(view, f"init container {container.name}: ", container)
    for container in component.sidecars:
        _container_view(view, f"container {container.name}: ", container)
    view["shared memory"] = (quantity(component.shared_memory), component.shared_memory_path)
    for key, value in component.pod.spec.items():
        if key not in _POD_KEYS_COMPARED_ELSEWHERE:
            view[f"pod {key}"] = (canonical_json(value), component.pod.field_path(key))
    return view


@dataclass
class Change:
    aspect: str
    new_path: tuple
    old_path: tuple


def view_changes(old: dict, new: dict, old_default: tuple, new_default: tuple) -> list[Change]:
    changes = []
    for aspect in list(new) + [a for a in old if a not in new]:
        before, after = old.get(aspect), new.get(aspect)
        if (before[0] if before else None) != (after[0] if after else None):
            changes.append(Change(aspect, after[1] if after else new_default, before[1] if before else old_default))
    return changes


def _describe(changes: list[Change], limit: int = 4) -> str:
    names = [change.aspect for change in changes[:limit]]
    more = len(changes) - limit
    return ", ".join(names) + (f" and {more} more" if more > 0 else "")


MODEL_FIELDS = ("image", "NIM_MODEL_VARIANT", "NIM_PRECISION", "NIM_TAGS_SELECTOR")


def model_identity(container: Container) -> dict[str, tuple[str | None, tuple]]:
    """What a NIM container downloads or loads: image, variant, precision, tags selector (value, path)."""
    out: dict[str, tuple[str | None, tuple]] = {"image": (container.image, container.image_path)}
    for name in MODEL_FIELDS[1:]:
        entry = container.env_var(name)
        out[name] = (env_text(container, name), entry.path if entry else container.path)
    return out


# ---------------------------------------------------------------------------------------------
# The comparison.


def object_key(obj: KObject) -> tuple[str, str, str, str]:
    return obj.group, obj.kind, obj.namespace, obj.name


def _index(model: Model) -> dict[tuple, KObject]:
    return {object_key(obj): obj for obj in model.objects if obj.name}  # the last wins, as an apply does


def _location(obj: KObject, path: tuple, note: str) -> Location:
    return obj.location(existing(obj, path), note)


def _absent(model: Model, note: str) -> Location:
    """Where the new set is, for a finding about something it lacks."""
    return Location(model.files[0] if model.files else "-", 1, 1, "", note)


@dataclass
class Comparison:
    old: Model
    new: Model
    findings: list[Finding] = field(default_factory=list)

    def old_job(self, job: KObject):
        """The old set's Job of the same key as `job`, if any (an index built once)."""
        index = self.old.memo("diff-jobs-by-key", lambda: {object_key(w.obj): w for w in self.old.jobs()})
        return index.get(object_key(job))

    def add(self, rule: str, obj: KObject, path: tuple, message: str, *related: Location) -> None:
        self.findings.append(_finding(rule, obj, path, message, list(related)))


def compare(old: Model, new: Model) -> list[Finding]:
    """The diff findings of applying `new` over `old`, in one pass over each side's objects."""
    run = Comparison(old, new)
    old_index, new_index = _index(old), _index(new)
    new_graphs = {object_key(g.obj): g for g in new.graphs}
    for old_graph in {object_key(g.obj): g for g in old.graphs}.values():
        new_graph = new_graphs.get(object_key(old_graph.obj))
        if new_graph is None:
            continue
        _immutable_fields(run, old_graph, new_graph)
        if is_cosmos_graph(old_graph) or is_cosmos_graph(new_graph):
            _sessions_lost(run, old_graph, new_graph)
            _download_not_rerun(run, old_graph, new_graph)
            _cache_claim_changed(run, old_graph, new_graph)
    _dropped(run, old_index, new_index)
    return run.findings


def _components_container(graph: Graph) -> tuple:
    return graph.components[0].path[:-1] if graph.components else ("spec",)


def _immutable_fields(run: Comparison, old: Graph, new: Graph) -> None:
    label = new.obj.label
    before, after = old.backend_framework or "", new.backend_framework or ""
    if before != after:
        run.add("diff-immutable-field", new.obj, ("spec", "backendFramework"),
                f"{label}: backendFramework changes from {before or 'unset'!r} to {after or 'unset'!r}; the "
                "operator rejects the update (the field is immutable after creation)",
                _location(old.obj, ("spec", "backendFramework"), f"before: {before or 'unset'}"))
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
                _location(old.obj, old_where, "the components before"))
    for name, component in new_components.items():
        previous = old_components.get(name)
        if previous is not None and (previous.node_count > 1) != (component.node_count > 1):
            def shape(c: Component) -> str:
                return f"multinode ({c.node_count} nodes)" if c.node_count > 1 else "single-node"

            run.add("diff-immutable-field", new.obj, component.path + ("multinode", "nodeCount"),
                    f"{component.label} switches from {shape(previous)} to {shape(component)}; the operator "
                    "rejects the update (node topology is immutable after creation)",
                    _location(old.obj, previous.path + ("multinode", "nodeCount"), f"before: {shape(previous)}"))


def _mode_path(graph: Graph) -> tuple:
    """Where a graph states its mode: a NIM worker's NIM_ENABLE_STREAMING, else its frontend's command."""
    for worker in nim_workers(graph):
        entry = worker.main.env_var("NIM_ENABLE_STREAMING")
        if entry is not None:
            return entry.path
    for frontend in graph.frontends:
        return frontend.main.path + ("command",)
    return ("spec",)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _sessions_lost(run: Comparison, old: Graph, new: Graph) -> None:
    old_workers = {c.name: c for c in nim_workers(old)}
    new_workers = {c.name: c for c in nim_workers(new)}
    was, becomes = is_streaming(old), is_streaming(new)
    if was != becomes:
        pods = sum(c.pods for c in old_workers.values())
        if was:
            what = (f"{new.obj.label} switches from streaming to regular mode: the live streaming sessions on its "
                    f"{_plural(pods, 'worker pod')} are lost (sessions never migrate) and the session API goes away")
        else:
            what = (f"{new.obj.label} switches from regular to streaming mode on the same deployment: its "
                    f"{_plural(pods, 'worker pod')} {'is' if pods == 1 else 'are'} replaced and requests in flight "
                    f"on {'it' if pods == 1 else 'them'} fail")
        run.add("diff-sessions-lost", new.obj, _mode_path(new), what,
                _location(old.obj, _mode_path(old), f"before: {'streaming' if was else 'regular'} mode"))
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
                    f"{component.label}: {_describe(changes)} change in a streaming graph; the operator "
                    f"replaces its {_plural(previous.pods, 'worker pod')} and the live sessions on "
                    f"{'it' if previous.pods == 1 else 'them'} are lost (sessions never migrate)",
                    _location(old.obj, first.old_path, f"before: {first.aspect}"))
        elif component.pods < previous.pods:
            removed = previous.pods - component.pods
            run.add("diff-sessions-lost", new.obj, component.replicas_path,
                    f"{component.label} goes from {previous.pods} to {_plural(component.pods, 'worker pod')} in a "
                    f"streaming graph: the live sessions on the {_plural(removed, 'removed pod')} are lost "
                    "(sessions never migrate)",
                    _location(old.obj, previous.replicas_path, f"before: {previous.pods} pods"))


def _shown(value: str | None) -> str:
    return "unset" if value is None else repr(value)


def _download_not_rerun(run: Comparison, old: Graph, new: Graph) -> None:
    old_workers = {c.name: c for c in nim_workers(old)}
    for component in nim_workers(new):
        previous = old_workers.get(component.name)
        if previous is None:
            continue
        before, after = model_identity(previous.main), model_identity(component.main)
        changed = [name for name in MODEL_FIELDS if before[name][0] != after[name][0]]
        if not changed:
            continue
        first = changed[0]
        moved = f"{component.label}: the change moves {first} from {_shown(before[first][0])} to " \
                f"{_shown(after[first][0])}"
        new_jobs = download_jobs(run.new, new)
        old_jobs = download_jobs(run.old, old)
        if not new_jobs:
            if old_jobs:
                job = old_jobs[0][0]
                run.add("diff-download-not-rerun", new.obj, after[first][1],
                        f"{moved}, but the new set has no download Job (the old one was {job.label}): nothing "
                        "downloads the new model into the cache",
                        _location(old.obj, before[first][1], f"before: {before[first][0]}"),
                        _location(job.obj, ("metadata", "name"), "the old download Job"))
            continue
        for job, container in new_jobs:
            fetched = model_identity(container)
            previous_job = run.old_job(job.obj)
            template = ("spec", "template")
            unchanged = previous_job is not None and \
                canonical_json(previous_job.obj.get(template)) == canonical_json(job.obj.get(template))
            stale = [name for name in changed if fetched[name][0] != after[name][0]]
            for name in stale:
                got = fetched[name][0]
                if unchanged:
                    tail = f"{job.label} is unchanged: it still has {_shown(got)} and does not run again"
                elif got == before[name][0]:
                    tail = f"{job.label} still downloads {_shown(got)}"
                else:
                    tail = f"{job.label} has {_shown(got)}"
                run.add("diff-download-not-rerun", new.obj, after[name][1],
                        f"{component.label}: the change moves {name} from {_shown(before[name][0])} to "
                        f"{_shown(after[name][0])}, but {tail}",
                        _location(old.obj, before[name][1], f"before: {before[name][0]}"),
                        _location(job.obj, fetched[name][1], f"{job.label}'s {name}"))
            if stale or previous_job is None or unchanged:
                continue  # a Job with a new name is created and runs
            run.add("diff-download-not-rerun", job.obj, ("spec", "template"),
                    f"{moved} and {job.label} follows, but under the same name: a Job's pod template is "
                    "immutable, so the update is rejected and the download does not run again",
                    _location(previous_job.obj, ("spec", "template"), f"{job.label} before"),
                    _location(new.obj, after[first][1], f"{component.label}'s new {first}"))


def _cache_claim_changed(run: Comparison, old: Graph, new: Graph) -> None:
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
                    _location(old.obj, old_mount.path, f"before: claim {old_mount.claim}"))
        else:
            run.add("diff-cache-changed", new.obj, component.main.path,
                    f"{component.label}: no longer mounts the model cache (claim {', '.join(sorted(before))}): "
                    "every new pod downloads the model at start",
                    _location(old.obj, old_mount.path, f"before: claim {old_mount.claim}"))


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


def _dropped(run: Comparison, old_index: dict, new_index: dict) -> None:
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
            related = (_location(other.obj, ("metadata", "name"),
                                 f"the new set has {other.obj.label} instead: another name is another deployment")
                       if other else _absent(run.new, f"no {obj.label} in the new set"))
            graph = old_graphs[key]
            pods = sum(c.pods for c in nim_workers(graph))
            sessions = f", and the live streaming sessions on its {_plural(pods, 'worker pod')}" \
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
            related = _absent(run.new, f"no {obj.label} in the new set")
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
                        _location(new_graph, ("spec",), f"{new_graph.label} without that claim"))


# ---------------------------------------------------------------------------------------------
# The command line.


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"dgdlint diff: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    from dgdlint.cli import add_namespace_option, add_render_options
    from dgdlint.report import FORMATS

    parser = _Parser(
        prog="dgdlint diff",
        description="Say what applying NEW over OLD breaks: immutable fields, lost streaming sessions, a download "
                    "that does not run, a changed or dropped cache, deletions. NEW is also checked as `check` "
                    "would.",
        epilog="Sides: OLD NEW (files, directories or -, at most one -); or --chart DIR with --old-values and/or "
               "--new-values (a side without values renders the chart's defaults); or one PATH and --chart: "
               "PATH is the old side with --new-values (e.g. `helm get manifest RELEASE | dgdlint diff - --chart "
               "DIR --new-values F`), the new side with --old-values.")
    parser.add_argument("paths", nargs="*", metavar="SIDE", help="OLD then NEW: a file, a directory, or -")
    render = add_render_options(parser, values_files=False,
                                title="rendering the chart for the sides given by values (--set applies to both)")
    render.add_argument("--old-values", metavar="FILE", action="append", default=[],
                        help="values file of the old side (repeatable, later wins)")
    render.add_argument("--new-values", metavar="FILE", action="append", default=[],
                        help="values file of the new side (repeatable, later wins)")
    add_namespace_option(parser)
    parser.add_argument("--crd", metavar="PATH_OR_URL", action="append", default=[],
                        help="CRD file, directory, URL or `cluster` for the new side's schema stage (repeatable; "
                             "env DGDLINT_CRD)")
    parser.add_argument("--kubernetes-version", metavar="X.Y", help="Kubernetes version of the built-in schemas")
    parser.add_argument("--format", choices=tuple(FORMATS), default="text", help="report format, as for check")
    parser.add_argument("--output", metavar="FILE", help="write the report to FILE instead of stdout")
    parser.add_argument("--show-fix", action="store_true", help="text: print each finding's remediation")
    return parser


@dataclass
class Side:
    """One side of the diff: a path, or a chart render with its values files."""

    name: str  # "old" or "new"
    path: str | None = None
    values: list[str] | None = None

    def describe(self) -> str:
        return self.path if self.path is not None else f"--chart with {self.name} values"


class _Usage(Exception):
    pass


def resolve_sides(args) -> tuple[Side, Side]:
    paths = list(args.paths)
    if args.chart is None:
        if args.old_values or args.new_values or args.set_values or args.set_string_values:
            raise _Usage("--old-values, --new-values and --set need --chart")
        if len(paths) != 2:
            raise _Usage("give two sides, OLD and NEW (files, directories or -), or --chart DIR with values")
        old, new = Side("old", path=paths[0]), Side("new", path=paths[1])
    elif not (args.old_values or args.new_values):
        raise _Usage("--chart needs --old-values or --new-values (a side without values renders the defaults)")
    elif not paths:
        old, new = Side("old", values=args.old_values), Side("new", values=args.new_values)
    elif len(paths) == 1 and args.new_values and not args.old_values:
        old, new = Side("old", path=paths[0]), Side("new", values=args.new_values)
    elif len(paths) == 1 and args.old_values and not args.new_values:
        old, new = Side("old", values=args.old_values), Side("new", path=paths[0])
    elif len(paths) == 1:
        raise _Usage("with --chart and one SIDE, give only --new-values (SIDE is the old side) or only "
                     "--old-values (SIDE is the new side)")
    else:
        raise _Usage("with --chart, give at most one SIDE path")
    if old.path == "-" and new.path == "-":
        raise _Usage("at most one side can be - (stdin)")
    return old, new


def load_side(side: Side, args) -> tuple[LoadResult, list[Finding]]:
    """The side's documents, and a finding when its chart does not render. Path problems raise UsageError."""
    from dgdlint.load import load_paths, load_text

    if side.path is not None:
        return load_paths([side.path]), []
    from dgdlint.render import RenderError, RenderRequest, render_chart, render_finding

    request = RenderRequest(chart=args.chart, values_files=list(side.values or []), set_values=args.set_values,
                            set_string_values=args.set_string_values, release=args.release,
                            namespace=args.namespace)
    loaded = LoadResult()
    try:
        templates = render_chart(request, engine=args.engine)
    except RenderError as error:
        return loaded, [render_finding(args.chart, str(error), list(side.values or []))]
    # Both sides of a chart diff render the same template names; the old side's carry a prefix (a plain
    # relative path, so that every output format, SARIF's URIs included, can carry it).
    prefix = "old/" if side.name == "old" else ""
    for template in templates:
        load_text(prefix + template.source, template.text, loaded)
    return loaded, []


def _usage(message: str) -> int:
    print(f"dgdlint diff: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    from dgdlint import policy
    from dgdlint.engine import CheckResult, apply_policy, check_loaded
    from dgdlint.load import UsageError
    from dgdlint.model import build_model
    from dgdlint.report import FORMATS, write_report
    from dgdlint.schema import CrdError, SchemaStage, crd_sources_from_env

    try:
        args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exit_:  # --help, or a usage error argparse has already printed
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    try:
        old_side, new_side = resolve_sides(args)
    except _Usage as error:
        return _usage(str(error))
    try:
        config = policy.load_config(None)
        schema_stage = SchemaStage(args.crd or crd_sources_from_env(), args.kubernetes_version)
    except (CrdError, policy.ConfigError) as error:
        return _usage(str(error))
    try:
        old_loaded, old_failed = load_side(old_side, args)
        new_loaded, new_failed = load_side(new_side, args)
    except UsageError as error:
        return _usage(str(error))

    old_model = build_model(old_loaded, args.namespace)
    if new_failed and not new_loaded.documents:
        new_model = build_model(new_loaded, args.namespace)
        result = CheckResult(list(new_model.findings), new_model, list(new_loaded.files),
                             schema_skipped=not schema_stage.has_crds)
    else:
        result = check_loaded(new_loaded, schema_stage, args.namespace)
    # The old side contributes what keeps it from loading, never its own rule findings.
    old_broken = [f for f in old_model.findings if f.severity == "error"] + old_failed
    result.findings += old_broken + new_failed
    result.files = list(old_loaded.files) + list(result.files)
    new_files = set(new_loaded.files)
    new_broken = new_failed or any(f.stage == "parse" and f.severity == "error" and f.file in new_files
                                   for f in result.findings)
    if old_broken or new_broken:
        broken = " and ".join(s.describe() for s, bad in ((old_side, old_broken), (new_side, new_broken)) if bad)
        print(f"dgdlint diff: {broken} did not load cleanly; the two sides were not compared", file=sys.stderr)
    else:
        result.findings += compare(old_model, result.model)
    # The project's configuration and suppression annotations (on the new objects), as check applies them,
    # to the diff findings too.
    apply_policy(result, config)

    options = {"show_fix": args.show_fix} if args.format == "text" else {}
    problem = write_report(FORMATS[args.format](result, **options), args.output)
    if problem:
        return _usage(f"--output {problem}")
    return EXIT_FINDINGS if result.failed else EXIT_OK
