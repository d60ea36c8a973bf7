"""When an install creates an object: Helm's install hooks and Argo CD's sync hooks run in phases, so a
hook Job's pods and the release's other pods are not all there at once on a first install."""

from __future__ import annotations

from dgdlint.model import KObject, as_str

HELM_HOOK = "helm.sh/hook"
ARGO_HOOK = "argocd.argoproj.io/hook"


def _listed(obj: KObject, annotation: str) -> list[str]:
    text = as_str(obj.annotations.get(annotation)) or ""
    return [item.strip() for item in text.split(",") if item.strip()]


def install_phase(obj: KObject) -> str | None:
    """"pre" (a hook that finishes before the release's other objects are created), "main", "post" (a hook
    that runs once they are), or None when a first install does not create it at all (a hook of upgrades,
    deletes, rollbacks or tests only). Helm's annotation decides when present, as `helm install` reads it,
    else Argo CD's (Argo CD reads its own first and maps Helm's install hooks onto PreSync and PostSync;
    the chart's objects say the same in both); names are compared exactly, as both tools do."""
    helm = _listed(obj, HELM_HOOK)
    if helm:
        if "pre-install" in helm:
            return "pre"
        return "post" if "post-install" in helm else None
    argo = _listed(obj, ARGO_HOOK)
    if argo:
        if "PreSync" in argo:
            return "pre"
        if "Sync" in argo:
            return "main"
        return "post" if "PostSync" in argo else None
    return "main"
