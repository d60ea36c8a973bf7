"""The fixes of which model a container runs: DFlash off where the variant ships no draft, and the download
Job taking the model its graphs' workers run. Imported by fixers.py, which holds the registry."""

from __future__ import annotations

from dgdlint.cosmos import env_text, is_cosmos_container, is_cosmos_graph, nim_workers, support_matrix
from dgdlint.edit.plans import Ambiguous, SetEnv
from dgdlint.model import Model


def fix_edge_dflash(model: Model):
    rule = "edge-dflash-enabled"
    owners = []
    for graph in model.graphs:
        if is_cosmos_graph(graph):
            owners += [(w.label, w.obj, w.main) for w in nim_workers(graph) if is_cosmos_container(w.main)]
    for job in model.jobs():
        owners += [(job.label, job.obj, c) for c in job.all_containers if is_cosmos_container(c)
                   and (c.env_var("NIM_MODEL_VARIANT") or c.env_var("NIM_PRECISION"))]
    for label, obj, container in owners:
        yield from _dflash_off(rule, label, obj, container, env_text(container, "NIM_MODEL_VARIANT"))


def _dflash_off(rule: str, label: str, obj, container, variant: str | None, reported_on: tuple = ()):
    """DFlash off in a container of a variant that ships no DFlash draft (Edge)."""
    matrix = support_matrix()
    if not variant or variant not in matrix.variants or matrix.has_dflash(variant):
        return
    for name, wanted in (("NIM_USE_DFLASH", "0"), ("NIM_STREAMING_SPEC_METHOD", "none")):
        if env_text(container, name) != wanted:
            yield SetEnv(rule, obj, container, name, wanted,
                         f"{label}: {name}={wanted} (variant {variant} has no DFlash draft)", reported_on)


def _gpus(containers) -> int:
    return max((found[1] for c in containers if (found := c.gpu_request())), default=0)


def fix_download_model(model: Model):
    """The download Job takes the model its graphs' workers run: for each model field, the one value they
    all agree on. Workers (or graphs sharing a Job) that disagree, a Job whose field comes from valueFrom,
    and a tags selector for another GPU count than the Job's leave the field to a person."""
    from dgdlint.cosmos import same_model_value
    from dgdlint.downloads import download_jobs
    from dgdlint.rules.model_selection import MODEL_ENV

    rule = "download-job-model-mismatch"
    slots: dict[tuple, dict] = {}  # (id of the Job's container, name) -> what the workers run
    for graph in model.graphs:
        if not is_cosmos_graph(graph):
            continue
        for job, container in download_jobs(model, graph):
            for name in MODEL_ENV:
                for worker in nim_workers(graph):
                    value = env_text(worker.main, name)
                    if value is not None:
                        slot = slots.setdefault((id(container), name), {"job": job, "container": container,
                                                                        "values": {}, "graphs": {}, "gpus": set()})
                        slot["values"].setdefault(value, None)
                        slot["graphs"].setdefault(id(graph.obj), graph.obj)
                        slot["gpus"].add(_gpus([worker.main]))
    for (_container, name), slot in slots.items():
        job, container, values = slot["job"], slot["container"], list(slot["values"])
        graphs = tuple(slot["graphs"].values())
        entry, value = container.env_var(name), values[0]
        if any(not same_model_value(name, value, other) for other in values[1:]):
            problem = f"the workers it downloads for run {name} as {' and '.join(sorted(map(repr, values)))}; " \
                      "one Job downloads one model, so which is yours to choose (or a Job for each)"
        elif same_model_value(name, value, env_text(container, name)):
            continue
        elif entry is not None and not entry.is_literal:
            problem = f"its {name} comes from valueFrom; set it to the workers' {value!r} by hand"
        elif name == "NIM_TAGS_SELECTOR" and slot["gpus"] != {_gpus(job.all_containers)}:
            problem = f"it asks for {_gpus(job.all_containers)} GPUs and the workers for " \
                      f"{' or '.join(map(str, sorted(slot['gpus'])))}: give it the workers' GPUs first " \
                      "(download-job-gpu-selectors), then their tags selector"
        else:
            whose = " and ".join(graph.label for graph in graphs)
            yield SetEnv(rule, job.obj, container, name, value, f"{job.label}: {name}={value}, as the workers of "
                         f"{whose} run", graphs)
            if name == "NIM_MODEL_VARIANT":  # and what the variant needs, or the next check finds it missing
                yield from _dflash_off(rule, job.label, job.obj, container, value, graphs)
            continue
        yield Ambiguous(rule, job.obj, container.env_path(name), f"{job.label}: {problem}", graphs)
