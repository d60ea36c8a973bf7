"""Generated documentation: the README's preset table, values reference and rule table, docs/rules.md and
docs/parity.md; and the chart's files/value-shapes.yaml (from its values schema).

`--write` regenerates them in place; `--check` fails (exit 1) when the committed text has drifted."""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"
RULES_DOC = ROOT / "docs" / "rules.md"
PARITY_DOC = ROOT / "docs" / "parity.md"
CHART = ROOT / "charts" / "cosmos3-reasoner"
VALUES = ROOT / "values"


def sections() -> dict[str, str]:
    from dgdlint.docs import rules_markdown
    from dgdlint.tools.values_reference import presets_table, values_table

    return {"presets": presets_table(VALUES), "values": values_table(CHART), "rules": rules_markdown()}


def rules_page() -> str:
    from dgdlint.docs import all_rules, examples

    parts = ["# dgdlint rules", "", "Generated from the rule registry by `make docs`; do not edit by hand.", ""]
    for rule_ in all_rules():
        parts += [f"## `{rule_.name}` ({rule_.code}, {rule_.severity})", "", f"{rule_.title}.", "",
                  f"**Why it matters.** {rule_.rationale}", "", f"**What to do.** {rule_.remediation}", "",
                  f"Reads: {', '.join(rule_.reads)}.", ""]
        if rule_.fixable:
            parts += [f"**`dgdlint fix`.** {rule_.fixable}", ""]
        pair = examples(rule_.name)
        if pair is not None:
            parts += ["**Fails:**", "", "```yaml", pair[0], "```", "",
                      "**Passes (the fix):**", "", "```yaml", pair[1], "```", ""]
    return "\n".join(parts).rstrip() + "\n"


def fill(text: str, name: str, body: str) -> str:
    pattern = re.compile(rf"(<!-- BEGIN generated:{name} -->\n).*?(<!-- END generated:{name} -->)", re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"README.md has no generated:{name} markers")
    return pattern.sub(lambda m: m.group(1) + body.rstrip("\n") + "\n" + m.group(2), text)


def expected_files() -> dict[Path, str]:
    readme = README.read_text(encoding="utf-8")
    for name, body in sections().items():
        readme = fill(readme, name, body)
    from dgdlint.parity import parity_page
    from dgdlint.tools.value_shapes import shapes_yaml

    return {README: readme, RULES_DOC: rules_page(), PARITY_DOC: parity_page(),
            CHART / "files" / "value-shapes.yaml": shapes_yaml(CHART)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gendocs", description=__doc__)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    drifted = []
    for path, text in expected_files().items():
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current == text:
            continue
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
        else:
            drifted.append(path)
            diff = difflib.unified_diff(current.splitlines(), text.splitlines(), str(path), "generated", lineterm="")
            sys.stdout.write("\n".join(list(diff)[:40]) + "\n")
    if drifted:
        print(f"generated docs drifted: {', '.join(str(p.relative_to(ROOT)) for p in drifted)}; run `make docs`")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
