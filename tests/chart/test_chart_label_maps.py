"""Values the API server refuses in the objects the chart writes fail at the schema, naming the value: every
label map (labels, the pod labels, the PodMonitor labels, node selectors, selectors' matchLabels) holds label
keys (a qualified name: an optional DNS-subdomain prefix of at most 253 characters and '/', then at most 63
letters, digits, '-', '_' and '.', alphanumeric at both ends) and label values (empty, or at most 63 of
those characters, alphanumeric at both ends); cache.size is above zero. Each refusal has a passing twin,
which renders and passes dgdlint."""

from __future__ import annotations

import pytest
import yaml
from chart_support import render, render_error

from dgdlint.engine import check_texts

SCHEMA_FAILED = "values don't meet the specifications of the schema"


def _at(path: str, table: dict) -> dict:
    """`table` placed at the dotted `path` (a `[0]` step is a list of one), with what renders it switched on."""
    value: object = table
    for step in reversed(path.split(".")):
        value = [value] if step == "[0]" else {step: value}
    if path.startswith("frontend.networkPolicy"):
        value["frontend"]["networkPolicy"]["enabled"] = True
    if path.startswith("metrics.podMonitor"):
        value["metrics"]["podMonitor"]["enabled"] = True
    return value


# Every label map of the values, as a dotted path (a list item as [0]) and its JSON pointer in the message.
LABEL_MAPS = {
    "labels": "/labels",
    "frontend.podLabels": "/frontend/podLabels",
    "worker.podLabels": "/worker/podLabels",
    "download.podLabels": "/download/podLabels",
    "metrics.podMonitor.labels": "/metrics/podMonitor/labels",
    "frontend.nodeSelector": "/frontend/nodeSelector",
    "worker.nodeSelector": "/worker/nodeSelector",
    "frontend.networkPolicy.from.[0].podSelector.matchLabels": "/frontend/networkPolicy/from/0/podSelector/matchLabels",
    "worker.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution.[0].podAffinityTerm."
    "labelSelector.matchLabels":
        "/worker/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/0/podAffinityTerm/"
        "labelSelector/matchLabels",
}
BAD_VALUES = {"64 characters": "v" * 64, "a space": "team vision", "a leading dash": "-vision",
              "a trailing dot": "vision.", "a letter outside ASCII": "visión", "a slash": "team/vision"}
GOOD_VALUES = {"empty": "", "one character": "v", "63 characters": "v" * 63, "every kind": "A.b_c-9"}
BAD_KEYS = {"a space": "team name", "a name part of 64": "k" * 64, "an upper-case prefix": "Example.com/team",
            "two slashes": "example.com/a/b", "an empty name": "example.com/", "a prefix of 254":
            ("p" * 62 + ".") * 4 + "pp/team", "a leading underscore": "_team"}
GOOD_KEYS = {"a plain name": "team", "a prefixed name": "app.kubernetes.io/part-of",
             "a name part of 63": "k" * 63, "a prefix of 253": ("p" * 62 + ".") * 4 + "p/team",
             "capitals and underscores in the name": "example.com/Team_1"}


def _affinity(path: str, table: dict) -> dict:
    """A pod anti-affinity term for the worker, with `table` as its matchLabels."""
    term = {"weight": 1, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                             "labelSelector": {"matchLabels": table}}}
    return {"worker": {"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [term]}}}}


def _values(path: str, table: dict) -> dict:
    return _affinity(path, table) if path.startswith("worker.affinity") else _at(path, table)


@pytest.mark.parametrize("path", list(LABEL_MAPS))
@pytest.mark.parametrize("case", list(BAD_VALUES))
def test_a_label_value_the_api_server_refuses_fails_at_the_schema(path, case):
    message = render_error(_values(path, {"team": BAD_VALUES[case]}))
    assert SCHEMA_FAILED in message and f"at '{LABEL_MAPS[path]}/team'" in message


@pytest.mark.parametrize("path", list(LABEL_MAPS))
@pytest.mark.parametrize("case", list(BAD_KEYS))
def test_a_label_key_the_api_server_refuses_fails_at_the_schema(path, case):
    key = BAD_KEYS[case]
    message = render_error(_values(path, {key: "vision"}))
    if case == "a prefix of 254":  # the length of a prefix is read apart, and Helm's schema library names no map
        assert SCHEMA_FAILED in message and f"invalid propertyName '{key}'" in message
    else:
        assert SCHEMA_FAILED in message and f"at '{LABEL_MAPS[path]}': additional properties '{key}' not allowed" \
            in message


REQUIREMENT = "/worker/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/0/labelSelector/" \
              "matchExpressions/0"


def _requirement(key: str, values: list[str]) -> dict:
    term = {"topologyKey": "kubernetes.io/hostname",
            "labelSelector": {"matchExpressions": [{"key": key, "operator": "In", "values": values}]}}
    return {"worker": {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}}}


@pytest.mark.parametrize(("key", "values", "where"), [
    ("team name", ["vision"], f"{REQUIREMENT}/key"),
    ("Example.com/team", ["vision"], f"{REQUIREMENT}/key"),
    ("team", ["vision", "v" * 64], f"{REQUIREMENT}/values/1"),
    ("team", ["-vision"], f"{REQUIREMENT}/values/0"),
])
def test_a_selector_requirement_with_a_key_or_value_the_api_server_refuses_fails_at_the_schema(key, values, where):
    message = render_error(_requirement(key, values))
    assert SCHEMA_FAILED in message and f"at '{where}'" in message


def test_a_selector_requirement_of_label_keys_and_values_renders():
    rendered = render(_requirement("app.kubernetes.io/name", ["", "v" * 63, "A.b_c-9"]))
    terms = rendered.worker["pod"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms[0]["labelSelector"]["matchExpressions"][0]["values"] == ["", "v" * 63, "A.b_c-9"]


@pytest.mark.parametrize("path", list(LABEL_MAPS))
def test_the_label_keys_and_values_the_api_server_takes_render_and_pass_dgdlint(path):
    table = {f"v{index}-{case.replace(' ', '-')}": value for index, (case, value) in enumerate(GOOD_VALUES.items())}
    table.update({key: "vision" for key in GOOD_KEYS.values()})
    rendered = render(_values(path, table))
    texts = {f"{index}.yaml": yaml.safe_dump(obj) for index, obj in enumerate(rendered.objects)}
    assert [(f.rule, f.message) for f in check_texts(texts).findings if f.severity == "error"] == []


ZERO_SIZES = [0, "0", "0Gi", "0.0", "000Mi", ".0Ti", "0e3", "0k"]
SIZES = [1, "1", "1Gi", "0.5Gi", ".5Ti", "1e3", "200Gi", "1m"]


@pytest.mark.parametrize("size", ZERO_SIZES, ids=str)
def test_a_cache_size_of_zero_fails_at_the_schema(size):
    message = render_error({"cache": {"size": size}})
    assert SCHEMA_FAILED in message and "at '/cache/size'" in message


@pytest.mark.parametrize("size", SIZES, ids=str)
def test_a_cache_size_above_zero_renders_and_passes_dgdlint(size):
    rendered = render({"cache": {"size": size}})
    claim = rendered.one("PersistentVolumeClaim")
    assert claim["spec"]["resources"]["requests"]["storage"] == str(size)
    texts = {f"{index}.yaml": yaml.safe_dump(obj) for index, obj in enumerate(rendered.objects)}
    assert [(f.rule, f.message) for f in check_texts(texts).findings if f.severity == "error"] == []
