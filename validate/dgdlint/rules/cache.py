"""The model cache (invariant 5) and the operator's volume admission facts: the workers and the download
Job share one claim at /opt/nim/.cache, shareable when several pods mount it, and every mount names a
volume that exists."""

from __future__ import annotations

from dgdlint.cosmos import NIM_CACHE_PATH, cache_mounts, env_text, is_cosmos_graph, nim_workers
from dgdlint.downloads import download_jobs
from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.rules.registry import Hit, rule

HOSTNAME_LABEL = "kubernetes.io/hostname"


@rule(
    name="cache-claim-mismatch", code="DGD401", severity="error", family="cache",
    title="The download Job fills the claim the workers mount",
    rationale="""The Job downloads into the claim it mounts; workers that mount another claim at
    /opt/nim/.cache start with an empty cache and download again (or fail without network).""",
    remediation="Mount the same PersistentVolumeClaim at /opt/nim/.cache in the workers and the Job.",
    reads=("DynamoGraphDeployment", "Job"),
)
def cache_claim_mismatch(model: Model):
    for graph in model.graphs:
        if not is_cosmos_graph(graph):
            continue
        for job, container in download_jobs(model, graph):
            job_claims = {m.claim for m in cache_mounts(container) if m.claim}
            for worker in nim_workers(graph):
                for mount in cache_mounts(worker.main):
                    if mount.claim and job_claims and mount.claim not in job_claims:
                        job_mount = cache_mounts(container)[0]
                        yield Hit(graph.obj, mount.path,
                                  f"{worker.label} mounts claim {mount.claim!r} at {NIM_CACHE_PATH} but {job.label} "
                                  f"downloads into {', '.join(sorted(job_claims))!s}",
                                  related=[job.obj.location(job_mount.path, f"{job.label}'s cache mount")])
                    elif mount.claim and not job_claims:
                        yield Hit(graph.obj, mount.path,
                                  f"{worker.label} mounts claim {mount.claim!r} at {NIM_CACHE_PATH} but {job.label} "
                                  f"mounts no claim there: its download is lost when the pod ends",
                                  related=[job.obj.location(container.path, f"{job.label}'s download container")])


