"""Model selection (invariants 3 and 4): variant, precision, GPU count and tags selector agree with the
support matrix and with each other, in the workers and in the download Job; Edge runs without DFlash."""

from __future__ import annotations

from dgdlint.cosmos import (
    env_text,
    is_cosmos_container,
    is_cosmos_graph,
    nim_workers,
    parse_tags_selector,
    same_model_value,
    support_matrix,
)
from dgdlint.downloads import download_jobs
from dgdlint.model import Container, Model, canonical_json
from dgdlint.rules.registry import Hit, rule


def _nim_containers(model: Model):
    """(owner, container) for every Cosmos3 worker main container and every Cosmos3 download container: the
    support matrix is Cosmos3's, so another NIM's variants are not judged by it."""
    for graph in model.graphs:
        if is_cosmos_graph(graph):
            for worker in nim_workers(graph):
                if is_cosmos_container(worker.main):
                    yield worker, worker.main
    for job in model.jobs():
        for container in job.all_containers:
            if is_cosmos_container(container) and (container.env_var("NIM_MODEL_VARIANT")
                                                   or container.env_var("NIM_PRECISION")):
                yield job, container


def _where(container: Container, name: str) -> tuple:
    return container.env_path(name)


@rule(
    name="edge-dflash-enabled", code="DGD301", severity="error", family="model",
    title="Edge runs with DFlash off and speculative method `none`",
    rationale="""Edge ships no DFlash draft model. With `NIM_USE_DFLASH` other than 0, or a streaming
    speculative method other than `none` (the 2.1.0 default is `dflash`), the NIM looks for a draft that
    does not exist, in the download Job and in the workers alike, in every mode.""",
    remediation="Set NIM_USE_DFLASH=0 and NIM_STREAMING_SPEC_METHOD=none in the workers and the download "
                "Job of an Edge deployment (replace the existing entries, do not add second ones).",
    reads=("DynamoGraphDeployment", "Job"),
    fixable="""Sets NIM_USE_DFLASH=0 and NIM_STREAMING_SPEC_METHOD=none in Edge workers and download Jobs,
    replacing the existing entries.""",
)
def edge_dflash_enabled(model: Model):
    matrix = support_matrix()
    for owner, container in _nim_containers(model):
        variant = env_text(container, "NIM_MODEL_VARIANT")
        if not variant or variant not in matrix.variants or matrix.has_dflash(variant):
            continue
        for name, wanted in (("NIM_USE_DFLASH", "0"), ("NIM_STREAMING_SPEC_METHOD", "none")):
            value = env_text(container, name)
            if value != wanted:
                shown = "unset (the image default turns it on)" if value is None else repr(value)
                yield Hit(container.obj, _where(container, name),
                          f"{owner.label}: variant {variant!r} has no DFlash draft, but {name} is {shown}; "
                          f"it must be {wanted!r}")


@rule(
    name="precision-unsupported", code="DGD302", severity="error", family="model",
    title="Variant and precision are a supported pair",
    rationale="""The NIM has profiles only for the pairs in the support matrix (Edge: bf16 and fp8; Nano
    and Super: bf16, fp8, nvfp4). Any other pair finds no profile and the worker never starts.""",
    remediation="Pick a precision the variant supports (see the support matrix).",
    reads=("DynamoGraphDeployment", "Job"),
)
def precision_unsupported(model: Model):
    matrix = support_matrix()
    for owner, container in _nim_containers(model):
        variant = env_text(container, "NIM_MODEL_VARIANT")
        precision = env_text(container, "NIM_PRECISION")
        if variant is not None and variant not in matrix.variants:
            yield Hit(container.obj, _where(container, "NIM_MODEL_VARIANT"),
                      f"{owner.label}: NIM_MODEL_VARIANT {variant!r} is not a Cosmos3 Reasoner variant "
                      f"(use one of {', '.join(matrix.variants)})")
            continue
        if variant and precision is not None and precision not in matrix.precisions_of(variant):
            yield Hit(container.obj, _where(container, "NIM_PRECISION"),
                      f"{owner.label}: precision {precision!r} is not supported for variant {variant!r} "
                      f"(use one of {', '.join(matrix.precisions_of(variant))})")


