"""What the video rules need to know about a graph: the flags each component is started with (also
inside a `bash -c` script), its backend and Dynamo runtime version, whether it takes media (video
understanding) or generates video (FastVideo and other generation workers), and which codecs the graph
declares it accepts (annotation `dgdlint/video-codecs`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from dgdlint.command_line import Flags, Token, container_flags, split_script  # noqa: F401  (split_script: re-exported)
from dgdlint.cosmos import discovery_backend_options, image_tag, is_semver
from dgdlint.model import Component, Container, Graph, KObject, Model, as_str, parse_count

CODECS_ANNOTATION = "dgdlint/video-codecs"
LLM_BACKENDS = ("vllm", "sglang", "trtllm")
NUM_FRAMES_ENV = "DYN_MM_VIDEO_NUM_FRAMES"
DEFAULT_NUM_FRAMES = "32"
ALLOW_INTERNAL_ENV = "DYN_MM_ALLOW_INTERNAL"
MULTIMODAL_ENV = "DYN_VLLM_ENABLE_MULTIMODAL"
DRIVER_CAPABILITIES_ENV = "NVIDIA_DRIVER_CAPABILITIES"
# The capability names the NVIDIA Container Toolkit knows (lower case; it compares each item exactly).
DRIVER_CAPABILITY_NAMES = ("compute", "compat32", "graphics", "utility", "video", "display", "ngx", "all")
FRONTEND_DECODING_SINCE = (1, 6)

# Codecs a graph may declare, by canonical name; spellings are folded to these.
HARDWARE_CODECS = ("h264", "h265")  # decoded by NVDEC on the worker's GPU
SOFTWARE_CODECS = ("vp8", "vp9")  # decoded on the CPU: in the frontend (vLLM, SGLang) or a decoder (TRT-LLM)
ASSUMED_CODECS = HARDWARE_CODECS
_CODEC_SPELLINGS = {"h264": "h264", "avc": "h264", "avc1": "h264", "h265": "h265", "hevc": "h265",
                    "vp8": "vp8", "vp9": "vp9"}
NO_VIDEO = "none"  # `dgdlint/video-codecs: none`: the graph takes no video (images only)

_TRUE = ("1", "true", "yes", "on")
# Worker flags that only make sense on a worker that receives media (vLLM/SGLang/TRT-LLM spellings).
_MEDIA_FLAG_PREFIXES = ("--mm-", "--limit-mm-", "--enable-mm-", "--multimodal-", "--media-io-", "--video-")
_MEDIA_FLAGS = ("--enable-multimodal", "--frontend-decoding")
_GENERATION_FLAGS = ("--video-generation-worker",)
_FASTVIDEO_MODULE = "dynamo.fastvideo"
# Flags of the FastVideo worker in Dynamo's diffusers example (examples/diffusers/worker.py).
FASTVIDEO_FLAGS = ("--default-size", "--default-num-frames", "--default-num-inference-steps", "--max-video-width",
                   "--max-video-height", "--max-num-frames", "--max-num-inference-steps", "--attention-backend",
                   "--vsa-sparsity", "--tp-size", "--sp-size", "--workload", "--workload-type")


# ---------------------------------------------------------------------------------------------
# Components.


def positive_int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        value = int(text.strip())
    except ValueError:
        return None
    return value if value > 0 else None


def runtime_version(component: Component) -> tuple[tuple[int, int] | None, str]:
    """(major, minor) of the Dynamo runtime the operator assumes for the component, and where it comes from:
    `runtimeVersionOverride`, else the main image's tag when it is semver."""
    override = component.runtime_version_override
    if override:
        match = re.match(r"^[vV]?([0-9]+)\.([0-9]+)", override.strip())
        return ((int(match.group(1)), int(match.group(2))) if match else None,
                f"runtimeVersionOverride {override!r}")
    image = component.main.image
    if image:
        tag, _ = image_tag(image)
        if is_semver(tag):
            match = re.match(r"^[vV]?([0-9]+)\.([0-9]+)", tag)
            return (int(match.group(1)), int(match.group(2))), f"image tag {tag!r}"
    return None, "no semver image tag and no runtimeVersionOverride"


def is_true(value: str | None) -> bool:
    """An env flag as Dynamo reads it: 1, true, yes or on, in any case."""
    return value is not None and value.strip().lower() in _TRUE


