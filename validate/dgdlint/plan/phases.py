"""When an install creates an object: Helm's install hooks and Argo CD's sync hooks run in phases, so a
hook Job's pods and the release's other pods are not all there at once on a first install."""

from __future__ import annotations

from dgdlint.model import KObject

HELM_HOOK = "helm.sh/hook"
ARGO_HOOK = "argocd.argoproj.io/hook"


def install_phase(obj: KObject) -> str | None:
    """"pre" (a hook that finishes before the release's other objects are created), "main", "post" (a hook
    that runs once they are), or None when a first install does not create it at all (a hook of upgrades,
    deletes, rollbacks or tests only). Helm's annotation decides when present, as `helm install` reads it,
    else Argo CD's (Argo CD reads its own first and maps Helm's install hooks onto PreSync and PostSync;
    the chart's objects say the same in both); names are compared exactly, as both tools do."""
    helm = obj.annotation_items(HELM_HOOK)
    if helm:
        if "pre-install" in helm:
            return "pre"
        return "post" if "post-install" in helm else None
    argo = obj.annotation_items(ARGO_HOOK)
    if argo:
        if "PreSync" in argo:
            return "pre"
        if "Sync" in argo:
            return "main"
        return "post" if "PostSync" in argo else None
    return "main"


def is_helm_test_hook(obj: KObject) -> bool:
    """A Helm test hook: installing or applying never creates it."""
    return any(hook in ("test", "test-success") for hook in obj.annotation_items(HELM_HOOK))
