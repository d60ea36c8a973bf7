"""Video graphs (DOMAIN sections 5 and 6): video understanding on vLLM, SGLang and TRT-LLM workers
(frame count, multimodal switch, GPU decode capability, media fetch policy, codecs) and video
generation with FastVideo (GPU count, parallelism, request defaults within their bounds, workload).

A worker *takes media* when it is not a video-generation worker and either shows it itself (a
multimodal flag such as `--enable-multimodal`, `--frontend-decoding`, `--media-io-kwargs`, `--mm-*`,
`--limit-mm-*`; a `DYN_MM_*` env; `DYN_VLLM_ENABLE_MULTIMODAL` on), or runs an LLM backend (vllm,
sglang, trtllm) in a graph that does: another worker shows it, the frontend sets a `DYN_MM_*` env, or
the graph declares video codecs (`dgdlint/video-codecs`)."""

from __future__ import annotations

from dgdlint.model import Model
from dgdlint.rules.registry import Hit, rule
from dgdlint.runtime_images import sets_video_capability
from dgdlint.video import (
    ALLOW_INTERNAL_ENV,
    CODECS_ANNOTATION,
    DEFAULT_NUM_FRAMES,
    DRIVER_CAPABILITIES_ENV,
    DRIVER_CAPABILITY_NAMES,
    FRONTEND_DECODING_SINCE,
    HARDWARE_CODECS,
    MULTIMODAL_ENV,
    NUM_FRAMES_ENV,
    SOFTWARE_CODECS,
    VideoComponent,
    VideoGraph,
    env_path,
    is_true,
    nvidia_gpus,
    positive_int,
    runtime_version,
    video_graphs,
)
from dgdlint.webhook_model import GraphView
from dgdlint.withheld import shown

_TAKES_MEDIA = """A worker takes media when it is not a video-generation worker and shows it itself (a multimodal
flag: `--enable-multimodal`, `--frontend-decoding`, `--media-io-kwargs`, `--mm-*`, `--limit-mm-*`,
`--multimodal-*`; a `DYN_MM_*` env; `DYN_VLLM_ENABLE_MULTIMODAL` on), or runs vLLM, SGLang or TRT-LLM in
a graph that takes media (another worker shows it, the frontend sets a `DYN_MM_*` env, or the graph
declares codecs in the `dgdlint/video-codecs` annotation)."""


def _why(graph: VideoGraph, worker: VideoComponent) -> str:
    if worker.media_signals:
        return f"it has {worker.media_signals[0][0]}"
    return f"the graph takes media: {graph.media_reason}"


def _frames(value: str | None) -> str:
    text = (value if value is not None else DEFAULT_NUM_FRAMES).strip()
    number = positive_int(text)
    return str(number) if number is not None else text


@rule(
    name="video-num-frames-mismatch", code="DGD701", severity="error", family="video",
    title="DYN_MM_VIDEO_NUM_FRAMES is the same on the frontend and every media worker",
    rationale="""The frontend's preprocessor samples `DYN_MM_VIDEO_NUM_FRAMES` frames from a clip (32 when
    unset) and the worker plans its prompt for its own value; when they differ, the frames sent do not
    match what the worker expects and video requests fail or are silently truncated. Unset counts as 32,
    so a recipe that sets it on the worker only is a mismatch. """ + _TAKES_MEDIA,
    remediation="Set DYN_MM_VIDEO_NUM_FRAMES to one value on the frontend and every worker that takes media "
                "(or leave it unset everywhere for 32).",
    fixable="""Copies the value to the frontend and media workers that leave it unset, when every component
    that sets it agrees (as numbers: `064` is 64); values that differ are reported and left.""",
)
def video_num_frames_mismatch(model: Model):
    for graph in video_graphs(model):
        parts = graph.frontends + graph.media_workers
        if not any(part.main.env_var(NUM_FRAMES_ENV) for part in parts):
            continue  # unset everywhere: 32 everywhere
        reference = next(iter(graph.frontends), None) or next(p for p in parts if p.main.env_var(NUM_FRAMES_ENV))
        ref_entry = reference.main.env_var(NUM_FRAMES_ENV)
        if ref_entry is not None and ref_entry.value is None:
            continue  # from a ConfigMap or field: not knowable here
        expected = _frames(ref_entry.value if ref_entry else None)

        def anchor(graph=graph, reference=reference):  # placed only for a finding: a place may cost a re-read
            return graph.obj.location(env_path(reference.component, NUM_FRAMES_ENV),
                                      f"{reference.component.name}'s {NUM_FRAMES_ENV}")

        for part in parts:
            if part is reference:
                continue
            entry = part.main.env_var(NUM_FRAMES_ENV)
            if entry is not None and entry.value is None:
                continue
            value = _frames(entry.value if entry else None)
            if value == expected:
                continue
            have = f"sets {NUM_FRAMES_ENV}={shown(entry.value)}" if entry else \
                f"leaves {NUM_FRAMES_ENV} unset ({DEFAULT_NUM_FRAMES})"
            want = f"sets {expected}" if ref_entry else f"leaves it unset ({DEFAULT_NUM_FRAMES})"
            yield Hit(graph.obj, env_path(part.component, NUM_FRAMES_ENV),
                      f"{part.label} {have} but {reference.component.name} {want}", related=[anchor()])


