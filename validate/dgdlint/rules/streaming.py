"""Streaming mode (DOMAIN section 2, invariant 1): the NIM's streaming adapter is the frontend, the
workers run with streaming on, and frontend and workers agree on one endpoint and one timeout."""

from __future__ import annotations

from dgdlint.cosmos import (
    DEFAULT_STREAMING_REQUEST_TIMEOUT,
    STREAMING_FRONTEND_MODULE,
    discovery_backend_options,
    env_text,
    image_repository,
    is_cosmos_graph,
    is_nim_image,
    is_streaming,
    nim_workers,
    placeholder_in,
    runs_streaming_frontend,
    timeout_seconds,
)
from dgdlint.model import Model
from dgdlint.rules.registry import Hit, rule

ENDPOINT = "NIM_DYNAMO_STREAMING_ENDPOINT"
TIMEOUT = "NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S"


def _streaming_graphs(model: Model):
    return [g for g in model.graphs if is_cosmos_graph(g) and is_streaming(g)]


@rule(
    name="streaming-frontend-adapter", code="DGD101", severity="error", family="streaming",
    title="A streaming graph's frontend runs the NIM streaming adapter",
    rationale="""Streaming sessions (`/v1/streaming/sessions`) exist only in the NIM's streaming adapter,
    started as `python -m streaming.dynamo.frontend` from the NIM image. The stock Dynamo frontend has
    no session routes: every session request would answer 404.""",
    remediation="""Run the frontend from the NIM image with command
    `/opt/nim/.venv/bin/python -m streaming.dynamo.frontend` and workingDir `/opt/nim`.""",
)
def streaming_frontend_adapter(model: Model):
    for graph in _streaming_graphs(model):
        if not graph.frontends:
            yield Hit(graph.obj, graph.components[0].path if graph.components else ("spec",),
                      f"{graph.obj.label} runs streaming workers but has no frontend component")
        for frontend in graph.frontends:
            main = frontend.main
            if not runs_streaming_frontend(main):
                yield Hit(graph.obj, main.path + ("command",),
                          f"{frontend.label} runs {' '.join(main.command_line[:3]) or 'the image default'}, "
                          f"not the streaming adapter `{STREAMING_FRONTEND_MODULE}`, while the workers stream")
            elif main.image and not placeholder_in(main.image) and not _same_repository_as_workers(graph, main):
                yield Hit(graph.obj, main.image_path,
                          f"{frontend.label} runs the streaming adapter from {main.image!r}, which is not the "
                          "NIM image the workers run; the adapter ships only in the NIM image "
                          "(/opt/nim/streaming/dynamo/)")


def _same_repository_as_workers(graph, container) -> bool:
    """The frontend image is the workers' NIM image (any tag: a tag mismatch is nim-image-mismatch's), judged
    by the workers' own image so that a mirrored NIM image is recognised; without worker images, by name."""
    repositories = {image_repository(w.main.image) for w in nim_workers(graph) if w.main.image}
    if not repositories:
        return is_nim_image(container.image)
    return image_repository(container.image) in repositories


@rule(
    name="streaming-worker-env", code="DGD102", severity="error", family="streaming",
    title="Streaming workers run as Dynamo workers with streaming enabled",
    rationale="""A worker behind the streaming adapter must register as a Dynamo worker
    (`NIM_DYNAMO_WORKER=true`) and serve the streaming endpoint (`NIM_ENABLE_STREAMING=1`); otherwise
    the adapter finds no session owner and every session fails.""",
    remediation="Set NIM_DYNAMO_WORKER=true and NIM_ENABLE_STREAMING=1 on every worker of a streaming graph.",
    fixable="""Sets NIM_DYNAMO_WORKER=true and NIM_ENABLE_STREAMING=1 on the streaming workers.""",
)
def streaming_worker_env(model: Model):
    for graph in _streaming_graphs(model):
        for worker in nim_workers(graph):
            main = worker.main
            for name, wanted in (("NIM_DYNAMO_WORKER", ("true", "1")), ("NIM_ENABLE_STREAMING", ("1", "true"))):
                value = env_text(main, name)
                entry = main.env_var(name)
                if value is None or value.lower() not in wanted:
                    path = main.env_path(name)
                    shown = "unset" if entry is None else repr(value)
                    yield Hit(graph.obj, path, f"{worker.label}: {name} is {shown}; a streaming worker needs "
                                               f"{name}={wanted[0]}")


@rule(
    name="streaming-endpoint-mismatch", code="DGD103", severity="error", family="streaming",
    title="One streaming endpoint on the frontend and every worker",
    rationale="""The adapter sends session traffic to the Dynamo endpoint named by
    `NIM_DYNAMO_STREAMING_ENDPOINT`; a worker serving another name (or none) never receives a frame.""",
    remediation="Set NIM_DYNAMO_STREAMING_ENDPOINT to the same value (e.g. `<dgd>.backend.streaming`) on "
                "the frontend and every worker.",
    fixable="""Copies the endpoint to the components that lack it when every component that sets it agrees;
    two different endpoints, or none at all, are left for a person.""",
)
def streaming_endpoint_mismatch(model: Model):
    for graph in _streaming_graphs(model):
        parts = graph.frontends + nim_workers(graph)
        reference = next((p for p in graph.frontends if p.main.env_var(ENDPOINT)), None) or next(
            (p for p in parts if p.main.env_var(ENDPOINT)), None)
        if reference is None:
            yield Hit(graph.obj, graph.frontends[0].main.path if graph.frontends else ("spec",),
                      f"{graph.obj.label} streams but no component sets {ENDPOINT}")
            continue
        expected = env_text(reference.main, ENDPOINT)
        where = reference.main.env_var(ENDPOINT)
        for part in parts:
            entry = part.main.env_var(ENDPOINT)
            value = env_text(part.main, ENDPOINT)
            if value == expected:
                continue
            shown = "does not set it" if entry is None else f"sets {value!r}"
            yield Hit(graph.obj, part.main.env_path(ENDPOINT),
                      f"{part.label} {shown}, but {reference.name} uses {ENDPOINT}={expected!r}",
                      related=[graph.obj.location(where.path, f"{reference.name}'s {ENDPOINT}")])


