"""When an install creates an object: Helm's install hooks and Argo CD's sync hooks run in phases, and Argo
CD's sync waves one after the other, so a hook Job's pods and the release's other pods are not all there at
once on a first install."""

from __future__ import annotations

import re
from dataclasses import dataclass

from dgdlint.model import KObject

HELM_HOOK = "helm.sh/hook"
HELM_WEIGHT = "helm.sh/hook-weight"
ARGO_HOOK = "argocd.argoproj.io/hook"
ARGO_WAVE = "argocd.argoproj.io/sync-wave"
# strconv.Atoi's syntax and the range of Go's int on 64-bit machines, which Argo CD parses a wave with.
_GO_INT = re.compile(r"[+-]?[0-9]+")
_GO_INT_RANGE = range(-2**63, 2**63)
BEFORE, WITH, AFTER = 0, 1, 2


@dataclass(frozen=True)
class Step:
    """Where in a first install an object is created: the stage (before, with or after the release's
    ordinary objects) and, within it, Argo CD's sync wave. A hook (`passes`) runs to completion within its
    step; anything else stays for the steps after it. `argo`: Argo CD's annotations place it (no Helm hook
    does), so the order is Argo CD's alone."""

    stage: int
    wave: int
    passes: bool = False
    argo: bool = False


def argo_wave(obj: KObject) -> int:
    """Argo CD's wave: the sync-wave annotation read as Go's strconv.Atoi reads it, else Helm's hook weight
    read the same way, else 0 (gitops-engine's syncwaves.Wave)."""
    for name in (ARGO_WAVE, HELM_WEIGHT):
        text = obj.annotations.get(name)
        if isinstance(text, str) and _GO_INT.fullmatch(text) and int(text) in _GO_INT_RANGE:
            return int(text)
    return 0


def install_step(obj: KObject) -> Step | None:
    """The object's Step, or None when a first install does not create it at all (a hook of upgrades,
    deletes, rollbacks or tests only, or one Argo CD skips). Helm's annotation decides when present, as
    `helm install` reads it (its pre-install hooks counted in one step, as Argo CD runs a PreSync wave at
    once), else Argo CD's hook and wave (Argo CD reads its own first and maps Helm's install hooks onto
    PreSync and PostSync; the chart's objects say the same in both); names are compared exactly, as both
    tools do."""
    helm = obj.annotation_items(HELM_HOOK)
    if helm:
        if "pre-install" in helm:
            return Step(BEFORE, 0, True)
        return Step(AFTER, 0, True) if "post-install" in helm else None
    argo = obj.annotation_items(ARGO_HOOK)
    if not argo:
        wave = argo_wave(obj)
        return Step(WITH, wave, argo=wave != 0)
    stage = BEFORE if "PreSync" in argo else WITH if "Sync" in argo else AFTER if "PostSync" in argo else None
    return None if stage is None else Step(stage, argo_wave(obj), True, True)


def is_helm_test_hook(obj: KObject) -> bool:
    """A Helm test hook: installing or applying never creates it."""
    return any(hook in ("test", "test-success") for hook in obj.annotation_items(HELM_HOOK))
