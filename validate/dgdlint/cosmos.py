"""What the Cosmos3 rules need to know about a graph: which components run the NIM, which mode the
graph is in, and the support matrix (read from the chart's own data file, the single source of truth).
Which Job downloads a graph's model: dgdlint.downloads."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from dgdlint.model import Component, Container, Graph
from dgdlint.scalars import go_trim_space

NIM_CACHE_PATH = "/opt/nim/.cache"
STREAMING_FRONTEND_MODULE = "streaming.dynamo.frontend"
DEFAULT_HTTP_PORT = "8000"
DEFAULT_STREAMING_REQUEST_TIMEOUT = "180"
_MATRIX_IN_CHART = Path("charts") / "cosmos3-reasoner" / "files" / "support-matrix.yaml"


def discovery_backend_options(text: str | None) -> dict:
    """The JSON form of NIM_DISCOVERY_BACKEND (an object of the NIM's options, such as `async_scheduling` and
    `enable_multimodal`); {} for its plain form, for no value and for text that is no JSON object."""
    if not text or not text.strip().startswith("{"):
        return {}
    import json

    try:
        parsed = json.loads(text)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def image_repository(image: str | None) -> str | None:
    """The image reference without tag or digest: `nvcr.io/nim/nvidia/cosmos3:2.1.0` -> `nvcr.io/nim/nvidia/cosmos3`."""
    if not image:
        return None
    name = image.split("@", 1)[0]
    head, _, last = name.rpartition("/")
    return (head + "/" if head else "") + last.split(":", 1)[0]


def is_nim_image(image: str | None) -> bool:
    """A NIM image: NVIDIA's NIM registry path, or the Cosmos3 NIM's repository name under any registry
    (a mirror keeps the last path segment, `cosmos3`); `cosmos3-tools` or a `cosmos3/` folder is not it."""
    if not image:
        return False
    return image.startswith("nvcr.io/nim/") or (image_repository(image) or "").rsplit("/", 1)[-1] == "cosmos3"


def runs_nim(container: Container) -> bool:
    """A container that runs the Cosmos3 NIM (as worker, download or streaming frontend)."""
    return (
        is_nim_image(container.image)
        or container.env_var("NIM_MODEL_TYPE") is not None
        or container.env_var("NIM_DYNAMO_WORKER") is not None
    )


def is_cosmos_container(container: Container) -> bool:
    """A container of the Cosmos3 NIM itself (the support matrix applies), not of another NIM."""
    repository = image_repository(container.image) or ""
    return repository.rsplit("/", 1)[-1] == "cosmos3" or env_text(container, "NIM_MODEL_TYPE") == "reasoner"


def is_nim_worker(component: Component) -> bool:
    """A worker that runs the NIM; asked by many rules of every component, so remembered on it (the model is
    not changed once built)."""
    known = component.__dict__.get("_nim_worker")
    if known is None:
        known = component.__dict__["_nim_worker"] = component.is_worker and runs_nim(component.main)
    return known


def is_cosmos_graph(graph: Graph) -> bool:
    known = graph.__dict__.get("_cosmos")
    if known is None:
        known = graph.__dict__["_cosmos"] = any(is_nim_worker(component) for component in graph.components)
    return known


def runs_streaming_frontend(container: Container) -> bool:
    return any(STREAMING_FRONTEND_MODULE in part for part in container.command_line)


def is_streaming(graph: Graph) -> bool:
    """Streaming mode, as any of its parts declares it (remembered on the graph, as is_nim_worker)."""
    known = graph.__dict__.get("_streaming")
    if known is None:
        known = graph.__dict__["_streaming"] = _declares_streaming(graph)
    return known


def _declares_streaming(graph: Graph) -> bool:
    for component in graph.components:
        main = component.main
        if component.is_frontend and runs_streaming_frontend(main):
            return True
        if is_nim_worker(component) and (main.env_value("NIM_ENABLE_STREAMING") or "").strip().lower() in ("1", "true"):
            return True
        if main.env_var("NIM_DYNAMO_STREAMING_ENDPOINT") is not None:
            return True
    return False


def nim_workers(graph: Graph) -> list[Component]:
    """The graph's NIM workers (remembered on it, as is_cosmos_graph; a copy each time, for callers to keep)."""
    known = graph.__dict__.get("_nim_workers")
    if known is None:
        known = graph.__dict__["_nim_workers"] = [c for c in graph.components if is_nim_worker(c)]
    return list(known)


def cache_mounts(container: Container):
    return [mount for mount in container.mounts if mount.mount_path and mount.mount_path.rstrip("/") == NIM_CACHE_PATH]


def worker_claims(graph: Graph) -> set[str]:
    claims = set()
    for component in nim_workers(graph):
        for mount in cache_mounts(component.main):
            if mount.claim:
                claims.add(mount.claim)
    return claims


