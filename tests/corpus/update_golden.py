"""Refresh tests/corpus/golden.yaml after a rule change: keeps the reviewed reasons, drops entries that no
longer occur, and adds new ones with a `REVIEW:` reason, which the corpus test refuses until a person
replaces it with a one-line reason. Run: .venv/bin/python tests/corpus/update_golden.py"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus.corpus import GOLDEN, findings_by_file, rule_entries  # noqa: E402
from dgdlint.schema import SchemaStage  # noqa: E402
from refdata import CORPUS, CRD_DIR  # noqa: E402


def main() -> int:
    old = yaml.safe_load(GOLDEN.read_text()) if GOLDEN.exists() else []
    reasons = {(e["file"], e["rule"], e["line"]): e["reason"] for e in old or []}
    found = findings_by_file(CORPUS, SchemaStage([str(CRD_DIR)]))
    messages = {(file, f.rule, f.line): f.message for file, fs in found.items() for f in fs}
    entries = []
    for key in sorted(rule_entries(found)):
        reason = reasons.get(key) or f"REVIEW: {messages[key]}"
        entries.append({"file": key[0], "rule": key[1], "line": key[2], "reason": reason})
    header = ("# Rule findings on the upstream Dynamo corpus (../shared/reference/dynamo-examples), each file\n"
              "# checked alone. Every entry was reviewed: it is a real finding, and the reason says why.\n")
    GOLDEN.write_text(header + yaml.safe_dump(entries, sort_keys=False, width=200))
    print(f"{len(entries)} entries; {sum(e['reason'].startswith('REVIEW:') for e in entries)} to review")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
