"""`make tools` (tools/build.sh): without Go it says so in one line and exits 0, so the tiers that need the
tools skip (tests/realtools.py gives the reason); every tool is pinned by a go.mod and go.sum of its own."""

from __future__ import annotations

import re
import shutil
import subprocess

from realtools import TOOLS, missing_reason
from refdata import ROOT

BUILD = ROOT / "tools" / "build.sh"


def test_without_go_make_tools_says_so_in_one_line_and_succeeds(tmp_path):
    bash = shutil.which("bash")
    (tmp_path / "bin").mkdir()
    for name in ("dirname", "cat"):  # what the script needs before it looks for go
        (tmp_path / "bin" / name).symlink_to(shutil.which(name))
    completed = subprocess.run([bash, str(BUILD)], capture_output=True, text=True, check=False,
                               env={"PATH": str(tmp_path / "bin")})
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == ("make tools: no Go toolchain on PATH; helm/helm4/kubeconform/etcd/kube-apiserver "
                                "not built, their test tiers skip\n")


def test_every_tool_has_a_pinned_module_of_its_own():
    folders = {"helm": "helm3", "helm4": "helm4", "kubeconform": "kubeconform", "etcd": "etcd",
               "kube-apiserver": "kube-apiserver"}
    assert set(folders) == set(TOOLS)
    for folder in folders.values():
        go_mod = (ROOT / "tools" / folder / "go.mod").read_text(encoding="utf-8")
        assert re.search(r"^tool \S+$", go_mod, re.MULTILINE), folder
        assert (ROOT / "tools" / folder / "go.sum").is_file(), folder


def test_the_kube_apiserver_module_replaces_each_staging_module_by_its_published_version():
    go_mod = (ROOT / "tools" / "kube-apiserver" / "go.mod").read_text(encoding="utf-8")
    kubernetes = re.search(r"^\s*k8s.io/kubernetes v1\.(\d+\.\d+)", go_mod, re.MULTILINE).group(1)
    replaces = re.findall(r"^\s*(k8s.io/[\w-]+) => (k8s.io/[\w-]+) v0\.(\S+)$", go_mod, re.MULTILINE)
    assert len(replaces) > 25
    assert all(source == target and version == kubernetes for source, target, version in replaces)


def test_a_missing_tool_is_skipped_with_the_reason():
    if shutil.which("go"):
        assert missing_reason("helm9") == "helm9: not built yet (run `make tools`, which builds it into .tools/bin)"
    else:
        assert missing_reason("helm9") == "helm9: no Go toolchain on this machine, so `make tools` cannot build it"