@rule(
    name="streaming-endpoint-shared", code="DGD104", severity="error", family="streaming",
    title="Each model pool in a namespace has its own streaming endpoint",
    rationale="""Two graphs (model pools) in one namespace that serve the same streaming endpoint name
    receive each other's sessions: a Nano session can land on an Edge worker.""",
    remediation="Give each DynamoGraphDeployment its own NIM_DYNAMO_STREAMING_ENDPOINT, e.g. derived from "
                "its name.",
)
def streaming_endpoint_shared(model: Model):
    seen: dict[tuple[str, str], tuple] = {}
    for graph in _streaming_graphs(model):
        endpoints = {}
        for part in graph.frontends + nim_workers(graph):
            value = env_text(part.main, ENDPOINT)
            if value and value not in endpoints:
                endpoints[value] = part.main.env_var(ENDPOINT)
        for value, entry in endpoints.items():
            key = (graph.obj.namespace, value)
            if key in seen and seen[key][0] is not graph:
                other, other_entry = seen[key]
                yield Hit(graph.obj, entry.path,
                          f"{graph.obj.label} and {other.obj.label} in namespace {graph.obj.namespace} both "
                          f"use streaming endpoint {value!r}",
                          related=[other.obj.location(other_entry.path, f"{other.obj.label}'s endpoint")])
            else:
                seen.setdefault(key, (graph, entry))


def async_scheduling_requested(container) -> tuple[bool, object]:
    """(requested, env entry): NIM_DYNAMO_ASYNC_SCHEDULING=true, or async_scheduling true in the JSON form."""
    entry = container.env_var("NIM_DYNAMO_ASYNC_SCHEDULING")
    value = (entry.value or "").strip().lower() if entry and entry.value else ""
    if value in ("true", "1", "yes"):
        return True, entry
    backend = container.env_var("NIM_DISCOVERY_BACKEND")
    if backend and backend.value and backend.value.strip().startswith("{"):
        return json_asks_async(backend.value), backend
    return False, entry


def json_asks_async(text: str | None) -> bool:
    """Whether the JSON form of NIM_DISCOVERY_BACKEND (an object) sets async_scheduling true."""
    return discovery_backend_options(text).get("async_scheduling") is True


@rule(
    name="streaming-async-scheduling", code="DGD105", severity="warning", family="streaming",
    title="Streaming workers do not ask for asynchronous scheduling",
    rationale="""Streaming forces synchronous scheduling; a manifest that asks for asynchronous
    scheduling on a streaming worker does not get it, and misleads whoever reads it.""",
    remediation="Set NIM_DYNAMO_ASYNC_SCHEDULING=false (or `\"async_scheduling\":false` in the JSON form of "
                "NIM_DISCOVERY_BACKEND) on streaming workers.",
    fixable="""Sets NIM_DYNAMO_ASYNC_SCHEDULING=false on the streaming worker, replacing its entry; in the JSON
    form of NIM_DISCOVERY_BACKEND it turns the one `"async_scheduling": true` of the text to false and
    keeps the rest as written. A JSON text that writes the key otherwise (escaped, twice) is left for a
    person.""",
)
def streaming_async_scheduling(model: Model):
    for graph in _streaming_graphs(model):
        for worker in nim_workers(graph):
            requested, entry = async_scheduling_requested(worker.main)
            if requested:
                yield Hit(graph.obj, entry.path,
                          f"{worker.label} asks for asynchronous scheduling ({entry.name}), which streaming "
                          "turns off")


@rule(
    name="streaming-timeout-mismatch", code="DGD106", severity="warning", family="streaming",
    title="The streaming request timeout is the same on frontend and workers",
    rationale="""`NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S` bounds a frame's round trip on both sides; when
    they differ, one side gives up while the other still works, and the reply is lost. Plain decimal
    numbers are compared as seconds (`180.0` is 180), on the assumption that the NIM reads the value as a
    number; its parser is not public.""",
    remediation="Set NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S to one value on the frontend and every worker "
                "(unset means 180).",
    fixable="""Copies the timeout to the components that lack it when every component that sets it agrees; two
    different timeouts are left for a person.""",
)
def streaming_timeout_mismatch(model: Model):
    for graph in _streaming_graphs(model):
        for frontend in graph.frontends:
            expected = env_text(frontend.main, TIMEOUT) or DEFAULT_STREAMING_REQUEST_TIMEOUT
            for worker in nim_workers(graph):
                value = env_text(worker.main, TIMEOUT) or DEFAULT_STREAMING_REQUEST_TIMEOUT
                if timeout_seconds(value) != timeout_seconds(expected):
                    yield Hit(graph.obj, worker.main.env_path(TIMEOUT),
                              f"{worker.label} times out streaming requests after {value}s but "
                              f"{frontend.name} after {expected}s",
                              related=[graph.obj.location(frontend.main.env_path(TIMEOUT),
                                                          f"{frontend.name}'s {TIMEOUT}")])
