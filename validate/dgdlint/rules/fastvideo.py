"""FastVideo workers (video generation): the GPU count the worker is given matches its parallelism flags,
parallelism values are valid, defaults stay within the maxima, and the workload is one FastVideo knows."""

from __future__ import annotations

from dgdlint.model import Model
from dgdlint.rules.registry import Hit, rule
from dgdlint.video import (
    VideoComponent,
    VideoGraph,
    positive_int,
    video_graphs,
)

_FASTVIDEO = """A FastVideo worker is `python -m dynamo.fastvideo` or the `worker.py` of Dynamo's diffusers
example (recognised by a FastVideo image, working directory or flag)."""


def _num_gpus(worker: VideoComponent) -> tuple[int | None, str | None, object]:
    """(count, raw text, token) of --num-gpus; 1 when absent, None when not a positive integer."""
    text, token = worker.flags.value("--num-gpus")
    if token is None:
        return 1, None, None
    return positive_int(text), text, token


def _not_a_count(worker: VideoComponent, flag: str, text: str | None) -> str:
    if text is None:
        return f"{worker.label}: {flag} has no value"
    return f"{worker.label}: {flag} {text!r} is not a positive integer"


@rule(
    name="fastvideo-gpu-count-mismatch", code="DGD711", severity="error", family="fastvideo",
    title="A FastVideo worker requests as many GPUs as --num-gpus",
    rationale="""FastVideo starts one process per `--num-gpus` (1 when absent) and shards the model over
    them. Fewer GPUs in the pod than that and the worker fails to start; more and the extra GPUs sit idle.
    """ + _FASTVIDEO,
    remediation="Make the worker's GPU request (limits) equal to --num-gpus.",
)
def fastvideo_gpu_count_mismatch(model: Model):
    for graph in video_graphs(model):
        for worker in graph.fastvideo_workers:
            count, text, token = _num_gpus(worker)
            if count is None:
                yield Hit(graph.obj, token.path, _not_a_count(worker, "--num-gpus", text))
                continue
            found = worker.main.gpu_request()
            requested = found[1] if found else 0
            if requested == count:
                continue
            given = f"--num-gpus {count}" if token else "--num-gpus 1 (the default)"
            path = found[2] if found else worker.launch_path()
            related = [graph.obj.location(token.path, "--num-gpus")] if token else []
            asked = f"{requested} GPU(s)" if requested else "no GPU"
            yield Hit(graph.obj, path, f"{worker.label} requests {asked} but runs with {given}", related=related)


@rule(
    name="fastvideo-parallelism-invalid", code="DGD712", severity="error", family="fastvideo",
    title="FastVideo's --tp-size x --sp-size divides --num-gpus",
    rationale="""FastVideo splits its GPUs into tensor-parallel (`--tp-size`) by sequence-parallel
    (`--sp-size`) groups; their product must divide `--num-gpus` (so never exceed it), or the worker
    cannot lay out its process groups and exits. Each absent size counts as 1. """ + _FASTVIDEO,
    remediation="Choose --tp-size and --sp-size whose product divides --num-gpus (e.g. --num-gpus 4 --sp-size 4).",
)
def fastvideo_parallelism_invalid(model: Model):
    for graph in video_graphs(model):
        for worker in graph.fastvideo_workers:
            sizes = {}
            bad = False
            for flag in ("--tp-size", "--sp-size"):
                text, token = worker.flags.value(flag)
                if token is None:
                    continue
                value = positive_int(text)
                if value is None:
                    bad = True
                    yield Hit(graph.obj, token.path, _not_a_count(worker, flag, text))
                sizes[flag] = (value, token)
            count, _text, _token = _num_gpus(worker)
            if bad or not sizes or count is None:
                continue
            tp = sizes.get("--tp-size", (1, None))[0]
            sp = sizes.get("--sp-size", (1, None))[0]
            if count % (tp * sp) != 0:
                last = max((token for _v, token in sizes.values()), key=lambda t: worker.flags.tokens.index(t))
                yield Hit(graph.obj, last.path,
                          f"{worker.label}: --tp-size {tp} x --sp-size {sp} = {tp * sp} does not divide "
                          f"--num-gpus {count}")


# examples/diffusers/worker.py's own defaults and bounds, used when only one side of a pair is given.
WORKER_PY_DEFAULTS = {"--default-size": "1280x720", "--default-num-frames": "125",
                      "--default-num-inference-steps": "50", "--max-video-width": "4096",
                      "--max-video-height": "4096", "--max-num-frames": "1024", "--max-num-inference-steps": "200"}
_BOUNDS = (("--default-num-frames", "--max-num-frames"),
           ("--default-num-inference-steps", "--max-num-inference-steps"))