def tags_selector_filters(text: str) -> dict[str, str] | None:
    """The selector's key=value filters, when it reads as exactly that: every comma-separated part one
    `key=value` with a key, no key twice; else None (then only the text as written can be compared)."""
    filters: dict[str, str] = {}
    for part in text.split(","):
        key, equals, value = part.partition("=")
        key = key.strip()
        if not equals or not key or key in filters or "=" in value:
            return None
        filters[key] = value.strip()
    return filters


def same_model_value(name: str, before: str | None, after: str | None) -> bool:
    """Whether two values of one model field (image, NIM_MODEL_VARIANT, NIM_PRECISION, NIM_TAGS_SELECTOR)
    select the same model. A tags selector that reads cleanly as key=value filters is compared as filters
    (their order, and spaces around them, assumed not to matter to the NIM); anything else as text."""
    if name == "NIM_TAGS_SELECTOR" and before is not None and after is not None:
        filters = tags_selector_filters(before), tags_selector_filters(after)
        if None not in filters:
            return filters[0] == filters[1]
    return before == after


def parse_tags_selector(text: str | None) -> dict[str, str]:
    out = {}
    for part in (text or "").split(","):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key.strip()] = value.strip()
    return out


_SECONDS = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def timeout_seconds(text: str) -> Decimal | str:
    """A timeout written as a plain decimal number (`180`, `180.0`) as that number of seconds, else the
    text as written (`1_80`, `1.8e2` or `3m` are compared as text)."""
    return Decimal(text) if _SECONDS.fullmatch(text) else text


def env_text(container: Container, name: str) -> str | None:
    value = container.env_value(name)
    return value.strip() if isinstance(value, str) else None


@dataclass(frozen=True)
class Matrix:
    """The chart's support matrix: each variant's precisions and GPU counts, DFlash, the speculative methods."""

    data: dict

    @property
    def variants(self) -> dict:
        return self.data.get("variants", {})

    def precisions_of(self, variant: str) -> list[str]:
        return list(self.variants.get(variant, {}).get("precisions", {}))

    def gpu_counts(self, variant: str, precision: str) -> list[int]:
        return list(self.variants.get(variant, {}).get("precisions", {}).get(precision, {}).get("gpus", []))

    def has_dflash(self, variant: str) -> bool:
        return bool(self.variants.get(variant, {}).get("dflash", True))

    @property
    def spec_methods(self) -> list[str]:
        return list(self.data.get("specMethods", []))


@functools.lru_cache(maxsize=1)
def support_matrix() -> Matrix:
    """The support matrix: the wheel's copy, or the chart's file when running from a source tree."""
    import importlib.resources

    from dgdlint.datafiles import yaml_value

    packaged = importlib.resources.files("dgdlint") / "data" / "support-matrix.yaml"
    if packaged.is_file():
        text = packaged.read_text(encoding="utf-8")
    else:
        source_tree = Path(__file__).resolve().parents[2] / _MATRIX_IN_CHART
        text = source_tree.read_text(encoding="utf-8")
    return Matrix(yaml_value(text))


_SEMVER = re.compile(
    r"^[vV]?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(?:-((?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


def image_tag(image: str) -> tuple[str | None, str | None]:
    """(tag, digest) of an image reference; a port in the registry host is not a tag."""
    name, _, digest = image.partition("@")
    last = name.rsplit("/", 1)[-1]
    tag = last.rsplit(":", 1)[1] if ":" in last else None  # the last colon, as the operator reads it
    return tag, (digest or None)


def runtime_image_tag(image: str) -> str | None:
    """The tag the operator reads a runtime version from (runtimeversion.ParseImageVersion): the reference
    trimmed as Go trims it, the part after the last ':' past the last '/' and before any '@', itself
    trimmed. None when there is none."""
    tag, _ = image_tag(go_trim_space(image))
    return go_trim_space(tag) if tag is not None else None


def is_semver(tag: str | None) -> bool:
    """A tag the operator reads a runtime version from: its tag pattern, then Masterminds semver's strict
    parse, which also refuses a major, minor or patch number beyond 64 bits."""
    match = _SEMVER.fullmatch(tag) if tag else None
    return match is not None and all(int(part) < 2**64 for part in match.groups()[:3])


# `<nim-image-build>` in NVIDIA's references, `${VLLM_IMAGE}` in envsubst templates, `{{ .Release.Name }}` in an
# unrendered Helm template: a value to fill in. Only Helm's own references count as Helm syntax, so that
# Prometheus' `{{ $labels.pod }}` in an alert's text is left alone.
_HELM_REFERENCE = (r"\{\{-?\s*(?:\.(?:Values|Release|Chart|Capabilities|Files|Template)\b|(?:include|template|tpl)\s)"
                   r"[^}]*\}\}")
_PLACEHOLDER = re.compile(r"<[A-Za-z][A-Za-z0-9 _.:/-]*>|\$\{[A-Za-z_][A-Za-z0-9_]*\}|" + _HELM_REFERENCE)


def placeholder_in(text: str | None) -> str | None:
    """The first placeholder in `text`, if any."""
    if not text:
        return None
    match = _PLACEHOLDER.search(text)
    return match.group(0) if match else None
