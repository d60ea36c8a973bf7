"""Go programs as test oracles: build one (its main.go and, where it needs modules, a go.mod) and ask it
about texts, one JSON-quoted text a line (optionally after a mode word), one answer a line back; and texts
near given seeds to ask about. A missing Go toolchain, or modules that cannot be had, skip with the reason."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from refdata import ROOT


def build(folder: Path, main: str, why: str, go_mod: str | None = None, go_sum: Path | None = None,
          tidy: bool = False, flags: tuple = (), env: dict | None = None) -> Path:
    """The oracle binary built in `folder`. `why`: what the oracle is for, said in the skip without Go.
    With `go_mod` it is a module (`tidy` fetches what it requires; a build that fails then skips, as the
    modules may not be had here); without, a program of the standard library (a failed build is an error)."""
    if shutil.which("go") is None:
        pytest.skip(f"no Go toolchain on this machine: {why}")
    (folder / "main.go").write_text(main)
    if go_mod is not None:
        (folder / "go.mod").write_text(go_mod)
    if go_sum is not None:
        shutil.copy(go_sum, folder / "go.sum")
    if tidy:
        tidied = subprocess.run(["go", "mod", "tidy"], cwd=folder, capture_output=True, text=True, timeout=300)
        if tidied.returncode != 0:
            pytest.skip(f"the Go module proxy did not serve the oracle's modules: {tidied.stderr.strip()[-300:]}")
    target = "." if go_mod is not None else "main.go"
    built = subprocess.run(["go", "build", *flags, "-o", "oracle", target], cwd=folder, capture_output=True,
                           text=True, timeout=1200, env={**os.environ, **(env or {})})
    if built.returncode != 0:
        if go_mod is None:
            raise AssertionError(built.stderr)
        pytest.skip(f"the oracle's modules could not be built here: {built.stderr.strip()[-400:]}")
    return folder / "oracle"


def build_with_kubernetes(folder: Path, main: str, why: str) -> Path:
    """The oracle built against the modules the kube-apiserver of `make tools` is built from (tools/kube-apiserver's
    go.mod and go.sum: the same Kubernetes release), with the flags `make tools` uses, so that its compiled
    packages are reused."""
    tools = ROOT / "tools" / "kube-apiserver"
    module = (tools / "go.mod").read_text().replace("module cosmos3-reasoner/tools/kube-apiserver", "module oracle", 1)
    return build(folder, main, why, go_mod=module, go_sum=tools / "go.sum", flags=("-mod=readonly", "-trimpath"),
                 env={"CGO_ENABLED": "0"})


def ask(binary: Path, texts: list[str], mode: str = "", timeout: int = 120) -> list[str]:
    """The oracle's answer to each text, in order."""
    lines = "".join(f"{mode} {json.dumps(text)}\n" if mode else f"{json.dumps(text)}\n" for text in texts)
    run = subprocess.run([str(binary)], input=lines, capture_output=True, text=True, check=True, timeout=timeout)
    answers = run.stdout.splitlines()
    assert len(answers) == len(texts)
    return answers


def mutate(rng: random.Random, text: str, alphabet: str, edits: list[int]) -> str:
    """`text` with a few characters replaced, inserted or removed (how many: one of `edits`)."""
    chars = list(text)
    for _ in range(rng.choice(edits)):
        where = rng.randrange(len(chars) + 1)
        action = rng.choice(["replace", "insert", "delete"])
        if action == "insert" or not chars:
            chars.insert(where, rng.choice(alphabet))
        elif action == "replace":
            chars[min(where, len(chars) - 1)] = rng.choice(alphabet)
        else:
            del chars[min(where, len(chars) - 1)]
    return "".join(chars)


def near(rng: random.Random, seeds: list[str], alphabet: str, count: int, longest: int = 0) -> list[str]:
    """The seeds and `count` texts near them, some of about `longest` characters when it is given."""
    out = list(seeds)
    for _ in range(count):
        text = mutate(rng, rng.choice(seeds), alphabet, [0, 1, 1, 2, 3])
        if longest and rng.random() < 0.05:
            text = (text + "a" * longest)[:longest + rng.choice([-1, 0, 1])]
        out.append(text)
    return out