@dataclass
class VideoComponent:
    """A component of a video graph: its backend, flags and what it does with video."""

    component: Component
    flags: Flags
    backend: str | None  # vllm, sglang, trtllm, fastvideo, another dynamo.<x> module, or None
    backend_token: Token | None
    fastvideo: bool = False
    generation: bool = False  # generates video (FastVideo, vLLM-Omni, SGLang or TRT-LLM video generation)
    media_signals: list[tuple[str, tuple]] = field(default_factory=list)  # (what, path) of its own signals
    takes_media: bool = False

    @property
    def main(self) -> Container:
        return self.component.main

    @property
    def label(self) -> str:
        return self.component.label

    def launch_path(self) -> tuple:
        """Where a finding about how the component is started points: its backend module, else command/args."""
        if self.backend_token is not None:
            return self.backend_token.path
        obj, main = self.component.obj, self.component.main
        for key in ("command", "args"):
            if obj.get(main.path + (key,)) is not None:
                return main.path + (key,)
        return existing_path(obj, main.path, self.component.path)

    def multimodal_enabled(self) -> bool:
        return (self.flags.has("--enable-multimodal") or is_true(self.main.env_value(MULTIMODAL_ENV))
                or _nim_multimodal(self.main))


def _nim_multimodal(container) -> bool:
    """A NIM worker turns vLLM's multimodal input on itself: `"enable_multimodal": true` in the JSON form of
    NIM_DISCOVERY_BACKEND (the Cosmos3 Reasoner's setting)."""
    return discovery_backend_options(container.env_value("NIM_DISCOVERY_BACKEND")).get("enable_multimodal") is True


def existing_path(obj: KObject, *paths: tuple) -> tuple:
    """The first of `paths` that is in the object (findings point at real nodes)."""
    for path in paths:
        if obj.get(path) is not None:
            return path
    return paths[-1]


def env_path(component: Component, name: str) -> tuple:
    """The env entry, else the env list it belongs in (the model's anchor), else the component."""
    entry = component.main.env_var(name)
    if entry is not None:
        return entry.path
    return existing_path(component.obj, component.main.env_path(name), component.main.path, component.path)


def _is_fastvideo(flags: Flags, container: Container, module: str | None) -> bool:
    if module == _FASTVIDEO_MODULE:
        return True
    scripts = [token.text for token in flags.scripts() if token.text.rsplit("/", 1)[-1] == "worker.py"]
    if not scripts:
        return False
    hints = [container.image or "", container.working_dir or "", *scripts]
    return (any("fastvideo" in hint.lower() or "diffusers" in hint.lower() for hint in hints)
            or any(flags.find(flag) for flag in FASTVIDEO_FLAGS)
            or any(entry.name.startswith(("FASTVIDEO_", "DYN_FASTVIDEO_")) for entry in container.env))


def _generates_video(flags: Flags) -> bool:
    if any(flags.has(flag) for flag in _GENERATION_FLAGS):
        return True
    if "video" in [value.lower() for value in flags.values("--output-modalities")]:
        return True
    modality, _ = flags.value("--modality")
    return bool(modality) and modality.lower() == "video_diffusion"


def _own_media_signals(component: Component, flags: Flags) -> list[tuple[str, tuple]]:
    signals = []
    for token in flags.flags():
        name = token.text.split("=", 1)[0]
        if name in _MEDIA_FLAGS or (name.startswith(_MEDIA_FLAG_PREFIXES) and name not in _GENERATION_FLAGS):
            signals.append((name, token.path))
    for entry in component.main.env:
        if entry.name.startswith("DYN_MM_") or (entry.name == MULTIMODAL_ENV and is_true(entry.value)):
            signals.append((entry.name, entry.path))
    return signals


def analyse_component(component: Component) -> VideoComponent:
    main = component.main
    flags = container_flags(main)
    module, module_token = flags.module()
    backend = None
    if module and module.startswith("dynamo."):
        backend = module.split(".")[1]
    fastvideo = _is_fastvideo(flags, main, module)
    if fastvideo:
        backend = "fastvideo"
    elif backend is None and not component.is_frontend and component.graph.backend_framework in LLM_BACKENDS \
            and (component.graph.shape == "services" or main.name == "main"):
        # no container named `main` (v1beta1): every one is a sidecar (graph.go GenerateBasePodSpec), none the engine
        backend = component.graph.backend_framework
        module_token = None
    info = VideoComponent(component, flags, backend, module_token if module else None, fastvideo=fastvideo)
    info.generation = fastvideo or _generates_video(flags)
    if not info.generation and not component.is_frontend:
        info.media_signals = _own_media_signals(component, flags)
    return info