@rule(
    name="multimodal-flag-missing", code="DGD702", severity="error", family="video",
    title="vLLM and TRT-LLM workers that take media run with --enable-multimodal",
    rationale="""Dynamo's vLLM and TRT-LLM workers accept image and video content parts only when started
    with `--enable-multimodal` (env form `DYN_VLLM_ENABLE_MULTIMODAL`); without it every media request
    fails. """ + _TAKES_MEDIA + """ SGLang has no such switch.""",
    remediation="Add --enable-multimodal to the worker's command (or set DYN_VLLM_ENABLE_MULTIMODAL=true) on "
                "every vLLM and TRT-LLM worker of a graph that takes media.",
    fixable="""Adds --enable-multimodal after the worker's dynamo.vllm or dynamo.trtllm (in its command list,
    or in a script where the module appears once).""",
)
def multimodal_flag_missing(model: Model):
    for graph in video_graphs(model):
        for worker in graph.media_workers:
            if worker.backend not in ("vllm", "trtllm") or worker.multimodal_enabled():
                continue
            related = [graph.obj.location(worker.media_signals[0][1], worker.media_signals[0][0])] \
                if worker.media_signals else []
            yield Hit(graph.obj, worker.launch_path(),
                      f"{worker.label} takes media ({_why(graph, worker)}) but runs {worker.backend} without "
                      f"--enable-multimodal or {MULTIMODAL_ENV}",
                      related=related)


def _decoding_workers(model: Model):
    """(graph, worker, gpus) for media workers with NVIDIA GPUs in graphs whose inputs decode on NVDEC."""
    for graph in video_graphs(model):
        codecs = graph.codecs
        if not any(codec in HARDWARE_CODECS for codec in codecs.effective):
            continue
        for worker in graph.media_workers:
            gpus = nvidia_gpus(worker.main)
            if gpus > 0:
                yield graph, worker, gpus


_NVDEC = """H.264 and H.265 clips are decoded on the worker's GPU (NVDEC), which a container can use only
when `NVIDIA_DRIVER_CAPABILITIES` includes `video` (or `all`), in lowercase: the NVIDIA Container Toolkit
trims each comma-separated item and compares it exactly, so `VIDEO` grants nothing. The Dynamo operator
does not inject it.
Without it, hardware decode is silently unavailable and video requests fail or fall back. A graph that
declares only VP8/VP9 (or `none`) in `dgdlint/video-codecs` decodes on the CPU and is not checked; without
the annotation H.264/H.265 is assumed. """


@rule(
    name="video-driver-capability-missing", code="DGD703", severity="error", family="video",
    title="A GPU worker that decodes video has `video` in NVIDIA_DRIVER_CAPABILITIES",
    rationale=_NVDEC + "Set without `video`, the value replaces the image's default and certainly lacks "
                       "the capability. " + _TAKES_MEDIA,
    remediation="Add `video` to NVIDIA_DRIVER_CAPABILITIES (e.g. `compute,utility,video`) on every GPU worker "
                "that takes media.",
    fixable="""Adds `video` to the worker's NVIDIA_DRIVER_CAPABILITIES, and writes in lower case the known
    capability names given in capitals (`COMPUTE,UTILITY,VIDEO` becomes `compute,utility,video`).""",
)
def video_driver_capability_missing(model: Model):
    for graph, worker, gpus in _decoding_workers(model):
        entry = worker.main.env_var(DRIVER_CAPABILITIES_ENV)
        if entry is None or entry.value is None:
            continue
        # the NVIDIA Container Toolkit trims each comma-separated item and compares it exactly: `VIDEO` is no
        # `video`, `ALL` no `all`
        capabilities = {part.strip() for part in entry.value.split(",")}
        if not capabilities & {"video", "all"}:
            capitals = sorted(c for c in capabilities if c != c.lower() and c.lower() in DRIVER_CAPABILITY_NAMES)
            note = f" ({', '.join(capitals)}: the toolkit knows only lower-case names)" if capitals else ""
            yield Hit(graph.obj, entry.path,
                      f"{worker.label} takes media on {gpus} GPU(s) and decodes {graph.codecs.hardware_text()} "
                      f"on NVDEC, but {DRIVER_CAPABILITIES_ENV}={shown(entry.value)} has no `video`{note}")