def _pinned_to_one_node(pod) -> bool:
    if pod.node_name:
        return True
    if HOSTNAME_LABEL in pod.node_selector:
        return True
    node_affinity = as_map(pod.affinity.get("nodeAffinity"))
    required = as_map(node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution"))
    terms = as_list(required.get("nodeSelectorTerms"))

    def pins(term) -> bool:
        return any(as_str(expr.get("key")) == HOSTNAME_LABEL and as_str(expr.get("operator")) == "In"
                   and len(as_list(expr.get("values"))) == 1
                   for expr in map(as_map, as_list(as_map(term).get("matchExpressions"))))

    return bool(terms) and all(pins(term) for term in terms)


@rule(
    name="cache-access-mode", code="DGD402", severity="error", family="cache",
    title="A cache mounted by several worker pods is ReadWriteMany",
    rationale="""A ReadWriteOnce volume attaches to one node: with more than one worker pod (replicas or
    several workers) the pods on other nodes stay Pending with a multi-attach error.""",
    remediation="Create the cache with accessModes [ReadWriteMany] on a storage class that supports it, or "
                "pin the workers to one node.",
    reads=("DynamoGraphDeployment", "PersistentVolumeClaim"),
)
def cache_access_mode(model: Model):
    for graph in model.graphs:
        if not is_cosmos_graph(graph):
            continue
        workers = nim_workers(graph)
        pods = sum(worker.pods for worker in workers)
        if pods <= 1 or all(_pinned_to_one_node(worker.pod) for worker in workers):
            continue
        reported = set()
        for worker in workers:
            for mount in cache_mounts(worker.main):
                claim = model.pvc(graph.obj.namespace, mount.claim) if mount.claim else None
                if claim is None or mount.claim in reported:
                    continue
                modes = claim.access_modes
                if modes and "ReadWriteMany" not in modes:
                    reported.add(mount.claim)
                    yield Hit(graph.obj, mount.path,
                              f"{pods} worker pods of {graph.obj.label} mount claim {mount.claim!r}, whose access "
                              f"mode is {', '.join(modes)}: pods on a second node cannot attach it",
                              related=[claim.obj.location(claim.path + (("spec", "accessModes") if not claim.path
                                                                        else ("volumeAccessMode",)),
                                                          f"{mount.claim}'s access mode")])


@rule(
    name="cache-mount-path", code="DGD403", severity="error", family="cache",
    title="NIM workers and the download Job mount the cache at /opt/nim/.cache",
    rationale="""The NIM reads and writes its model cache at NIM_CACHE_PATH, /opt/nim/.cache. Without a
    claim mounted there (whole, without subPath) every pod start downloads the model again into
    ephemeral storage.""",
    remediation="Mount the cache claim at /opt/nim/.cache without subPath, and keep NIM_CACHE_PATH at that path.",
    reads=("DynamoGraphDeployment", "Job"),
)
def cache_mount_path(model: Model):
    seen_jobs = set()
    for graph in model.graphs:
        if not is_cosmos_graph(graph):
            continue
        parts = [(worker, worker.main, graph.obj) for worker in nim_workers(graph)]
        for job, container in download_jobs(model, graph):
            if id(job) not in seen_jobs:
                seen_jobs.add(id(job))
                parts.append((job, container, job.obj))
        for owner, container, obj in parts:
            mounts = cache_mounts(container)
            cache_path = env_text(container, "NIM_CACHE_PATH")
            if cache_path and cache_path.rstrip("/") != NIM_CACHE_PATH:
                entry = container.env_var("NIM_CACHE_PATH")
                yield Hit(obj, entry.path, f"{owner.label}: NIM_CACHE_PATH is {cache_path!r}; the chart, Job and "
                                           f"workers share {NIM_CACHE_PATH}")
            if not mounts:
                yield Hit(obj, container.path, f"{owner.label} mounts no volume at {NIM_CACHE_PATH}: the model "
                                               "is downloaded into ephemeral storage on every start")
            for mount in mounts:
                if mount.sub_path:
                    yield Hit(obj, mount.path + ("subPath",),
                              f"{owner.label} mounts the cache with subPath {mount.sub_path!r}; the Job and "
                              "workers must see the same tree")


@rule(
    name="volume-mount-unknown", code="DGD404", severity="error", family="admission",
    title="Every volume mount names a listed PVC or pod volume",
    rationale="""A v1alpha1 `volumeMounts[].name` must be one of `spec.pvcs` (the operator does not check
    it and the pod fails to start). A container's `volumeMounts[].name` must be a pod volume, or one the
    operator adds to the pod: the compilation cache's (named after its claim), and for each mount of the
    main container that names no pod volume, a volume of the claim of that name (the operator's pod
    builder), which must then be a claim of the set (or of the cluster: the pod waits for it).""",
    remediation="List the PVC in spec.pvcs (v1alpha1) or add the volume to the pod's volumes.",
)
def volume_mount_unknown(model: Model):
    claims = {(pvc.namespace, pvc.name) for pvc in model.pvcs}
    for graph in model.graphs:
        listed = graph.listed_pvc_names()
        known = {name for namespace, name in claims if namespace == graph.obj.namespace} | listed
        for component in graph.components:
            for mount, mount_path in component.own_volume_mounts():
                name = as_str(mount.get("name"))
                if name and name not in listed:
                    yield Hit(graph.obj, mount_path + ("name",),
                              f"{component.label} mounts {name!r}, which is not in spec.pvcs "
                              f"({', '.join(sorted(listed)) or 'empty'})")
            volumes = component.pod.volumes()
            cache = _v1beta1_cache_claim(graph, component)
            # the volumes the operator adds, each named after its claim: one for each volume the main container
            # mounts (a v1alpha1 service's mounts are the main container's), the compilation cache's
            added = {mount.volume for mount in component.main.mounts if mount.volume} | ({cache} if cache else set())
            for container in component.all_containers:
                main = container is component.main
                for mount in container.mounts:
                    if mount.path[:-1] == component.path + ("volumeMounts",):
                        continue  # a v1alpha1 service-level mount: checked against spec.pvcs above
                    if mount.volume in volumes or mount.volume in added and not main:
                        continue
                    if not main:
                        yield Hit(graph.obj, mount.path + ("name",),
                                  f"{component.label}: container {container.name or 'main'} mounts volume "
                                  f"{mount.volume!r}, which the pod does not define")
                    elif mount.volume not in known and mount.volume != cache:
                        yield Hit(graph.obj, mount.path + ("name",),
                                  f"{component.label}: the main container mounts volume {mount.volume!r}, which "
                                  "the pod does not define; the operator mounts the claim of that name in its "
                                  "place, and the set has no such claim")


def _v1beta1_cache_claim(graph, component) -> str | None:
    """A v1beta1 component's compilation cache claim, whose volume the operator adds to the pod (a v1alpha1
    service's is one of its own mounts, checked against spec.pvcs)."""
    cache = component.compilation_cache() if graph.shape == "components" else None
    return cache[0] if cache else None


def _named(entry: dict) -> str:
    """An entry's name for a message; never Python's None."""
    name = as_str(entry.get("name"))
    return repr(name) if name else "without a name"


@rule(
    name="volume-mount-point-missing", code="DGD405", severity="error", family="admission",
    title="A v1alpha1 volume mount has a mountPoint",
    rationale="""The operator rejects a `volumeMounts` entry without `mountPoint` unless it is the
    compilation cache (`useAsCompilationCache: true`, which has a default path).""",
    remediation="Add mountPoint (e.g. /opt/nim/.cache) to the volume mount.",
)
def volume_mount_point_missing(model: Model):
    for graph in model.graphs:
        for component in graph.components:
            for mount, mount_path in component.own_volume_mounts():
                if not as_str(mount.get("mountPoint")) and mount.get("useAsCompilationCache") is not True:
                    yield Hit(graph.obj, mount_path,
                              f"{component.label}: volume mount {_named(mount)} has no mountPoint")


@rule(
    name="pvc-create-incomplete", code="DGD406", severity="error", family="admission",
    title="A PVC the operator creates has size, storageClass and volumeAccessMode",
    rationale="""With `create: true` the operator needs all three to create the claim. Left out, the CRD's
    validation rule rejects the apply; given as empty text, the apply passes that rule (it asks only that
    the fields be present) but leaves the operator no size, class or access mode to create the claim
    with.""",
    remediation="Add size, storageClass and volumeAccessMode to the spec.pvcs entry, or set create: false "
                "for an existing claim.",
)
def pvc_create_incomplete(model: Model):
    for graph in model.graphs:
        for entry, path in graph.pvc_entries:
            if entry.get("create") is not True:
                continue
            missing = [key for key in ("size", "storageClass", "volumeAccessMode") if entry.get(key) in (None, "")]
            if missing:
                yield Hit(graph.obj, path, f"{graph.obj.label}: spec.pvcs entry {_named(entry)} has "
                                           f"create: true but no {', '.join(missing)}")