@rule(
    name="spec-method-unknown", code="DGD303", severity="error", family="model",
    title="The streaming speculative method is one the NIM knows",
    rationale="NIM_STREAMING_SPEC_METHOD accepts `dflash`, `ngram` or `none`; any other value fails at start.",
    remediation="Set NIM_STREAMING_SPEC_METHOD to dflash, ngram or none.",
    reads=("DynamoGraphDeployment", "Job"),
)
def spec_method_unknown(model: Model):
    methods = support_matrix().spec_methods
    for owner, container in _nim_containers(model):
        value = env_text(container, "NIM_STREAMING_SPEC_METHOD")
        if value is not None and value not in methods:
            yield Hit(container.obj, _where(container, "NIM_STREAMING_SPEC_METHOD"),
                      f"{owner.label}: NIM_STREAMING_SPEC_METHOD {value!r} is not one of {', '.join(methods)}")


def _gpu_count(container: Container) -> int | None:
    found = container.gpu_request()
    return found[1] if found else None


@rule(
    name="gpu-count-unsupported", code="DGD304", severity="error", family="model",
    title="The worker's GPU count is one the variant and precision support",
    rationale="""Each variant/precision pair has profiles for given GPU counts only (Super BF16: 2 with
    TP2, or 1 with about 135 GiB; the rest: 1). Another count selects no profile, or wastes GPUs.""",
    remediation="Request the GPU count the support matrix lists, and change NIM_TAGS_SELECTOR with it.",
)
def gpu_count_unsupported(model: Model):
    matrix = support_matrix()
    for graph in model.graphs:
        if not is_cosmos_graph(graph):
            continue
        for worker in nim_workers(graph):
            if not is_cosmos_container(worker.main):
                continue
            variant = env_text(worker.main, "NIM_MODEL_VARIANT")
            precision = env_text(worker.main, "NIM_PRECISION")
            allowed = matrix.gpu_counts(variant or "", precision or "")
            found = worker.main.gpu_request()
            if not allowed:
                continue
            if found is None:
                yield Hit(graph.obj, worker.main.path, f"{worker.label} requests no GPU; {variant} {precision} "
                                                       f"needs {' or '.join(map(str, allowed))}")
            elif found[1] not in allowed:
                yield Hit(graph.obj, found[2], f"{worker.label} requests {found[1]} GPU(s) ({found[0]}); "
                                               f"{variant} {precision} runs on {' or '.join(map(str, allowed))}")


@rule(
    name="tags-selector-mismatch", code="DGD305", severity="error", family="model",
    title="NIM_TAGS_SELECTOR agrees with the GPUs requested",
    rationale="""The tags selector picks the profile: `n_gpus` and `nim_tp` must equal the GPUs the
    container gets (with `nim_dp=1`), or the NIM selects a profile for hardware it does not have.""",
    remediation="Set NIM_TAGS_SELECTOR=n_gpus=N,nim_tp=N,nim_dp=1 with N the GPUs requested.",
    reads=("DynamoGraphDeployment", "Job"),
)
def tags_selector_mismatch(model: Model):
    for owner, container in _nim_containers(model):
        text = env_text(container, "NIM_TAGS_SELECTOR")
        count = _gpu_count(container)
        if text is None or count is None:
            continue
        tags = parse_tags_selector(text)
        problems = []
        for key in ("n_gpus",):
            if key in tags and tags[key] != str(count):
                problems.append(f"{key}={tags[key]}")
        if "nim_tp" in tags:
            try:
                tp, dp = int(tags["nim_tp"]), int(tags.get("nim_dp", "1"))
                if tp * dp != count:
                    problems.append(f"nim_tp x nim_dp = {tp * dp}")
            except ValueError:
                problems.append(f"nim_tp={tags['nim_tp']}")
        if problems:
            yield Hit(container.obj, _where(container, "NIM_TAGS_SELECTOR"),
                      f"{owner.label}: NIM_TAGS_SELECTOR {text!r} ({', '.join(problems)}) does not match the "
                      f"{count} GPU(s) requested")


MODEL_ENV = ("NIM_MODEL_VARIANT", "NIM_PRECISION", "NIM_TAGS_SELECTOR", "NIM_MODEL_TYPE")


