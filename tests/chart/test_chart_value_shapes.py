"""A value of the wrong kind fails naming the value even when Helm's schema check is skipped
(`--skip-schema-validation`): templates/validate-values.yaml checks every value files/value-shapes.yaml
lists (generated from values.schema.json by `make docs`), where a template would otherwise break on it (a
string where a list is ranged over) or quietly render it (`useDflash: "yes"`). Rendered with the Helm 3
and 4 CLIs; the message never holds the value."""

from __future__ import annotations

import subprocess

import pytest
import yaml
from chart_support import CHART

from dgdlint.tools.value_shapes import shapes
from realtools import require_tool

SHAPES = yaml.safe_load((CHART / "files" / "value-shapes.yaml").read_text(encoding="utf-8"))
PRESET = CHART.parents[1] / "values" / "nano-fp8.yaml"
SECRETISH = "nvapi-wrong-kind-value"
# A value of another kind for each shape (text for every kind but text; a list for text).
WRONG = {"map": SECRETISH, "list": SECRETISH, "list of maps": SECRETISH, "text": [SECRETISH],
         "integer": SECRETISH, "boolean": SECRETISH}
SAMPLE = ["worker.tolerations", "worker.securityContext", "frontend.extraEnv", "model.gpus", "model.useDflash",
          "image.tag", "labels", "download.command", "worker.affinity.nodeAffinity", "cache.accessModes"]


def render_without_schema(helm: str, path: str, value) -> subprocess.CompletedProcess:
    override = value
    for part in reversed(path.split(".")):
        override = {part: override}
    return subprocess.run([helm, "template", "r", str(CHART), "-f", str(PRESET), "--skip-schema-validation",
                           "-f", "/dev/stdin"], input=yaml.safe_dump(override), capture_output=True, text=True,
                          check=False)


def test_the_shapes_file_is_the_schema_s():
    import json

    assert SHAPES == shapes(json.loads((CHART / "values.schema.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("helm", ["helm", "helm4"])
@pytest.mark.parametrize("path", [p for p in SAMPLE if p in SHAPES])
def test_a_value_of_the_wrong_kind_fails_naming_it_without_the_schema_check(helm, path):
    completed = render_without_schema(require_tool(helm), path, WRONG[SHAPES[path]])
    assert completed.returncode != 0
    assert f"{path} must be " in completed.stderr, completed.stderr[-800:]
    assert SECRETISH not in completed.stderr


def test_an_item_of_a_list_of_maps_that_is_no_map_fails_naming_its_index():
    completed = render_without_schema(require_tool("helm"), "worker.tolerations",
                                      [{"key": "nvidia.com/gpu", "operator": "Exists"}, SECRETISH])
    assert "worker.tolerations[1] must be a map, not text" in completed.stderr, completed.stderr[-800:]
    assert SECRETISH not in completed.stderr


def test_the_preset_values_pass_the_shapes_without_the_schema_check():
    completed = subprocess.run([require_tool("helm"), "template", "r", str(CHART), "-f", str(PRESET),
                                "--skip-schema-validation"], capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr[-800:]


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(SHAPES))
def test_every_listed_value_of_the_wrong_kind_fails_naming_it(path):
    completed = render_without_schema(require_tool("helm"), path, WRONG[SHAPES[path]])
    assert completed.returncode != 0 and f"{path} must be " in completed.stderr, completed.stderr[-800:]
