"""Every v1alpha1 graph the project and the upstream corpus hold, diffed against `dgdlint convert --to
v1beta1`'s output of it: the same graph, so no diff-immutable-field, diff-sessions-lost or update-* finding.

A file is left out when convert says it changes or cannot write something (a warning or error note), when
it cannot be edited (YAML anchors), or when a side does not load cleanly; the test fails if that leaves
too few. The upstream corpus is read when ../shared/reference is there."""

from __future__ import annotations

from pathlib import Path

import pytest

from dgdlint.diff import compare
from dgdlint.edit.convert import convert_file
from dgdlint.edit.roundtrip import open_text
from dgdlint.edit.source import EditError
from dgdlint.load import load_paths
from dgdlint.model import build_model
from refdata import CORPUS, ROOT

pytestmark = pytest.mark.slow

JUDGED = ("diff-immutable-field", "diff-sessions-lost")


def _sources() -> list[Path]:
    roots = [ROOT / "examples", ROOT / "tests"] + ([CORPUS] if CORPUS.is_dir() else [])
    return [p for root in roots for p in sorted(root.rglob("*.yaml"))]


def _converted(path: Path, text: str) -> str | None:
    edit = open_text(str(path), text)
    try:
        notes = convert_file(edit, "v1beta1")
        if any(note.severity in ("error", "warning") for note in notes):
            return None
        return edit.render()
    except EditError:
        return None


def test_a_v1alpha1_graph_and_its_conversion_differ_in_nothing_the_operator_judges(tmp_path):
    reported, compared = [], 0
    for path in _sources():
        text = path.read_text(encoding="utf-8", errors="replace")
        if "nvidia.com/v1alpha1" not in text:
            continue
        converted = _converted(path, text)
        if converted is None:
            continue
        target = tmp_path / "converted.yaml"
        target.write_text(converted, encoding="utf-8")
        old, new = build_model(load_paths([str(path)])), build_model(load_paths([str(target)]))
        if not old.graphs or any(f.severity == "error" for f in old.findings + new.findings):
            continue
        compared += 1
        reported += [f"{path}: {f.rule} {f.path}"
                     for f in compare(old, new) if f.rule in JUDGED or f.rule.startswith("update-")]
    assert reported == []
    assert compared >= 200, f"only {compared} graphs compared"
