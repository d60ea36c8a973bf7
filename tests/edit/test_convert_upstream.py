"""Checked against upstream: its own hand conversion of its examples, and every v1alpha1 graph of the corpus.

Needs ../shared/reference (skips with a message without it)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml
from edit_support import facts

from dgdlint.edit.convert import convert_file
from dgdlint.edit.roundtrip import open_text
from dgdlint.engine import check_texts
from refdata import CORPUS, PRERELEASE, REFERENCE, ROOT, require_reference

V1ALPHA1_EXAMPLES = CORPUS / "v1alpha1-examples@357f3222"
DIFFERENCES = Path(__file__).with_name("upstream_differences.yaml")
FIELDS = ("type", "replicas", "image", "command", "args", "env", "gpus")


def _convert(path: Path) -> tuple[str, list]:
    edit = open_text(str(path), path.read_text())
    notes = convert_file(edit, "v1beta1")
    return edit.render(), notes


def _twins() -> list[Path]:
    require_reference(V1ALPHA1_EXAMPLES)
    return sorted(V1ALPHA1_EXAMPLES.rglob("*.yaml"))


def test_conversion_matches_upstreams_hand_conversion_except_the_listed_differences():
    listed = {(d["file"], d["component"], d["field"]): d["reason"] for d in yaml.safe_load(DIFFERENCES.read_text())}
    assert all(reason.strip() for reason in listed.values())
    found = set()
    twins = _twins()
    assert len(twins) == 14
    for source in twins:
        relative = source.relative_to(V1ALPHA1_EXAMPLES).as_posix()
        converted, _ = _convert(source)
        ours = facts(relative, converted)
        theirs = facts(relative, (CORPUS / relative).read_text())
        assert sorted(ours) == sorted(theirs), relative
        for component, found_facts in ours.items():
            for field in FIELDS:
                if found_facts[field] != theirs[component][field]:
                    found.add((relative, component, field))
    assert sorted(found - set(listed)) == [], "differences not listed in upstream_differences.yaml"
    assert sorted(set(listed) - found) == [], "listed differences that no longer differ"


def _v1alpha1_graph_files() -> list[Path]:
    require_reference(REFERENCE)
    files = [p for root in (CORPUS, PRERELEASE) for p in sorted(root.rglob("*.yaml"))]
    files += sorted((ROOT / "examples").glob("*.yaml"))
    return [p for p in files if "nvidia.com/v1alpha1" in p.read_text()]


# Envsubst templates whose `${...}` placeholders are strings where the schema wants an object or a list: they
# fail the v1alpha1 schema already, with the same errors after conversion.
TEMPLATES = ("recipes/qwen3.6-35b/deploy/",)


@pytest.mark.slow
def test_every_v1alpha1_graph_of_the_corpus_converts_passes_the_v1beta1_schema_and_keeps_its_rule_findings(
        crd_schema_stage):
    files = _v1alpha1_graph_files()
    assert len(files) >= 40
    for path in files:
        text = path.read_text()
        converted, notes = _convert(path)
        assert not [n for n in notes if n.severity == "error"], path
        graphs = [d for d in yaml.safe_load_all(converted) if isinstance(d, dict)
                  and d.get("kind") == "DynamoGraphDeployment"]
        assert graphs and all(d["apiVersion"] == "nvidia.com/v1beta1" for d in graphs), path
        before = check_texts({str(path): text}, crd_schema_stage).findings
        after = check_texts({str(path): converted}, crd_schema_stage).findings
        schema_errors = [f for f in after if f.stage == "schema" and f.severity == "error"]
        if any(t in path.as_posix() for t in TEMPLATES):
            assert len(schema_errors) <= len([f for f in before if f.stage == "schema"]), path
        else:
            assert schema_errors == [], (path, [f.message for f in schema_errors][:3])
        rules = Counter((f.rule, f.severity) for f in before if f.stage == "rule")
        assert Counter((f.rule, f.severity) for f in after if f.stage == "rule") == rules, path
