"""House rules of the templates: prefixed, documented helpers; tidy, deterministic output."""

from __future__ import annotations

import re

import pytest
from chart_support import CHART, VALUES_DIR, preset_files

from dgdlint.render import RenderRequest, render_chart

DEFINE = re.compile(r'{{-?\s*define\s+"(?P<name>[^"]+)"\s*-?}}')
SMOKE_CLIENT = CHART / "files" / "smoke.py"


def _template_files() -> list:
    """Every file under templates/, subfolders (tests/) included."""
    return sorted(path for path in (CHART / "templates").rglob("*") if path.is_file())


def _without_embedded_smoke_client(text: str) -> str:
    """The test ConfigMap embeds files/smoke.py verbatim, blank lines included; Python's own layout is not
    the templates' to tidy (ruff keeps the file itself clean), so the checks skip exactly that block."""
    client = SMOKE_CLIENT.read_text(encoding="utf-8")
    block = "\n".join(("    " + line) if line else "" for line in client.splitlines()) + "\n"
    return text.replace(block, "    # files/smoke.py\n")


def test_every_define_is_prefixed_with_the_chart_name_and_has_a_usage_comment_above_it():
    defines = 0
    for template in _template_files():
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
    for template in _template_files():
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
        text = _without_embedded_smoke_client(template.text)
        assert text.startswith("apiVersion: "), template.source
        assert text.endswith("\n") and not text.endswith("\n\n"), template.source
        assert "\n\n" not in text, template.source
        assert not [line for line in text.splitlines() if line != line.rstrip()], template.source
        assert "\t" not in text, template.source
