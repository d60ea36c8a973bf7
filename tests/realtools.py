"""The real tools `make tools` builds into .tools/bin (helm, helm4, kubeconform, etcd, kube-apiserver):
where each is, and a skip that says why when one is missing (no Go toolchain, or `make tools` not run)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS_BIN = ROOT / ".tools" / "bin"
TOOLS = ("helm", "helm4", "kubeconform", "etcd", "kube-apiserver")


def tool_path(name: str) -> Path | None:
    path = TOOLS_BIN / name
    return path if path.is_file() and os.access(path, os.X_OK) else None


def missing_reason(name: str) -> str:
    if shutil.which("go") is None:
        return f"{name}: no Go toolchain on this machine, so `make tools` cannot build it"
    return f"{name}: not built yet (run `make tools`, which builds it into .tools/bin)"


def require_tool(name: str) -> str:
    """The path of a built tool, or skip the test with the reason."""
    path = tool_path(name)
    if path is None:
        pytest.skip(missing_reason(name))
    return str(path)


def tool_version(name: str) -> str:
    """What the tool says its version is (`helm version --short`, `kubeconform -v`, ...)."""
    command = {"helm": ["version", "--short"], "helm4": ["version", "--short"], "kubeconform": ["-v"],
               "etcd": ["--version"], "kube-apiserver": ["--version"]}[name]
    completed = subprocess.run([require_tool(name), *command], capture_output=True, text=True, check=True)
    return completed.stdout.strip()
