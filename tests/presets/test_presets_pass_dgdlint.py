"""Every preset renders and passes dgdlint (schema stage with the CRD, every rule) with no error or
warning; and the chart and the validator read one support matrix, so they accept and refuse the same
variant/precision/GPU combinations."""

from __future__ import annotations

import itertools

import pytest
import yaml

from dgdlint.cosmos import support_matrix
from dgdlint.engine import check_texts
from dgdlint.render import RenderError, RenderRequest, render_chart
from refdata import CHART, VALUES

PRESETS = sorted(VALUES.glob("*.yaml"))


def render(values_files=(), set_values=()) -> dict[str, str]:
    templates = render_chart(RenderRequest(CHART, values_files=[str(v) for v in values_files],
                                           set_values=list(set_values)), engine="sdk")
    return {t.source: t.text for t in templates}


def problems(texts: dict[str, str], stage=None) -> list[tuple]:
    result = check_texts(texts, stage)
    return [(f.severity, f.rule, f.file, f.line, f.message) for f in result.findings if f.severity != "info"]


@pytest.mark.parametrize("preset", PRESETS, ids=[p.name for p in PRESETS])
def test_every_preset_passes_schema_and_rules(preset, crd_schema_stage):
    assert problems(render([preset]), crd_schema_stage) == []


def test_the_chart_reads_the_same_matrix_file_as_dgdlint():
    chart_file = CHART / "files" / "support-matrix.yaml"
    assert support_matrix().data == yaml.safe_load(chart_file.read_text())


def matrix_cases():
    matrix = support_matrix()
    for variant, precision in itertools.product(matrix.variants, matrix.data["precisions"]):
        for gpus in (1, 2, 4):
            supported = gpus in matrix.gpu_counts(variant, precision)
            yield variant, precision, gpus, supported


@pytest.mark.parametrize("variant, precision, gpus, supported", list(matrix_cases()))
@pytest.mark.parametrize("mode", ["regular", "streaming"])
def test_chart_and_validator_agree_on_every_combination(variant, precision, gpus, supported, mode):
    settings = [f"model.variant={variant}", f"model.precision={precision}", f"model.gpus={gpus}", f"mode={mode}"]
    if supported:
        assert problems(render(set_values=settings)) == []
        return
    with pytest.raises(RenderError):
        render(set_values=settings)
    # The chart refuses it; hand-written manifests with the same choice are refused by dgdlint.
    matrix = support_matrix()
    base_precision = precision if precision in matrix.precisions_of(variant) else matrix.precisions_of(variant)[0]
    base_gpus = matrix.gpu_counts(variant, base_precision)[0]
    texts = render(set_values=[f"model.variant={variant}", f"model.precision={base_precision}", f"mode={mode}"])
    patched = {}
    for name, text in texts.items():
        text = text.replace(f"value: {base_precision}\n", f"value: {precision}\n")
        text = text.replace(f'gpu: "{base_gpus}"', f'gpu: "{gpus}"')
        text = text.replace(f'nvidia.com/gpu: "{base_gpus}"', f'nvidia.com/gpu: "{gpus}"')
        text = text.replace(f"n_gpus={base_gpus},nim_tp={base_gpus}", f"n_gpus={gpus},nim_tp={gpus}")
        patched[name] = text
    rules = {rule for _, rule, *_ in problems(patched)}
    assert rules & {"precision-unsupported", "gpu-count-unsupported"}, rules
