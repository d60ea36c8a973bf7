"""`make render` as the presets table spells it: with or without `.yaml`, only manifests on stdout (no make
echo, so `make render > m.yaml` is a manifest file), and an unknown preset lists the presets."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from refdata import ROOT

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not on PATH")


def make_render(preset: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "render", f"PRESET={preset}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)


@pytest.mark.parametrize("preset", ["nano-fp8", "nano-fp8.yaml", "values/nano-fp8.yaml"])
def test_a_preset_renders_with_or_without_its_suffix_and_prints_only_manifests(preset):
    completed = make_render(preset)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith("---\n# Source: cosmos3-reasoner/templates/")
    assert "make" not in completed.stdout.split("\n", 1)[0] and "dgdlint render" not in completed.stdout


def test_an_unknown_preset_lists_the_presets():
    completed = make_render("nano-fp9")
    assert completed.returncode == 2 and completed.stdout == ""
    assert "make render: no preset 'nano-fp9'; the presets are:" in completed.stderr
    assert "  nano-fp8\n" in completed.stderr and "  super-bf16-streaming\n" in completed.stderr
