"""dgdlint's reading of versions against the operator's own code, compiled by the Go toolchain: the
operator's runtimeversion package (read from the reference copy of its source) with the Masterminds semver
release the operator pins, on thousands of texts.

- An image's runtime version: `runtime-version-required` reports exactly the images whose tag
  runtimeversion.ParseImageVersion refuses (tag found as the operator finds it, trimmed, the tag pattern,
  then StrictNewVersion).
- The origin-version annotation: `is_loose_semver` takes exactly what semver.NewVersion takes.

Skips without Go, without the reference source, or when the Go module proxy cannot serve the semver module."""

from __future__ import annotations

import random
import shutil

import pytest

from dgdlint.cosmos import image_tag, is_semver
from dgdlint.rules.webhook_annotations import is_loose_semver
from go_oracle import ask, build
from refdata import REFERENCE, require_reference

RUNTIME_VERSION = REFERENCE / "dynamo-operator" / "deploy" / "operator" / "internal" / "runtimeversion" / \
    "runtimeversion.go"
SEMVER_MODULE = "github.com/Masterminds/semver/v3 v3.4.0"  # as the operator's go.mod pins it

_MAIN = """package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	semver "github.com/Masterminds/semver/v3"

	"oracle/runtimeversion"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		mode, quoted, _ := strings.Cut(in.Text(), " ")
		text, err := strconv.Unquote(quoted)
		if err != nil {
			panic(err)
		}
		switch mode {
		case "image":
			_, err = runtimeversion.ParseImageVersion(text)
		case "loose":
			_, err = semver.NewVersion(text)
		}
		fmt.Println(err == nil)
	}
}
"""


@pytest.fixture(scope="module")
def operator(tmp_path_factory):
    source = require_reference(RUNTIME_VERSION)
    folder = tmp_path_factory.mktemp("operator-versions")
    (folder / "runtimeversion").mkdir()
    shutil.copy(source, folder / "runtimeversion" / "runtimeversion.go")
    binary = build(folder, _MAIN, "the operator's own code is the oracle of this test",
                   go_mod=f"module oracle\n\ngo 1.22\n\nrequire {SEMVER_MODULE}\n", tidy=True)
    return lambda mode, texts: [answer == "true" for answer in ask(binary, texts, mode)]


def _versions(rng: random.Random, count: int) -> list[str]:
    parts = ["0", "1", "01", "10", "18446744073709551615", "18446744073709551616", "99999999999999999999", ""]
    pre = ["", "-rc.1", "-rc.01", "-0", "-00", "-a-b", "-1a", "-", "-rc..1", "-x.7z", "-ß"]
    build = ["", "+b", "+b.1", "+001", "+", "+a..b", "+sha.5114f85"]
    out = []
    for _ in range(count):
        text = rng.choice(["", "", "v", "V", "vv", " "])
        text += ".".join(rng.choice(parts) for _ in range(rng.choice([1, 2, 3, 3, 3, 4])))
        text += rng.choice(pre) + rng.choice(build) + rng.choice(["", "", "", " ", "\n", "x"])
        out.append(text)
    return out


def _images(rng: random.Random, versions: list[str]) -> list[str]:
    out = []
    for version in versions:
        name = rng.choice(["nvcr.io/nim/nvidia/cosmos3-reasoner", "registry:5000/vllm-runtime", "vllm",
                           "a/b:c/d", "localhost:5000/x"])
        digest = rng.choice(["", "", "@sha256:" + "a" * 64, "@"])
        out.append(f"{name}:{version}{digest}" if rng.random() < 0.9 else f"{name}{digest}")
    return out + [" vllm:1.2.3 ", "vllm:1.2.3@sha256:x:y", "repo:1.0:2.0.0", "repo:2.0.0:x", "vllm",
                  "vllm:", "vllm:v1.2.3", "vllm:1.2.3\n", "host:1.2.3/vllm"]


def _dgdlint_reads_the_runtime_version(image: str) -> bool:
    tag, _ = image_tag(image.strip())
    return is_semver(tag.strip() if tag else tag)


def test_runtime_version_from_an_image_tag_as_the_operator_reads_it(operator):
    images = _images(random.Random(1), _versions(random.Random(2), 3000))
    taken = operator("image", images)
    assert len(taken) == len(images) and any(taken) and not all(taken)
    wrong = [(image, go) for image, go in zip(images, taken, strict=True)
             if _dgdlint_reads_the_runtime_version(image) != go]
    assert not wrong, wrong[:20]


def test_origin_version_as_semver_new_version_reads_it(operator):
    texts = _versions(random.Random(3), 3000) + ["1", "v1", "1.2", "1.4.0-rc.1", "1.2.3.4", "one", ""]
    taken = operator("loose", texts)
    assert len(taken) == len(texts) and any(taken) and not all(taken)
    wrong = [(text, go) for text, go in zip(texts, taken, strict=True) if is_loose_semver(text) != go]
    assert not wrong, wrong[:20]
