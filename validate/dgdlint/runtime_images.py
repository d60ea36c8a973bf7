"""What dgdlint knows of container images' own settings, from data/runtime-images.yaml: which images set
NVIDIA_DRIVER_CAPABILITIES with `video` themselves (data, not code: a new image is a new entry)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from dgdlint.cosmos import image_repository


@dataclass(frozen=True)
class VideoCapableImage:
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
