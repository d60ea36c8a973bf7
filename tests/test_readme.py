"""The README's `console` examples run as written: each `$ ` command, with the exit code noted as
`# exit N` (0 when absent), and the output lines shown under it when there are any."""

from __future__ import annotations

import os
import re
import shlex
import subprocess

from refdata import ROOT

BLOCK = re.compile(r"```console\n(.*?)```", re.DOTALL)


def console_examples() -> list[tuple[str, int, list[str]]]:
    examples = []
    for block in BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8")):
        current = None
        for line in block.splitlines():
            if line.startswith("$ "):
                command = line[2:]
                code = 0
                match = re.search(r"\s+#\s*exit\s+(\d+)\s*$", command)
                if match:
                    code, command = int(match.group(1)), command[: match.start()]
                current = (command, code, [])
                examples.append(current)
            elif current is not None and line.strip():
                current[2].append(line)
    return examples


def test_the_readme_has_runnable_examples():
    assert len(console_examples()) >= 2


def test_readme_examples_run_as_written():
    env = dict(os.environ, PATH=f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}")
    env.pop("DGDLINT_CRD", None)
    for command, code, expected in console_examples():
        completed = subprocess.run(shlex.split(command), cwd=ROOT, env=env, capture_output=True, text=True,
                                   timeout=120)
        assert completed.returncode == code, f"{command}: exit {completed.returncode}\n{completed.stderr}"
        for line in expected:
            assert line in completed.stdout, f"{command}: missing {line!r} in\n{completed.stdout}"


def test_the_first_screen_gives_exactly_two_commands():
    first_screen = (ROOT / "README.md").read_text(encoding="utf-8").split("## ")[0]
    [block] = re.findall(r"```sh\n(.*?)```", first_screen, re.DOTALL)
    assert [line.split("#")[0].strip() for line in block.strip().splitlines()] == ["make validate", "make test"]