# ---------------------------------------------------------------------------------------------
# Graphs.


@dataclass
class Codecs:
    """The codecs a graph declares in its annotation, and the spellings dgdlint does not know."""

    declared: list[str] | None  # canonical names; None when the annotation is absent
    unknown: list[str]  # spellings that name no codec dgdlint knows
    path: tuple
    said_none: bool = False  # the annotation says `none`

    @property
    def effective(self) -> list[str]:
        return list(ASSUMED_CODECS) if self.declared is None else self.declared

    @property
    def assumed(self) -> bool:
        return self.declared is None

    def hardware_text(self) -> str:
        """The NVDEC-decoded codecs the graph expects, and whether they are declared or assumed."""
        names = "/".join(f"H.{codec[1:]}" for codec in self.effective if codec in HARDWARE_CODECS)
        how = "assumed: no dgdlint/video-codecs annotation" if self.declared is None else \
            f"declared in {CODECS_ANNOTATION}"
        return f"{names} ({how})"


def graph_codecs(graph: Graph) -> Codecs:
    path = ("metadata", "annotations", CODECS_ANNOTATION)
    raw = graph.obj.annotations.get(CODECS_ANNOTATION)
    if raw is None:
        return Codecs(None, [], path)
    declared: list[str] = []
    unknown: list[str] = []
    said_none = False
    for word in re.split(r"[\s,;]+", as_str(raw) or ""):
        if not word:
            continue
        folded = word.lower().replace(".", "").replace("-", "").replace("_", "")
        if folded == NO_VIDEO:
            said_none = True
            continue
        canonical = _CODEC_SPELLINGS.get(folded)
        if canonical is None:
            unknown.append(word)
        elif canonical not in declared:
            declared.append(canonical)
    return Codecs(declared, unknown, path, said_none)


@dataclass
class VideoGraph:
    """A graph that serves video understanding or generation: frontends, workers and codecs."""

    graph: Graph
    frontends: list[VideoComponent]
    workers: list[VideoComponent]
    codecs: Codecs
    media_reason: str | None  # why the graph takes media, None when it does not

    @property
    def obj(self) -> KObject:
        return self.graph.obj

    @property
    def media_workers(self) -> list[VideoComponent]:
        return [worker for worker in self.workers if worker.takes_media]

    @property
    def fastvideo_workers(self) -> list[VideoComponent]:
        return [worker for worker in self.workers if worker.fastvideo]

    @property
    def is_video(self) -> bool:
        """A video deployment: it takes media, or generates video."""
        return self.media_reason is not None or any(worker.generation for worker in self.workers)


def analyse_graph(graph: Graph) -> VideoGraph:
    frontends = [analyse_component(c) for c in graph.frontends]
    workers = [analyse_component(c) for c in graph.workers]
    codecs = graph_codecs(graph)
    reason = None
    for worker in workers:
        if worker.media_signals:
            reason = f"{worker.component.name} has {worker.media_signals[0][0]}"
            break
    if reason is None:
        for frontend in frontends:
            names = [e.name for e in frontend.main.env if e.name.startswith("DYN_MM_")]
            if names:
                reason = f"{frontend.component.name} sets {names[0]}"
                break
    if reason is None and codecs.declared:
        reason = f"it declares {CODECS_ANNOTATION}"
    for worker in workers:
        if worker.generation:
            continue
        worker.takes_media = bool(worker.media_signals) or (reason is not None and worker.backend in LLM_BACKENDS)
    return VideoGraph(graph, frontends, workers, codecs, reason)


def video_graphs(model: Model) -> list[VideoGraph]:
    """Every graph, analysed once per model."""
    return model.memo("video-graphs", lambda: [analyse_graph(graph) for graph in model.graphs])


def nvidia_gpus(container: Container) -> int:
    """NVIDIA GPUs (whole or MIG slices) the container asks for; other accelerators do not take the driver
    capabilities variable."""
    for table in (container.limits, container.requests):
        for resource, (quantity, _path) in table.items():
            if resource.startswith("nvidia.com/") and (resource.endswith("/gpu") or "/mig-" in resource):
                return parse_count(quantity)
    return 0
