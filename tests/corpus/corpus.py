"""Shared by the corpus test and its golden-file updater: check each upstream file alone."""

from __future__ import annotations

from pathlib import Path

from dgdlint.engine import check_paths

GOLDEN = Path(__file__).with_name("golden.yaml")
# envsubst templates (`${HW_NODE_SELECTOR}` where the schema wants an object): not valid DGDs as they stand.
ENVSUBST_TEMPLATES = {"recipes/qwen3.6-35b/deploy/dynamo-fd.yaml", "recipes/qwen3.6-35b/deploy/dynamo-fd-ec.yaml"}


def corpus_files(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.rglob("*") if p.suffix in (".yaml", ".yml"))


def findings_by_file(corpus: Path, stage) -> dict[str, list]:
    out = {}
    for path in corpus_files(corpus):
        result = check_paths([str(path)], stage)
        out[str(path.relative_to(corpus))] = result.findings
    return out


def rule_entries(findings_by_file: dict[str, list]) -> set[tuple[str, str, int]]:
    return {
        (file, f.rule, f.line)
        for file, findings in findings_by_file.items()
        for f in findings
        if f.stage == "rule" and f.severity in ("error", "warning")
    }
