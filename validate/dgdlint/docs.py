"""Rule documentation generated from the registry: the catalogue (text, JSON, Markdown) and `explain`.

Each check rule's page shows a failing manifest and its fixed twin. They are package data,
`dgdlint/rules/examples/<rule>.fail.yaml` and `<rule>.pass.yaml`, read only when a page is rendered,
and the tests check every pair against the rule, so the pages cannot drift from what dgdlint does."""

from __future__ import annotations

import importlib.resources
import json

from dgdlint.rules import Rule
from dgdlint.rules.catalogue import STAGE_FINDINGS, all_rules, find_rule


def examples(rule_name: str) -> tuple[str, str] | None:
    """(failing manifest, fixed twin) of one rule, read from its two example files; None when it has none.

    A rule without files keeps whatever examples its definition carries inline (the diff rules may)."""
    folder = importlib.resources.files("dgdlint.rules") / "examples"
    fail, fixed = folder / f"{rule_name}.fail.yaml", folder / f"{rule_name}.pass.yaml"
    if fail.is_file() and fixed.is_file():
        return (fail.read_text(encoding="utf-8").rstrip("\n"), fixed.read_text(encoding="utf-8").rstrip("\n"))
    rule_ = find_rule(rule_name)
    if rule_ is not None and rule_.fail_example and rule_.pass_example:
        return rule_.fail_example, rule_.pass_example
    return None


STAGES_HEADING = "Findings of the parse and schema stages (no code; a configuration names them as it names rules):"


def rules_text() -> str:
    rules = all_rules()
    width = max(len(name) for name in [*(r.name for r in rules), *STAGE_FINDINGS])
    lines = [f"{r.code}  {r.name:<{width}}  {r.severity:<7}  {r.title}" + (" [fixable]" if r.fixable else "")
             for r in rules]
    lines += ["", STAGES_HEADING]
    lines += [f"{stage:<6}  {name:<{width}}  {severity:<7}  {meaning}"
              for name, (stage, severity, meaning) in STAGE_FINDINGS.items()]
    return "\n".join(lines) + "\n"


def rules_json() -> str:
    """Every name a configuration may use: the rules (with a code), then the stage findings (code null)."""
    return json.dumps([
        *({"name": r.name, "code": r.code, "severity": r.severity, "family": r.family, "stage": "rule",
           "title": r.title, "rationale": r.rationale, "remediation": r.remediation, "reads": list(r.reads),
           "fixable": bool(r.fixable), **({"fix": r.fixable} if r.fixable else {})}
          for r in all_rules()),
        *({"name": name, "code": None, "severity": severity, "family": stage, "stage": stage, "title": meaning,
           "rationale": meaning, "remediation": "", "reads": [], "fixable": False}
          for name, (stage, severity, meaning) in STAGE_FINDINGS.items()),
    ], indent=2) + "\n"


def rules_markdown() -> str:
    lines = ["| code | rule | severity | what it checks |", "|---|---|---|---|"]
    for r in all_rules():
        where = " (`dgdlint diff`)" if r.family == "diff" else ""
        fixable = " (fixable: `dgdlint fix`)" if r.fixable else ""
        lines.append(f"| {r.code} | `{r.name}` | {r.severity} | {r.title}{where}{fixable} |")
    lines += ["", "Findings of the parse and schema stages:", "",
              "| rule | stage | severity | meaning |", "|---|---|---|---|"]
    for name, (stage, severity, meaning) in STAGE_FINDINGS.items():
        lines.append(f"| `{name}` | {stage} | {severity} | {meaning} |")
    return "\n".join(lines) + "\n"


def explain(rule_: Rule) -> str:
    parts = [
        f"{rule_.name} ({rule_.code}, {rule_.severity})",
        "",
        rule_.title + ".",
        "",
        "Why it matters:",
        f"  {rule_.rationale}",
        "",
        "What to do:",
        f"  {rule_.remediation}",
        "",
        f"Reads: {', '.join(rule_.reads)}",
        "",
        f"dgdlint fix: {rule_.fixable}" if rule_.fixable else
        "dgdlint fix: not fixable (the answer needs a person; the finding is left as it is).",
    ]
    pair = examples(rule_.name)
    if pair is not None:
        parts += ["", "Fails:", "", _indent(pair[0]), "", "Passes (the fix):", "", _indent(pair[1])]
    return "\n".join(parts) + "\n"


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())
