"""What dgdlint knows of container images' own settings, from data/runtime-images.yaml: which images set
NVIDIA_DRIVER_CAPABILITIES with `video` themselves, and which Dynamo runtime a NIM image's tag bundles
(data, not code: a new image or tag is a new entry)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from dgdlint.cosmos import image_repository, image_tag


@dataclass(frozen=True)
class VideoCapableImage:
    """A runtime image repository that serves video, and since which tag."""

    repository: str
    capabilities: str
    since: str


@cache
def video_capable_images() -> tuple[VideoCapableImage, ...]:
    from dgdlint.datafiles import data_file

    return tuple(VideoCapableImage(str(entry["repository"]), str(entry["capabilities"]), str(entry["since"]))
                 for entry in data_file("runtime-images.yaml")["videoCapableImages"])


def sets_video_capability(image: str | None) -> VideoCapableImage | None:
    """The known image (any tag or digest) that sets NVIDIA_DRIVER_CAPABILITIES with `video`, if `image` is one."""
    repository = image_repository(image)
    return next((known for known in video_capable_images() if known.repository == repository), None)


@dataclass(frozen=True)
class NimRuntime:
    """A NIM image tag and the runtime version an override must name for it."""

    repository: str
    tag: str
    runtime: str  # what runtimeVersionOverride says for it


@cache
def nim_runtimes() -> tuple[NimRuntime, ...]:
    from dgdlint.datafiles import data_file

    return tuple(NimRuntime(str(entry["repository"]), str(entry["tag"]), str(entry["runtimeVersionOverride"]))
                 for entry in data_file("runtime-images.yaml")["nimRuntimes"])


def bundled_runtime(image: str | None) -> NimRuntime | None:
    """The known NIM image and tag `image` names (by tag, without a digest, which could be another build), if
    dgdlint knows the Dynamo runtime it bundles."""
    if not image or "@" in image:
        return None
    tag, _ = image_tag(image)
    repository = image_repository(image)
    return next((known for known in nim_runtimes() if (known.repository, known.tag) == (repository, tag)), None)