def _setting(worker: VideoComponent, flag: str) -> tuple[str | None, object]:
    """(value, token): the flag's value, or for worker.py its built-in default (token None)."""
    text, token = worker.flags.value(flag)
    if token is not None:
        return text, token
    if worker.flags.module()[0] is None:  # worker.py, not dynamo.fastvideo
        return WORKER_PY_DEFAULTS.get(flag), None
    return None, None


def _size(text: str | None) -> tuple[int, int] | None:
    parts = (text or "").lower().split("x")
    if len(parts) != 2:
        return None
    width, height = positive_int(parts[0]), positive_int(parts[1])
    return (width, height) if width and height else None


@rule(
    name="fastvideo-default-exceeds-max", code="DGD713", severity="error", family="fastvideo",
    title="FastVideo's --default-* request settings are within their --max-* bounds",
    rationale="""A request that leaves out size, frame count or steps gets the worker's `--default-*`
    value, which is then checked against the matching `--max-*` bound (`--default-size` WxH against
    `--max-video-width`/`--max-video-height`, `--default-num-frames` against `--max-num-frames`,
    `--default-num-inference-steps` against `--max-num-inference-steps`). A default above its bound makes
    every such request fail. For the diffusers example's `worker.py`, a side that is not given takes the
    worker's own value (1280x720, 125 frames, 50 steps; bounds 4096x4096, 1024 frames, 200 steps).
    """ + _FASTVIDEO,
    remediation="Lower the --default-* value or raise the matching --max-* bound.",
)
def fastvideo_default_exceeds_max(model: Model):
    for graph in video_graphs(model):
        for worker in graph.fastvideo_workers:
            yield from _size_within_bounds(graph, worker)
            for default_flag, max_flag in _BOUNDS:
                default_text, default_token = _setting(worker, default_flag)
                max_text, max_token = _setting(worker, max_flag)
                if default_token is None and max_token is None:
                    continue
                default, bound = positive_int(default_text), positive_int(max_text)
                for text, token, flag in ((default_text, default_token, default_flag), (max_text, max_token, max_flag)):
                    if token is not None and positive_int(text) is None:
                        yield Hit(graph.obj, token.path, _not_a_count(worker, flag, text))
                if default is None or bound is None or default <= bound:
                    continue
                where = (default_token or max_token).path
                yield Hit(graph.obj, where,
                          f"{worker.label}: {default_flag} {default}{'' if default_token else ' (built-in)'} "
                          f"exceeds {max_flag} {bound}{'' if max_token else ' (built-in)'}")


def _size_within_bounds(graph: VideoGraph, worker: VideoComponent):
    size_text, size_token = _setting(worker, "--default-size")
    width_text, width_token = _setting(worker, "--max-video-width")
    height_text, height_token = _setting(worker, "--max-video-height")
    if size_token is None and width_token is None and height_token is None:
        return
    size = _size(size_text)
    if size_token is not None and size is None:
        what = "has no value" if size_text is None else f"{size_text!r} is not WxH"
        yield Hit(graph.obj, size_token.path, f"{worker.label}: --default-size {what}")
    for label, value, (text, token) in (("width", size[0] if size else None, (width_text, width_token)),
                                        ("height", size[1] if size else None, (height_text, height_token))):
        bound = positive_int(text)
        if token is not None and bound is None:
            yield Hit(graph.obj, token.path, _not_a_count(worker, f"--max-video-{label}", text))
            continue
        if value is None or bound is None or value <= bound:
            continue
        where = (size_token or token).path
        shown_size = f"{size[0]}x{size[1]}{'' if size_token else ' (built-in)'}"
        yield Hit(graph.obj, where,
                  f"{worker.label}: --default-size {shown_size} has {label} {value} over --max-video-{label} "
                  f"{bound}{'' if token else ' (built-in)'}")


KNOWN_WORKLOADS = ("t2v", "i2v", "v2v", "t2i")


@rule(
    name="fastvideo-workload-unknown", code="DGD714", severity="warning", family="fastvideo",
    title="FastVideo's workload type is one it knows",
    rationale="""FastVideo selects its pipeline by workload: text-to-video `t2v`, image-to-video `i2v`,
    video-to-video `v2v`, text-to-image `t2i`. Another value is probably a typo and selects no pipeline, or
    one the model does not support. """ + _FASTVIDEO,
    remediation="Set --workload to t2v, i2v, v2v or t2i.",
)
def fastvideo_workload_unknown(model: Model):
    for graph in video_graphs(model):
        for worker in graph.fastvideo_workers:
            for flag in ("--workload", "--workload-type"):
                text, token = worker.flags.value(flag)
                if token is not None and (text or "").strip().lower() not in KNOWN_WORKLOADS:
                    given = "has no value" if text is None else f"{text!r} is not a workload FastVideo knows"
                    yield Hit(graph.obj, token.path,
                              f"{worker.label}: {flag} {given} ({', '.join(KNOWN_WORKLOADS)})")
