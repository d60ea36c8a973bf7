"""Which images are NIM images (the rules about NIM workers, the download Job and the streaming adapter
read this): NVIDIA's NIM registry path, or the Cosmos3 NIM's own repository name under a mirror."""

from __future__ import annotations

import pytest

from dgdlint.cosmos import is_nim_image


@pytest.mark.parametrize("image", [
    "nvcr.io/nim/nvidia/cosmos3:2.1.0",
    "nvcr.io/nim/nvidia/cosmos3@sha256:3f1c9a7e5b2d4c6e8a0b1d3f5e7a9c1b3d5f7e9a1c3b5d7f9e1a3c5b7d9f1e3a",
    "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3",  # another NIM
    "registry.example.com/mirror/cosmos3:2.1.0",  # a mirror keeps the repository's name
    "registry.example.com:5000/cosmos3:2.1.0",  # a registry with a port
])
def test_a_nim_image(image):
    assert is_nim_image(image)


@pytest.mark.parametrize("image", [
    "registry.example.com/cosmos3-tools/uploader:1.0",  # the name only starts like it
    "registry.example.com/cosmos3/uploader:1.0",  # a folder named cosmos3 holding another image
    "registry.example.com/mirror/cosmos3-helper:2.1.0",
    "nvcr.io/nvidia/ai-dynamo/dynamo-frontend:1.5.0",
    "",
    None,
])
def test_not_a_nim_image(image):
    assert not is_nim_image(image)
