"""Which Job downloads a Cosmos3 graph's model: the download container of a Job, and the Jobs that belong to
a graph (of its Helm release, else of its namespace by cache claim, image repository or model), found
through indexes built once per model."""

from __future__ import annotations

from dgdlint.cosmos import env_text, image_repository, is_cosmos_graph, nim_workers, runs_nim, worker_claims
from dgdlint.model import Container, Graph, Model, Workload


def download_container(job: Workload) -> Container | None:
    """The container of a Job that downloads the NIM model: the one with the model env, else a GPU, else NIM."""
    nim = [c for c in job.all_containers if runs_nim(c)]
    for container in nim:
        if container.env_var("NIM_MODEL_VARIANT") is not None or container.env_var("NIM_PRECISION") is not None:
            return container
    for container in nim:
        if container.gpu_request() is not None:
            return container
    return nim[0] if nim else None


RELEASE_LABEL = "app.kubernetes.io/instance"


def _model_key(container: Container) -> tuple:
    return env_text(container, "NIM_MODEL_VARIANT"), env_text(container, "NIM_PRECISION")


def _release(labels: object) -> str | None:
    return labels.get(RELEASE_LABEL) if isinstance(labels, dict) and isinstance(labels.get(RELEASE_LABEL), str) \
        else None


def _download_index(model: Model) -> dict:
    """Indexes built once per model, so pairing Jobs with graphs stays linear: the candidate download Jobs by
    (namespace, release label), (namespace, claim), (namespace, image repository) and (namespace, model), and
    the number of Cosmos3 graphs per namespace."""

    def compute():
        index: dict[str, dict] = {"release": {}, "claim": {}, "repository": {}, "model": {}, "graphs": {}}
        for job in model.jobs():
            container = download_container(job)
            if container is None:
                continue
            namespace, pair = job.obj.namespace, (job, container)
            release = _release(job.obj.metadata.get("labels"))
            if release:
                index["release"].setdefault((namespace, release), []).append(pair)
            for claim in dict.fromkeys(m.claim for m in container.mounts if m.claim):
                index["claim"].setdefault((namespace, claim), []).append(pair)
            repository = image_repository(container.image)
            if repository:
                index["repository"].setdefault((namespace, repository), []).append(pair)
            index["model"].setdefault((namespace, _model_key(container)), []).append(pair)
        for graph in model.graphs:
            if is_cosmos_graph(graph):
                index["graphs"][graph.obj.namespace] = index["graphs"].get(graph.obj.namespace, 0) + 1
        return index

    return model.memo("download-index", compute)


def download_jobs(model: Model, graph: Graph) -> list[tuple[Workload, Container]]:
    """The Jobs that prepare this graph's cache, as (Job, download container).

    A Job of the same Helm release (label app.kubernetes.io/instance) belongs to the graph. Otherwise a Job
    in the graph's namespace that mounts one of the workers' cache claims or runs the workers' image
    repository; with several Cosmos3 graphs in the namespace, only the Jobs that download this graph's
    variant and precision (another NIM's Job, or another pool's, is not this graph's download). Asked by several
    rules of every graph, so remembered on it (a graph belongs to one model)."""
    known = graph.__dict__.get("_download_jobs")
    if known is None:
        known = graph.__dict__["_download_jobs"] = _download_jobs(model, graph)
    return list(known)


def _download_jobs(model: Model, graph: Graph) -> list[tuple[Workload, Container]]:
    index = _download_index(model)
    namespace = graph.obj.namespace
    release = _release(graph.obj.metadata.get("labels"))
    if release and (namespace, release) in index["release"]:
        return list(index["release"][(namespace, release)])
    workers = nim_workers(graph)
    related: dict[int, tuple[Workload, Container]] = {}
    if index["graphs"].get(namespace, 0) > 1:
        keys = dict.fromkeys(_model_key(worker.main) for worker in workers)  # in the workers' order, not a set's
        candidates = [pair for key in keys for pair in index["model"].get((namespace, key), [])]
        claims = worker_claims(graph)
        repositories = {image_repository(worker.main.image) for worker in workers}
        for job, container in candidates:
            if {m.claim for m in container.mounts if m.claim} & claims or \
                    image_repository(container.image) in repositories:
                related.setdefault(id(job), (job, container))
        return list(related.values())
    for claim in sorted(worker_claims(graph)):
        for pair in index["claim"].get((namespace, claim), []):
            related.setdefault(id(pair[0]), pair)
    for repository in sorted({image_repository(w.main.image) for w in workers} - {None}):
        for pair in index["repository"].get((namespace, repository), []):
            related.setdefault(id(pair[0]), pair)
    return list(related.values())
