"""Property-based fuzzing of load, model and rules: whatever the input, no exception escapes and no rule
reports an internal error. Mutations start from real manifests (the rule fixtures' clean bases and the
chart's renders), so the fuzzer reaches deep into the model, not only the parser."""

from __future__ import annotations

import copy

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dgdlint.engine import check_texts
from dgdlint.load import load_bytes
from dgdlint.schema import SchemaStage
from refdata import CRD_DIR, ROOT

BASES = [list(yaml.safe_load_all(p.read_text())) for p in sorted((ROOT / "tests" / "rules" / "_base").glob("*.yaml"))]
# The upstream CRDs (every Dynamo kind) when beside the repository, else the newest bundled release.
STAGE = SchemaStage([str(CRD_DIR)]) if CRD_DIR.exists() else SchemaStage()

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(allow_nan=False),
                    st.text(max_size=20), st.sampled_from(["0", "1", "true", "edge", "nvfp4", "<x>", "${X}",
                                                           "nvcr.io/nim/nvidia/cosmos3:latest", "16Gi", "-1"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=12), inner, max_size=4)),
                      max_leaves=12)


def paths_of(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, sub in node.items():
            yield from paths_of(sub, prefix + (key,))
    elif isinstance(node, list):
        for index, sub in enumerate(node):
            yield from paths_of(sub, prefix + (index,))


def replace_at(node, path, value):
    if not path:
        return value
    parent = node
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return node


@st.composite
def mutated_sets(draw):
    documents = copy.deepcopy(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(1, 4))):
        index = draw(st.integers(0, len(documents) - 1))
        paths = list(paths_of(documents[index]))
        path = draw(st.sampled_from(paths))
        documents[index] = replace_at(documents[index], path, draw(values))
    return yaml.safe_dump_all(documents, sort_keys=False)


def assert_no_internal_error(text: str) -> None:
    result = check_texts({"fuzz.yaml": text}, STAGE)
    internal = [f for f in result.findings if f.rule == "internal-error"]
    assert not internal, internal[0].message


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_sets())
def test_mutated_manifests_never_crash_the_model_or_a_rule(text):
    assert_no_internal_error(text)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_raise(data):
    load_bytes("fuzz.yaml", data)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab:- \n\t[]{}&*!|>'\"#%@`,?\ufeff\u0007")), max_size=200))
def test_yaml_shaped_noise_never_raises(text):
    result = check_texts({"noise.yaml": text}, STAGE)
    assert all(f.rule != "internal-error" for f in result.findings)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_sets())
def test_mutated_manifests_never_crash_thorough(text):
    assert_no_internal_error(text)


