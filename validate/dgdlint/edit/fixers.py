"""The fix of each fixable rule: what the one right answer is, read from the model with the same domain
knowledge the rule uses (the streaming and video fixes here; the model ones in fixers_model.py, the hygiene
and storage ones in fixers_hygiene.py, the admission ones in fixers_admission.py), and the registry of them
all. A finding with more than one possible answer (two endpoints, two Secrets) yields an Ambiguous plan,
which `fix` reports and leaves."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from dgdlint.cosmos import env_text, is_cosmos_graph, is_streaming, nim_workers, timeout_seconds
from dgdlint.edit.fixers_admission import (
    fix_conversion_records,
    fix_failover_discovery,
    fix_metadata_value,
    fix_operator_annotation,
    fix_runtime_version,
)
from dgdlint.edit.fixers_hygiene import (
    fix_claim_default_class,
    fix_duplicate_env,
    fix_frontend_gpu,
    fix_ngc_api_key,
    fix_pull_secret,
)
from dgdlint.edit.fixers_model import fix_download_model, fix_edge_dflash
from dgdlint.edit.plans import AddFlag, Ambiguous, SetEnv
from dgdlint.model import Model

ENDPOINT = "NIM_DYNAMO_STREAMING_ENDPOINT"
TIMEOUT = "NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S"
DRIVER_CAPABILITIES = "NVIDIA_DRIVER_CAPABILITIES"


def _streaming_graphs(model: Model):
    return [g for g in model.graphs if is_cosmos_graph(g) and is_streaming(g)]


def fix_streaming_worker_env(model: Model):
    rule = "streaming-worker-env"
    for graph in _streaming_graphs(model):
        for worker in nim_workers(graph):
            for name, accepted in (("NIM_DYNAMO_WORKER", ("true", "1")), ("NIM_ENABLE_STREAMING", ("1", "true"))):
                value = env_text(worker.main, name)
                if value is None or value.lower() not in accepted:
                    yield SetEnv(rule, graph.obj, worker.main, name, accepted[0],
                                 f"{worker.label}: {name}={accepted[0]} (a streaming worker)")


ASYNC_SCHEDULING = "NIM_DYNAMO_ASYNC_SCHEDULING"
_ASYNC_IN_JSON = re.compile(r'"async_scheduling"(\s*:\s*)true')


def fix_async_scheduling(model: Model):
    """NIM_DYNAMO_ASYNC_SCHEDULING=false where a streaming worker sets it on; in the JSON form of
    NIM_DISCOVERY_BACKEND, `true` turned to `false` in its text when that one word is the key's value, the rest
    of the text kept as written."""
    from dgdlint.rules.streaming import async_scheduling_requested, json_asks_async

    rule = "streaming-async-scheduling"
    for graph in _streaming_graphs(model):
        for worker in nim_workers(graph):
            requested, entry = async_scheduling_requested(worker.main)
            if requested and entry.name == ASYNC_SCHEDULING:
                yield SetEnv(rule, graph.obj, worker.main, ASYNC_SCHEDULING, "false",
                             f"{worker.label}: {ASYNC_SCHEDULING}=false (streaming schedules synchronously)")
            backend = worker.main.env_var("NIM_DISCOVERY_BACKEND")
            text = backend.value if backend is not None and backend.is_literal else None
            if not json_asks_async(text):
                continue
            edited = _async_off(text)
            if edited is None:
                yield Ambiguous(rule, graph.obj, backend.path, f"{worker.label}: async_scheduling is not written "
                                "once as `\"async_scheduling\": true` in NIM_DISCOVERY_BACKEND's JSON; set it to "
                                "false by hand")
            else:
                yield SetEnv(rule, graph.obj, worker.main, "NIM_DISCOVERY_BACKEND", edited,
                             f"{worker.label}: async_scheduling false in NIM_DISCOVERY_BACKEND's JSON (streaming "
                             "schedules synchronously)")


def _async_off(text: str) -> str | None:
    """The JSON text with its one `"async_scheduling": true` made false, when that is the only change to what it
    holds; None when the key is written otherwise (escaped, twice, nested)."""
    found = list(_ASYNC_IN_JSON.finditer(text))
    if len(found) != 1:
        return None
    match = found[0]
    edited = text[:match.start()] + f'"async_scheduling"{match.group(1)}false' + text[match.end():]
    try:
        before, after = json.loads(text), json.loads(edited)
    except ValueError:
        return None
    return edited if isinstance(before, dict) and after == {**before, "async_scheduling": False} else None


def _copy_to_missing(model: Model, rule: str, name: str, meaning: Callable[[str], object] = lambda text: text,
                     groups=None):
    """Set `name` where it is missing from the value the others agree on (values that mean the same, by
    `meaning`, agree: the first one set is copied); values that differ: ambiguous. `groups` are (graph, its
    parts that must agree); by default a streaming graph's frontends and NIM workers."""
    if groups is None:
        groups = [(graph, graph.frontends + nim_workers(graph)) for graph in _streaming_graphs(model)]
    for graph, parts in groups:
        texts = [env_text(p.main, name) for p in parts if p.main.env_var(name) is not None]
        values = {meaning(text) if text is not None else None for text in texts}
        missing = [p for p in parts if p.main.env_var(name) is None]
        if len(values) > 1:
            shown = " and ".join(sorted({repr(text) for text in texts if text is not None}))
            where = next(p for p in parts if p.main.env_var(name) is not None)
            yield Ambiguous(rule, graph.obj, where.main.env_path(name),
                            f"{graph.obj.label} sets {name} to {shown} in different components; which one is "
                            "right is yours to choose")
        elif missing and len(values) == 1 and None not in values:
            value = texts[0]
            for part in missing:
                yield SetEnv(rule, graph.obj, part.main, name, value,
                             f"{part.label}: {name}={value}, as the rest of the graph sets it")


