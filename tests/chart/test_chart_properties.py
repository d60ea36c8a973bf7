"""Property-based test over the chart's own knobs (issue 7): every values set that renders gives a set that
dgdlint passes with no error; every one that does not render fails with a message naming the value."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dgdlint.engine import check_texts
from dgdlint.render import RenderError, RenderRequest, render_chart
from dgdlint.schema import SchemaStage
from refdata import CHART

STAGE = SchemaStage()  # the newest bundled Dynamo release (schemas/), as users get it
ENV_NAMES = ["MY_FLAG", "NIM_LOG_LEVEL", "OUTLINES_CACHE_DIR", "NIM_PRECISION", "DYN_NAMESPACE", "NGC_API_KEY",
             "TQDM_DISABLE", "NIM_USE_DFLASH"]


@st.composite
def knob_sets(draw):
    """(values, {dotted key: value} of what was set): the knobs a user turns, in and out of range."""
    chosen = {
        "mode": draw(st.sampled_from(["regular", "streaming"])),
        "operator.apiVersion": draw(st.sampled_from(["v1alpha1", "v1beta1"])),
        "model.variant": draw(st.sampled_from(["nano", "super", "edge"])),
        "model.precision": draw(st.sampled_from(["bf16", "fp8", "nvfp4"])),
        "worker.replicas": draw(st.integers(0, 4)),
    }
    if draw(st.booleans()):
        chosen["model.gpus"] = draw(st.sampled_from([1, 2, 4]))
    if draw(st.booleans()):
        chosen["cache.create"] = False
        chosen["cache.name"] = draw(st.sampled_from(["nim-model-cache", "shared-cache"]))
    if draw(st.booleans()):
        chosen["cache.accessMode"] = draw(st.sampled_from(["ReadWriteMany", "ReadWriteOnce"]))
    if draw(st.booleans()):
        chosen["streaming.maxSessions"] = draw(st.integers(-1, 8))
        chosen["streaming.requestTimeoutSeconds"] = draw(st.integers(0, 600))
    if draw(st.booleans()):
        parts = [f"{key}={draw(st.sampled_from(['1', '2', '4', 'two']))}" for key in ("n_gpus", "nim_tp", "nim_dp")
                 if draw(st.booleans())]
        chosen["model.tagsSelector"] = ",".join(parts)
    if draw(st.booleans()):
        chosen["streaming.specMethod"] = draw(st.sampled_from(["", "dflash", "ngram", "none"]))
    if draw(st.booleans()):
        names = draw(st.lists(st.sampled_from(ENV_NAMES), max_size=3))
        chosen["worker.extraEnv"] = [{"name": n, "value": draw(st.sampled_from(["1", "x"]))} for n in names]
    values: dict = {}
    for dotted, value in chosen.items():
        node = values
        *parents, leaf = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return values, chosen


def names_a_value(message: str, chosen: dict) -> bool:
    for dotted, value in chosen.items():
        pointer = "/" + dotted.replace(".", "/")
        leaf = dotted.rsplit(".", 1)[-1]
        if dotted in message or pointer in message or leaf in message:
            return True
        if isinstance(value, list) and any(item.get("name", "") in message for item in value):
            return True
    return False


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(knob_sets())
def test_what_renders_passes_dgdlint_and_what_does_not_names_the_value(knobs):
    values, chosen = knobs
    try:
        templates = render_chart(RenderRequest(CHART, extra_values=values), engine="sdk")
    except RenderError as error:
        assert names_a_value(str(error), chosen), f"{chosen} -> {error}"
        return
    result = check_texts({t.source: t.text for t in templates}, STAGE)
    errors = [(f.rule, f.file, f.line, f.message) for f in result.findings if f.severity == "error"]
    assert errors == [], chosen
