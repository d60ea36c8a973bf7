"""House rules of the templates: prefixed, documented helpers; tidy, deterministic output."""

from __future__ import annotations

import re

import pytest
from chart_support import CHART, VALUES_DIR, preset_files

from dgdlint.render import RenderRequest, render_chart

DEFINE = re.compile(r'{{-?\s*define\s+"(?P<name>[^"]+)"\s*-?}}')


def test_every_define_is_prefixed_with_the_chart_name_and_has_a_usage_comment_above_it():
    defines = 0
    for template in sorted((CHART / "templates").iterdir()):
        lines = template.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            match = DEFINE.search(line)
            if not match:
                continue
            defines += 1
            assert match["name"].startswith("cosmos3-reasoner."), f"{template.name}:{number + 1}"
            above = lines[number - 1].strip()
            assert above.startswith("{{/* Usage: include ") and above.endswith("*/}}"), f"{template.name}:{number + 1}"
    assert defines > 20


def test_every_template_runs_the_cross_field_checks_before_rendering_anything():
    for template in sorted((CHART / "templates").glob("*")):
        if template.name.startswith("_"):
            continue
        lines = template.read_text(encoding="utf-8").strip().splitlines()
        # validate-values.yaml defines the checks first and runs them on its last line.
        run_at = lines[-1] if template.name == "validate-values.yaml" else lines[0]
        assert run_at == '{{- include "cosmos3-reasoner.validate" . -}}', template.name


@pytest.mark.parametrize("preset", [p.name for p in preset_files()])
@pytest.mark.parametrize("api_version", ["v1alpha1", "v1beta1"])
def test_rendered_yaml_is_tidy_and_the_same_on_every_run(preset, api_version):
    request = RenderRequest(CHART, values_files=[VALUES_DIR / preset],
                            set_values=[f"operator.apiVersion={api_version}"])
    first = render_chart(request, engine="sdk")
    assert first == render_chart(request, engine="sdk")
    for template in first:
        text = template.text
        assert text.startswith("apiVersion: "), template.source
        assert text.endswith("\n") and not text.endswith("\n\n"), template.source
        assert "\n\n" not in text, template.source
        assert not [line for line in text.splitlines() if line != line.rstrip()], template.source
        assert "\t" not in text, template.source
