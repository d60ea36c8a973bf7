"""The examples of docs/plan.md are real: each `$ dgdlint plan ...` in a console block is followed by what
the command prints, either in the block itself or, for the markdown form (shown rendered), between the
`<!-- BEGIN plan-output -->` and `<!-- END plan-output -->` markers after the block.

Refresh them after a change to plan or to the chart: .venv/bin/python tests/plan/plan_doc.py"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "plan.md"
EXAMPLE = re.compile(r"```console\n\$ (?P<command>(?:\.venv/bin/)?dgdlint plan[^\n]*)\n(?P<output>.*?)```"
                     r"(?P<rendered>\n+<!-- BEGIN plan-output -->\n(?P<markdown>.*?)<!-- END plan-output -->)?",
                     re.DOTALL)


@dataclass
class Example:
    command: str
    shown: str  # the output as the doc has it
    rendered: bool  # shown between the markers rather than in the console block
    span: tuple[int, int]


def examples(text: str) -> list[Example]:
    found = []
    for match in EXAMPLE.finditer(text):
        rendered = match.group("rendered") is not None
        shown = match.group("markdown") if rendered else match.group("output")
        found.append(Example(match.group("command"), shown, rendered, match.span()))
    return found


def run(command: str) -> tuple[int, str]:
    """Run the example as a user would (the `dgdlint` entry point, from the repository root)."""
    env = dict(os.environ)
    env.pop("DGDLINT_CRD", None)
    argv = shlex.split(command)
    completed = subprocess.run([sys.executable, "-m", "dgdlint", *argv[1:]], cwd=ROOT, env=env,
                               capture_output=True, text=True, timeout=300, check=False)
    return completed.returncode, completed.stdout


def refreshed(text: str) -> str:
    out, last = [], 0
    for example in examples(text):
        _code, printed = run(example.command)
        out.append(text[last:example.span[0]])
        if example.rendered:
            out.append(f"```console\n$ {example.command}\n```\n\n<!-- BEGIN plan-output -->\n{printed}"
                       "<!-- END plan-output -->")
        else:
            out.append(f"```console\n$ {example.command}\n{printed}```")
        last = example.span[1]
    out.append(text[last:])
    return "".join(out)


if __name__ == "__main__":
    DOC.write_text(refreshed(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"refreshed {DOC.relative_to(ROOT)}")
