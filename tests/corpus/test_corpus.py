"""The upstream Dynamo corpus (80 YAML files, 65 DGDs) and NVIDIA's pre-release Cosmos3 manifests.

Each file is checked alone. No crash; no schema error on a DGD the CRD accepts; rule findings are
exactly the reviewed entries of golden.yaml (refresh with tests/corpus/update_golden.py)."""

from __future__ import annotations

import pytest
import yaml

from corpus.corpus import ENVSUBST_TEMPLATES, GOLDEN, corpus_files, findings_by_file, rule_entries
from dgdlint.engine import check_paths
from refdata import CORPUS, PRERELEASE, require_reference

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def corpus_findings(crd_schema_stage):
    return findings_by_file(require_reference(CORPUS), crd_schema_stage)


def test_the_corpus_is_the_expected_80_files_with_65_dgds():
    files = corpus_files(require_reference(CORPUS))
    assert len(files) == 80
    result = check_paths([str(p) for p in files])
    assert len(result.model.graphs) == 65


def test_no_crash_and_no_internal_error(corpus_findings):
    assert not [(f, x.message) for f, xs in corpus_findings.items() for x in xs if x.rule == "internal-error"]


def test_schema_errors_only_in_the_two_envsubst_templates(corpus_findings):
    with_schema_errors = {file for file, findings in corpus_findings.items()
                          if any(f.stage == "schema" and f.severity == "error" for f in findings)}
    assert with_schema_errors == ENVSUBST_TEMPLATES


def test_rule_findings_are_the_reviewed_golden_entries(corpus_findings):
    golden = yaml.safe_load(GOLDEN.read_text())
    assert all(entry["reason"] and not entry["reason"].startswith("REVIEW") for entry in golden), \
        "golden.yaml has entries without a reviewed reason"
    expected = {(e["file"], e["rule"], e["line"]) for e in golden}
    actual = rule_entries(corpus_findings)
    assert sorted(actual - expected) == [], "new findings: review them and run tests/corpus/update_golden.py"
    assert sorted(expected - actual) == [], "golden entries no longer found: refresh golden.yaml"


@pytest.mark.parametrize("name, placeholders", [
    ("reasoner.yaml", {(84, "placeholder-value")}),
    ("reasoner_with_streaming.yaml", {(28, "placeholder-value"), (90, "placeholder-value")}),
    ("model-cache.yaml", {(12, "placeholder-value")}),
])
def test_prerelease_manifests_have_findings_only_for_their_placeholders(crd_schema_stage, name, placeholders):
    result = check_paths([str(require_reference(PRERELEASE) / name)], crd_schema_stage)
    found = {(f.line, f.rule) for f in result.findings if f.severity in ("error", "warning")}
    assert found == placeholders