@rule(
    name="video-driver-capability-unset", code="DGD704", severity="warning", family="video",
    title="A GPU worker that decodes video sets NVIDIA_DRIVER_CAPABILITIES",
    rationale=_NVDEC + "Unset, the container gets whatever the image declares, which may or may not "
                       "include `video` (CUDA base images default to `compute,utility`). Images known to declare "
                       "it (NVIDIA's Dynamo vLLM runtime, any tag; the list is dgdlint's data/runtime-images.yaml) "
                       "are not reported. " + _TAKES_MEDIA,
    remediation="Set NVIDIA_DRIVER_CAPABILITIES=compute,utility,video on every GPU worker that takes media, or "
                "declare `dgdlint/video-codecs: none` on a graph that takes images only.",
)
def video_driver_capability_unset(model: Model):
    for graph, worker, gpus in _decoding_workers(model):
        if worker.main.env_var(DRIVER_CAPABILITIES_ENV) is None and not sets_video_capability(worker.main.image):
            yield Hit(graph.obj, env_path(worker.component, DRIVER_CAPABILITIES_ENV),
                      f"{worker.label} takes media on {gpus} GPU(s) and decodes {graph.codecs.hardware_text()} "
                      f"on NVDEC, but does not set {DRIVER_CAPABILITIES_ENV}: the image's default decides "
                      "whether NVDEC is available")


@rule(
    name="media-internal-fetch-allowed", code="DGD705", severity="warning", family="video",
    title="DYN_MM_ALLOW_INTERNAL=1 is flagged for review (media fetches from internal hosts)",
    rationale="""Media URLs are default-deny: https and data URLs pass, plain http and internal hosts are
    refused. `DYN_MM_ALLOW_INTERNAL=1` lifts that, so any client can make the frontend or worker fetch
    from cluster-internal addresses (cloud metadata, internal services): server-side request forgery.""",
    remediation="Remove DYN_MM_ALLOW_INTERNAL, or keep it only where clients are trusted and record why with "
                "`dgdlint/ignore-media-internal-fetch-allowed: \"<reason>\"`.",
)
def media_internal_fetch_allowed(model: Model):
    for graph in video_graphs(model):
        seen = set()  # a graph-level entry reaches every component: report it once
        for component in graph.graph.components:
            entry = component.main.env_var(ALLOW_INTERNAL_ENV)
            if entry is None or not is_true(entry.value):
                continue
            if entry.path in seen:
                continue
            seen.add(entry.path)
            where = graph.obj.label if entry.origin == "graph" else component.label
            yield Hit(graph.obj, entry.path,
                      f"{where} sets {ALLOW_INTERNAL_ENV}={entry.value.strip()}: media may be fetched over plain "
                      "http and from internal hosts")


def _vp_codecs(graph: VideoGraph) -> list[str]:
    return [codec for codec in graph.codecs.effective if codec in SOFTWARE_CODECS]


def _annotation(graph: VideoGraph):
    return graph.obj.location(graph.codecs.path, CODECS_ANNOTATION)


@rule(
    name="vp-codec-frontend-decoding-missing", code="DGD706", severity="error", family="video",
    title="VP8/VP9 input on vLLM and SGLang needs --frontend-decoding",
    rationale="""No GPU decodes VP8/VP9 for Dynamo's workers and the vLLM and SGLang images ship no
    software decoder for them on the worker: the only path is CPU decoding in the Rust frontend, turned on
    by the worker flag `--frontend-decoding`. A graph that declares `vp8` or `vp9` in
    `dgdlint/video-codecs` without it fails every such request.""",
    remediation="Add --frontend-decoding to every vLLM and SGLang worker of a graph that takes VP8/VP9 video "
                "(and run a Dynamo runtime of 1.6 or later).",
)
def vp_codec_frontend_decoding_missing(model: Model):
    for graph in video_graphs(model):
        codecs = _vp_codecs(graph)
        if not codecs:
            continue
        for worker in graph.media_workers:
            if worker.backend in ("vllm", "sglang") and not worker.flags.has("--frontend-decoding"):
                yield Hit(graph.obj, worker.launch_path(),
                          f"{worker.label} ({worker.backend}) takes {'/'.join(codecs).upper()} video but runs "
                          "without --frontend-decoding",
                          related=[_annotation(graph)])