def fix_streaming_endpoint(model: Model):
    rule = "streaming-endpoint-mismatch"
    yield from _copy_to_missing(model, rule, ENDPOINT)
    for graph in _streaming_graphs(model):
        parts = graph.frontends + nim_workers(graph)
        if not any(p.main.env_var(ENDPOINT) for p in parts):
            yield Ambiguous(rule, graph.obj, ("spec",), f"{graph.obj.label} sets no {ENDPOINT} anywhere; its "
                                                         "name is yours to choose (e.g. <dgd>.backend.streaming)")


def fix_streaming_timeout(model: Model):
    yield from _copy_to_missing(model, "streaming-timeout-mismatch", TIMEOUT, timeout_seconds)


def fix_video_num_frames(model: Model):
    from dgdlint.rules.video import NUM_FRAMES_ENV, _frames
    from dgdlint.video import video_graphs

    groups = [(graph, graph.frontends + graph.media_workers) for graph in video_graphs(model)]
    yield from _copy_to_missing(model, "video-num-frames-mismatch", NUM_FRAMES_ENV, _frames, groups)


def fix_multimodal_flag(model: Model):
    from dgdlint.video import video_graphs

    rule = "multimodal-flag-missing"
    for graph in video_graphs(model):
        for worker in graph.media_workers:
            if worker.backend not in ("vllm", "trtllm") or worker.multimodal_enabled():
                continue
            token = worker.backend_token
            if token is None:
                yield Ambiguous(rule, graph.obj, worker.launch_path(),
                                f"{worker.label}: where its {worker.backend} worker starts is not in the manifest; "
                                "add --enable-multimodal by hand")
                continue
            yield AddFlag(rule, graph.obj, token.path, token.text, "--enable-multimodal",
                          f"{worker.label}: --enable-multimodal after {token.text} (it takes media)")


def fix_driver_capabilities(model: Model):
    from dgdlint.video import (
        DRIVER_CAPABILITIES_ENV,
        DRIVER_CAPABILITY_NAMES,
        HARDWARE_CODECS,
        nvidia_gpus,
        video_graphs,
    )
    from dgdlint.withheld import looks_like_a_credential

    rule = "video-driver-capability-missing"
    for graph in video_graphs(model):
        if not any(codec in HARDWARE_CODECS for codec in graph.codecs.effective):
            continue
        for worker in graph.media_workers:
            entry = worker.main.env_var(DRIVER_CAPABILITIES_ENV)
            if nvidia_gpus(worker.main) <= 0 or entry is None or entry.value is None:
                continue
            capabilities = [part.strip() for part in entry.value.split(",") if part.strip()]
            if not set(capabilities) & {"video", "all"}:  # exactly, as the toolkit compares them
                # known names written in capitals grant nothing either: lower-cased, then `video` added
                named = [c.lower() if c.lower() in DRIVER_CAPABILITY_NAMES else c for c in capabilities]
                named = list(dict.fromkeys(named))
                value = ",".join(named if set(named) & {"video", "all"} else named + ["video"])
                said = f"{DRIVER_CAPABILITIES_ENV}={value}"
                if any(looks_like_a_credential(part) for part in named):  # a key pasted in the wrong entry
                    said = f"video added to {DRIVER_CAPABILITIES_ENV} (its value looks like a credential: not shown)"
                yield SetEnv(rule, graph.obj, worker.main, DRIVER_CAPABILITIES_ENV, value,
                             f"{worker.label}: {said} (NVDEC decodes its video)")


# rule name -> fixer; a rule is fixable exactly when it is here.
FIXERS: dict[str, Callable[[Model], object]] = {
    "edge-dflash-enabled": fix_edge_dflash,
    "streaming-worker-env": fix_streaming_worker_env,
    "streaming-endpoint-mismatch": fix_streaming_endpoint,
    "streaming-timeout-mismatch": fix_streaming_timeout,
    "multimodal-flag-missing": fix_multimodal_flag,
    "video-num-frames-mismatch": fix_video_num_frames,
    "video-driver-capability-missing": fix_driver_capabilities,
    "claim-volume-default-class": fix_claim_default_class,
    "ngc-api-key-literal": fix_ngc_api_key,
    "image-pull-secret-missing": fix_pull_secret,
    "duplicate-env": fix_duplicate_env,
    "frontend-requests-gpu": fix_frontend_gpu,
    "download-job-model-mismatch": fix_download_model,
    "streaming-async-scheduling": fix_async_scheduling,
    "metadata-value-not-string": fix_metadata_value,
    "runtime-version-advised": fix_runtime_version,
    "operator-conversion-annotation": fix_conversion_records,
    "intra-pod-failover-discovery": fix_failover_discovery,
    "operator-annotation-invalid": fix_operator_annotation,
}


def plans_for(model: Model, rules=None) -> list:
    plans = []
    for name, fixer in FIXERS.items():
        if rules is None or name in rules:
            plans.extend(fixer(model))
    return plans
