"""No value can inject YAML. Every string the values hold (scalars, list items, map values) is set to a
text full of quotes, newlines, YAML indicators, a document separator and `$(...)`; the render then either
fails with a message that names the value, or writes objects of the same kinds with the same keys as a
render with a harmless text in the same place: no new key, no new document, no new kind."""

from __future__ import annotations

import pytest
import yaml
from chart_support import CHART, render

from dgdlint.render import RenderError

DEFAULTS = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))
HOSTILE = ("x\"y'z\n  injected: true\n- item\n---\napiVersion: v1\nkind: Secret\n"
           "key: {a: [b]} &anchor *alias | > # $(NGC_API_KEY) `id` %tag !!str @at")
HARMLESS = "harmless"
# Maps of free strings (labels, annotations, node selectors) get one hostile entry; these are empty by default.
FREE_MAPS = ("labels", "annotations", "frontend.nodeSelector", "frontend.podLabels", "frontend.podAnnotations",
             "frontend.serviceAnnotations", "worker.nodeSelector", "worker.podLabels", "worker.podAnnotations",
             "download.podLabels", "download.podAnnotations", "ingress.annotations", "metrics.podMonitor.labels")
# Lists of free strings get one hostile item.
FREE_LISTS = ("frontend.extraArgs", "download.args", "download.command", "imagePullSecrets")
# extraObjects are YAML by design (rendered with tpl): what they hold is the user's objects.
NOT_VALUES = ("extraObjects",)


def _string_paths(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _string_paths(value, path + (key,))
    elif isinstance(node, str):
        yield path


STRING_PATHS = [".".join(p) for p in _string_paths(DEFAULTS) if ".".join(p) not in NOT_VALUES]
# Free texts, one render each (a scalar that the schema lets through would join them here).
CASES = [(path, "map") for path in FREE_MAPS] + [(path, "list") for path in FREE_LISTS]


def _values(path: str, shape: str, text: str, features: bool = True) -> dict:
    value: object = {"map": {"hostile-key": text}, "list": [text]}.get(shape, text)
    for name in reversed(path.split(".")):
        value = {name: value}
    # Switch on the features whose objects carry the value, so that it is rendered somewhere.
    switched_on = {"ingress": {"enabled": True, "className": "nginx", "host": "reasoner.example.com"},
                   "metrics": {"podMonitor": {"enabled": True}}, "mode": "streaming",
                   "frontend": {"networkPolicy": {"enabled": True}}}
    return _merge(switched_on, value) if features else value


def _merge(base: dict, extra: dict) -> dict:
    merged = dict(base)
    for key, value in extra.items():
        merged[key] = _merge(merged[key], value) if isinstance(value, dict) and isinstance(merged.get(key), dict) \
            else value
    return merged


def _shape(node, path="") -> set[str]:
    """Every key path of an object, list positions included, without the scalar values."""
    if isinstance(node, dict):
        return {path + "/" + str(k) for k in node} | {p for k, v in node.items() for p in _shape(v, f"{path}/{k}")}
    if isinstance(node, list):
        return {p for i, v in enumerate(node) for p in _shape(v, f"{path}[{i}]")}
    return set()


def _rendered(values: dict):
    try:
        return render(values), None
    except RenderError as error:
        return None, str(error)


def test_every_hostile_string_scalar_fails_at_the_schema_naming_it():
    """One render with every string scalar hostile at once: Helm's schema check reports each value it
    refuses, so each must be named in the one message (a scalar it let through would need a case below)."""
    values = _values(STRING_PATHS[0], "scalar", HOSTILE)
    for path in STRING_PATHS[1:]:
        values = _merge(values, _values(path, "scalar", HOSTILE, features=False))
    hostile, failure = _rendered(values)
    assert hostile is None, "every string scalar has a pattern or an enumeration"
    missing = [path for path in STRING_PATHS if f"at '/{path.replace('.', '/')}'" not in failure]
    assert missing == [], f"hostile text let through or not named: {missing}"


@pytest.mark.parametrize(("path", "shape"), CASES, ids=[f"{p}:{s}" for p, s in CASES])
def test_a_hostile_string_keeps_every_object_s_kind_and_keys_or_fails_naming_the_value(path, shape):
    hostile, failure = _rendered(_values(path, shape, HOSTILE))
    if hostile is None:
        pointer = "/" + path.replace(".", "/")
        assert pointer in failure or path in failure, f"{path}: the failure does not name the value: {failure}"
        return
    harmless, harmless_failure = _rendered(_values(path, shape, HARMLESS))
    assert harmless_failure is None, f"{path}: a harmless text fails but the hostile one renders"
    assert [o["kind"] for o in hostile.objects] == [o["kind"] for o in harmless.objects], path
    for ours, twin in zip(hostile.objects, harmless.objects, strict=True):
        assert _shape(ours) == _shape(twin), f"{path}: {ours['kind']} {ours['metadata']['name']} gained or lost keys"
    # The hostile text, where it is written, is one whole scalar (never split over keys).
    assert "injected" not in {key for obj in hostile.objects for key in _shape(obj)}


def test_the_cases_cover_every_string_value_of_the_chart():
    assert len(STRING_PATHS) > 40
    for covered in ("cache.storageClass", "image.repository", "ingress.host", "model.profile", "proxy.httpProxy",
                    "customCA.configMapName", "download.mode", "streaming.endpoint", "tests.url"):
        assert covered in STRING_PATHS, covered
