"""Every dgdlint and `make render` command the documentation shows runs as shown from the repository root
(exit 0, or 1 where it shows findings; never a usage error or a traceback), and calls dgdlint the way a
fresh `make setup` provides it: `.venv/bin/dgdlint`. The dgdlint commands that read a cluster
(`--crd cluster`, `dgdlint preflight`) run against the cluster tier's API server
(tests/cluster/test_docs_cluster_commands.py); commands that need a live frontend or a release (`--url`,
a pipe) are shown, not run."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from refdata import ROOT

DOCS = [ROOT / "README.md", ROOT / "examples" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```(?:sh|console|bash)\n(.*?)```", re.DOTALL)
NEEDS_A_CLUSTER = ("helm ", "kubectl ", "--url", "cluster", "preflight ", "|")


def shown_commands() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        for block in BLOCK.findall(doc.read_text(encoding="utf-8")):
            pending = ""
            for raw in block.splitlines():
                line = raw[2:] if raw.startswith("$ ") else raw
                if pending:
                    line = pending + " " + line.strip()
                    pending = ""
                if line.rstrip().endswith("\\"):
                    pending = line.rstrip()[:-1].rstrip()
                    continue
                command = re.sub(r"\s+#.*$", "", line).strip()
                words = command.split()
                if words and (words[0].endswith("dgdlint") or words[:2] == ["make", "render"]):
                    found.append((str(doc.relative_to(ROOT)), command))
    return found


COMMANDS = shown_commands()
READS_A_CLUSTER = ("--crd cluster", "preflight ")


def reads_a_cluster(command: str) -> bool:
    return any(marker in command for marker in READS_A_CLUSTER) and not any(
        marker in command for marker in ("--url", "|"))


LOCAL_COMMANDS = [(doc, command) for doc, command in COMMANDS if not reads_a_cluster(command)]
CLUSTER_COMMANDS = [(doc, command) for doc, command in COMMANDS if reads_a_cluster(command)]


def test_the_docs_show_commands():
    assert len(COMMANDS) >= 10


@pytest.mark.parametrize("doc, command", LOCAL_COMMANDS, ids=[f"{d}: {c[:60]}" for d, c in LOCAL_COMMANDS])
def test_a_shown_command_runs_as_shown(doc, command):
    if any(marker in command for marker in NEEDS_A_CLUSTER):
        pytest.skip("needs a cluster, a release or a live frontend")
    run_as_shown(doc, command)


def run_as_shown(doc: str, command: str, environment: dict[str, str] | None = None) -> str:
    """Run a shown command from the repository root: exit 0 or 1, no traceback, nothing left behind; its
    output."""
    assert not command.startswith("dgdlint "), f"{doc}: `{command}`: dgdlint is .venv/bin/dgdlint after make setup"
    archives = [word for word in shlex.split(command) if word.startswith("dist/")]
    if archives and not all((ROOT / archive).is_file() for archive in archives):  # `make package` builds it
        subprocess.run(["make", "package"], cwd=ROOT, capture_output=True, check=True, timeout=300)
    environment = {**os.environ, **(environment or {})}
    environment.pop("DGDLINT_CRD", None)
    words = [word.replace(">", "") for word in shlex.split(command) if word != ">"]
    if ">" in command:  # `make render ... > manifests.yaml`: keep the output out of the repository
        words = shlex.split(command.split(">")[0])
    completed = subprocess.run(words, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300,
                               check=False)
    output = completed.stdout + completed.stderr
    assert "Traceback" not in output
    assert completed.returncode in (0, 1), f"{doc}: `{command}` exits {completed.returncode}:\n{output[-2000:]}"
    for written in [w for w in words if Path(ROOT, w).suffix in (".sarif", ".json", ".md") and "=" not in w]:
        Path(ROOT, written).unlink(missing_ok=True)
    return output
