"""The example at the end of each `dgdlint COMMAND --help` runs as shown from the repository root (exit 0, or
1 where it finds something; never a usage error or a crash), except the lines that name a placeholder
(`deploy/...`, `old.yaml`, `RELEASE`), a cluster or a live frontend. A file an example writes goes to a
temporary folder."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from dgdlint.cli import main
from dgdlint.commands import COMMANDS, command_module
from refdata import ROOT

NEEDS_MORE = ("preflight", "smoke")  # a cluster, a live frontend


def example_lines() -> list[tuple[str, str]]:
    lines = []
    for name in COMMANDS:
        text = command_module(name).EXAMPLE.replace("\\\n", " ")
        lines += [(name, line.strip()) for line in text.splitlines() if line.strip()]
    return lines


def runnable(words: list[str]) -> bool:
    """No pipe, no placeholder: every input path the line names is in the repository."""
    if "|" in words or words[1] in NEEDS_MORE:
        return False
    outputs = {words[i + 1] for i, word in enumerate(words[:-1]) if word == ">"}
    inputs = [w for w in words[2:] if not w.startswith("-") and "=" not in w and w not in outputs and w != ">"
              and ("/" in w or w.endswith((".yaml", ".tgz")))]
    return all((ROOT / w).exists() for w in inputs)


EXAMPLES = example_lines()
RUNNABLE = [(name, line) for name, line in EXAMPLES if runnable(shlex.split(line))]


def test_most_examples_run_here():
    assert len(RUNNABLE) >= 11, RUNNABLE
    assert {"check", "convert", "fix", "render", "plan", "diff", "rules", "explain", "schemas"} <= \
        {name for name, _ in RUNNABLE}


@pytest.mark.parametrize("name, line", RUNNABLE, ids=[line[:70] for _, line in RUNNABLE])
def test_a_help_example_runs_as_shown(capsys, monkeypatch, tmp_path, name, line):
    monkeypatch.delenv("DGDLINT_CRD", raising=False)
    monkeypatch.chdir(ROOT)
    words = shlex.split(line)
    assert words[0] == "dgdlint" and words[1] == name
    if ">" in words:  # `> manifests.yaml`: the output is read here, not written into the repository
        words = words[:words.index(">")]
    words = [w if "=" not in w or w.startswith("-") else f"{w.split('=')[0]}={tmp_path / Path(w.split('=')[1]).name}"
             for w in words]
    code = main(words[1:])
    captured = capsys.readouterr()
    assert code in (0, 1), f"`{line}` exits {code}: {captured.err}"
    assert captured.out or list(tmp_path.iterdir()), f"`{line}` printed and wrote nothing"