@rule(
    name="download-job-model-mismatch", code="DGD306", severity="error", family="model",
    title="The download Job fetches the model the workers run",
    rationale="""The Job fills the cache for the variant, precision and tags selector it is given; a
    worker that asks for another one finds nothing cached and downloads at start (or fails offline).""",
    remediation="Give the download Job the same NIM_MODEL_VARIANT, NIM_PRECISION and NIM_TAGS_SELECTOR as "
                "the workers.",
    reads=("DynamoGraphDeployment", "Job"),
    fixable="""Gives the Job the value its graphs' workers all run (and, for a variant without a DFlash draft,
    DFlash off, as edge-dflash-enabled asks). Workers that run different values are reported and left: one
    Job downloads one model.""",
)
def download_job_model_mismatch(model: Model):
    for graph in model.graphs:
        if not is_cosmos_graph(graph):
            continue
        workers = nim_workers(graph)
        for job, container in download_jobs(model, graph):
            for worker in workers:
                for name in MODEL_ENV:
                    wanted = env_text(worker.main, name)
                    got = env_text(container, name)
                    if wanted is None or same_model_value(name, wanted, got):
                        continue
                    shown = "does not set it" if got is None else f"has {got!r}"
                    yield Hit(graph.obj, _where(worker.main, name),
                              f"{worker.label} runs {name}={wanted!r} but {job.label} {shown}",
                              related=[job.obj.location(_where(container, name), f"{job.label}'s {name}")])


@rule(
    name="download-job-gpu-selectors", code="DGD307", severity="error", family="model",
    title="The download Job lands on the same GPUs as the workers",
    rationale="""Without a profile, the download picks the best one for the GPUs it sees. A Job on other
    nodes (other nodeSelector, tolerations, affinity) or with another GPU resource or count fetches a
    profile the workers will not select. A Job that pins the profile the workers pin (the same
    NIM_MODEL_PROFILE on both) selects no hardware, so it needs no GPU and may run anywhere: that is
    the download that cannot starve behind workers holding every GPU.""",
    remediation="Give the Job the workers' nodeSelector, tolerations, affinity, GPU resource name and count; "
                "or pin one profile (NIM_MODEL_PROFILE) on the workers and the Job, and drop the Job's GPUs.",
    reads=("DynamoGraphDeployment", "Job"),
)
def download_job_gpu_selectors(model: Model):
    for graph in model.graphs:
        if not is_cosmos_graph(graph):
            continue
        workers = nim_workers(graph)
        worker = workers[0]
        for job, container in download_jobs(model, graph):
            if _pins_the_workers_profile(container, job, workers):
                continue
            for field_name in ("nodeSelector", "tolerations", "affinity"):
                wanted = worker.pod.spec.get(field_name) or None
                got = job.pod.spec.get(field_name) or None
                unordered = field_name == "tolerations"
                if canonical_json(wanted, unordered) != canonical_json(got, unordered):
                    yield Hit(graph.obj, worker.pod.field_path(field_name),
                              f"{worker.label} and {job.label} differ in {field_name}",
                              related=[job.obj.location(job.pod.field_path(field_name), f"{job.label}'s {field_name}")])
            wanted_gpu = worker.main.gpu_request()
            got_gpu = max((c.gpu_request() for c in job.all_containers if c.gpu_request()),
                          key=lambda g: g[1], default=None)
            wanted_pair = (wanted_gpu[0], wanted_gpu[1]) if wanted_gpu else None
            got_pair = (got_gpu[0], got_gpu[1]) if got_gpu else None
            if wanted_pair != got_pair:
                def show(pair):
                    return f"{pair[1]} x {pair[0]}" if pair else "no GPU"

                yield Hit(graph.obj, wanted_gpu[2] if wanted_gpu else worker.main.path,
                          f"{worker.label} requests {show(wanted_pair)} but {job.label} requests {show(got_pair)}",
                          related=[job.obj.location(got_gpu[2] if got_gpu else container.path, f"{job.label}'s GPUs")])


def _pins_the_workers_profile(container, job, workers) -> bool:
    """A GPU-less Job whose NIM_MODEL_PROFILE is the one every worker pins: it selects no hardware."""
    pinned = env_text(container, "NIM_MODEL_PROFILE")
    if not pinned or any(c.gpu_request() for c in job.all_containers):
        return False
    return all(env_text(worker.main, "NIM_MODEL_PROFILE") == pinned for worker in workers)