@rule(
    name="vp-codec-runtime-too-old", code="DGD707", severity="error", family="video",
    title="VP8/VP9 input on vLLM and SGLang needs a Dynamo runtime of 1.6 or later",
    rationale="""Frontend video decoding, the only VP8/VP9 path on vLLM and SGLang, arrived with Dynamo 1.6;
    earlier frontends decode only images. The runtime version is the one the operator reads:
    `runtimeVersionOverride`, else the main image's semver tag (a component whose version cannot be read
    is left to `runtime-version-required`).""",
    remediation="Run the frontend and the vLLM/SGLang workers on a Dynamo 1.6+ image (and set "
                "runtimeVersionOverride to it when the tag is not the runtime version), or drop vp8/vp9 from "
                "dgdlint/video-codecs.",
)
def vp_codec_runtime_too_old(model: Model):
    for graph in video_graphs(model):
        codecs = _vp_codecs(graph)
        workers = [w for w in graph.media_workers if w.backend in ("vllm", "sglang")]
        if not codecs or not workers:
            continue
        for part in graph.frontends + workers:
            version, source = runtime_version(part.component)
            if version is None or version >= FRONTEND_DECODING_SINCE:
                continue
            component = part.component
            path = component.path + ("runtimeVersionOverride",) if component.runtime_version_override \
                else component.main.image_path
            # no advice about a field the release lacks (1.1.0 has no runtimeVersionOverride)
            remedy = None if GraphView(graph.graph, model.release).allows_component("runtimeVersionOverride") else \
                "Run the frontend and the vLLM/SGLang workers on a Dynamo 1.6+ image, or drop vp8/vp9 from " \
                "dgdlint/video-codecs."
            yield Hit(graph.obj, path,
                      f"{part.label} runs Dynamo {version[0]}.{version[1]} ({source}), older than 1.6, but the "
                      f"graph takes {'/'.join(codecs).upper()} video, which only the 1.6+ frontend decodes",
                      remedy, related=[_annotation(graph)])


@rule(
    name="vp-codec-trtllm-decoder", code="DGD708", severity="warning", family="video",
    title="VP8/VP9 input on TRT-LLM needs a software decoder in the image",
    rationale="""TRT-LLM workers have no frontend-decoding path for video and NVDEC is not used for
    VP8/VP9 there: they decode only with a separately installed software decoder, which a manifest cannot
    show. The finding asks the reviewer to confirm the image carries one.""",
    remediation="Install a VP8/VP9 software decoder in the TRT-LLM image and record it with "
                "`dgdlint/ignore-vp-codec-trtllm-decoder: \"<image and decoder>\"`, or drop vp8/vp9 from "
                "dgdlint/video-codecs.",
)
def vp_codec_trtllm_decoder(model: Model):
    for graph in video_graphs(model):
        codecs = _vp_codecs(graph)
        if not codecs:
            continue
        for worker in graph.media_workers:
            if worker.backend == "trtllm":
                yield Hit(graph.obj, worker.launch_path(),
                          f"{worker.label} (trtllm) takes {'/'.join(codecs).upper()} video: image "
                          f"{worker.main.image!r} needs a separately installed software decoder",
                          related=[_annotation(graph)])


@rule(
    name="video-codec-unknown", code="DGD709", severity="warning", family="video",
    title="dgdlint/video-codecs names known codecs",
    rationale="""The annotation tells the video rules which inputs to expect: `h264`, `h265` (also `avc`,
    `hevc`), `vp8`, `vp9`, or `none` for a graph that takes no video. Another name is probably a typo, and
    dgdlint cannot check a decode path for it; an empty value, or `none` beside codecs, says nothing
    clear.""",
    remediation="List the codecs as a comma-separated subset of h264, h265, vp8, vp9 (e.g. `h264,vp9`), or "
                "write `none`.",
)
def video_codec_unknown(model: Model):
    for graph in video_graphs(model):
        codecs = graph.codecs
        if codecs.declared is None:
            continue
        if codecs.unknown:
            yield Hit(graph.obj, codecs.path,
                      f"{graph.obj.label}: {CODECS_ANNOTATION} names {', '.join(repr(c) for c in codecs.unknown)}, "
                      "not one of h264, h265, vp8, vp9 or none")
        elif codecs.said_none and codecs.declared:
            yield Hit(graph.obj, codecs.path,
                      f"{graph.obj.label}: {CODECS_ANNOTATION} says `none` and also {', '.join(codecs.declared)}")
        elif not codecs.said_none and not codecs.declared:
            yield Hit(graph.obj, codecs.path, f"{graph.obj.label}: {CODECS_ANNOTATION} is empty")
