"""A PersistentVolumeClaim that is a hook: Helm and Argo CD delete hooks by their delete policies, and a
claim deleted goes with its data (a dynamically provisioned volume is deleted with it, as its reclaim
policy is Delete by default).

Helm (action/hooks.go): a hook without a `helm.sh/hook-delete-policy` gets `before-hook-creation`, which
deletes the hook left by the previous run before the hook runs again (the next upgrade, for a
`pre-upgrade` hook; the next install after an uninstall, which leaves hooks behind); `hook-succeeded`
deletes it once every hook of its event has succeeded (newer Helm releases also when a later hook of the
event fails); `hook-failed` deletes it when it fails, which a claim never does (Helm waits only for Jobs
and Pods to be ready).

Argo CD (gitops-engine, pkg/sync/hook): an object with `argocd.argoproj.io/hook` is a hook unless the
annotation is `Skip` alone; without it, Helm's `helm.sh/hook` makes one (`pre-install`/`pre-upgrade` as
PreSync, `post-*` as PostSync). Its delete policies are its own annotation's and Helm's, and
`BeforeHookCreation` when neither gives one. Each deletes the claim some day: `HookSucceeded` at the end
of a sync that succeeds, `HookFailed` at the end of one that fails (every finished hook with that policy,
whichever task failed), `BeforeHookCreation` at the next sync."""

from __future__ import annotations

from dgdlint.model import KObject, Model
from dgdlint.rules.registry import Hit, rule

HELM_HOOK, HELM_POLICY = "helm.sh/hook", "helm.sh/hook-delete-policy"
ARGO_HOOK, ARGO_POLICY = "argocd.argoproj.io/hook", "argocd.argoproj.io/hook-delete-policy"
_HELM_TO_ARGO = {"before-hook-creation": "BeforeHookCreation", "hook-succeeded": "HookSucceeded",
                 "hook-failed": "HookFailed"}
_ARGO_TYPES = ("PreSync", "Sync", "PostSync", "SyncFail", "PostDelete", "Skip")
_HELM_TYPES = {"pre-install", "pre-upgrade", "post-install", "post-upgrade"}
_HELM_WHEN = {"before-hook-creation": "the next time the hook runs",
              "hook-succeeded": "once the hooks of its event have run, before anything mounts it"}
_ARGO_WHEN = {"BeforeHookCreation": "at the next sync", "HookSucceeded": "at the end of every sync that succeeds",
              "HookFailed": "at the end of any sync that fails"}


def helm_deletion(obj: KObject) -> tuple[tuple, str] | None:
    """(annotation path, when Helm deletes the claim `obj`), when it is a Helm hook (not a test one)."""
    hooks = obj.annotation_items(HELM_HOOK)
    if not hooks or all(hook in ("test", "test-success", "crd-install") for hook in hooks):
        return None
    policies = obj.annotation_items(HELM_POLICY)
    for policy in policies or ["before-hook-creation"]:
        if policy in _HELM_WHEN:
            key = HELM_POLICY if policies else HELM_HOOK
            said = f"{HELM_POLICY} {policy}" if policies else f"no {HELM_POLICY}: Helm's default {policy}"
            return ("metadata", "annotations", key), f"{_HELM_WHEN[policy]} ({said})"
    return None


def argo_deletion(obj: KObject) -> tuple[tuple, str, bool] | None:
    """(annotation path, when Argo CD deletes `obj`, whether its own annotation makes it a hook), when it is an
    Argo CD hook."""
    own = [hook for hook in obj.annotation_items(ARGO_HOOK) if hook in _ARGO_TYPES]
    if own == ["Skip"]:
        return None
    if not own:  # Argo CD reads Helm's hook then (and applies an object with neither of its hook types never)
        helm = obj.annotations.get(HELM_HOOK)
        if helm is None or helm == "crd-install" or not set(obj.annotation_items(HELM_HOOK)) & _HELM_TYPES:
            return None
    policies = [p for p in obj.annotation_items(ARGO_POLICY) if p in _ARGO_WHEN]
    policies += [_HELM_TO_ARGO[p] for p in obj.annotation_items(HELM_POLICY) if p in _HELM_TO_ARGO]
    policies = policies or ["BeforeHookCreation"]
    key = ARGO_HOOK if ARGO_HOOK in obj.annotations else HELM_HOOK
    whens = "; ".join(f"{_ARGO_WHEN[p]} ({p})" for p in dict.fromkeys(policies))
    return ("metadata", "annotations", key), whens, bool(own)


@rule(
    name="claim-deleted-as-hook", code="DGD409", severity="warning", family="cache",
    title="A claim is never a hook that Helm or Argo CD deletes",
    rationale="""A PersistentVolumeClaim made a hook (to exist before a download Job that is a hook too) is
    deleted by the tool that runs it, with its data: Helm deletes a hook by `before-hook-creation` (its
    default) the next time the hook runs, and by `hook-succeeded` once its event's hooks have run; Argo CD
    runs Helm's hooks as its own and deletes a hook by every one of its policies, `HookFailed` (at the end
    of any failed sync, a failed download included), `HookSucceeded` or `BeforeHookCreation` (its default,
    at the next sync). For
    Helm, a claim hook is safe only with `helm.sh/hook-delete-policy: hook-failed` alone; for Argo CD, only
    when it is not an Argo CD hook at all.""",
    remediation="For Helm, give the claim hook `helm.sh/hook-delete-policy: hook-failed`; for Argo CD, mark it "
                "`argocd.argoproj.io/hook: Skip` and render the claim as an ordinary object in the Job's sync "
                "wave instead (the Cosmos3 chart's `download.mode: argocd`).",
    reads=("PersistentVolumeClaim",),
)
def claim_deleted_as_hook(model: Model):
    for pvc in model.pvcs:
        if pvc.path != () or pvc.obj.kind != "PersistentVolumeClaim":
            continue
        obj = pvc.obj
        helm = helm_deletion(obj)
        if helm is not None:
            yield Hit(obj, helm[0], f"{obj.label}: a Helm hook, which Helm deletes with its data {helm[1]}")
        argo = argo_deletion(obj)
        if argo is not None:
            via = "" if argo[2] else f" (by Helm's {HELM_HOOK}: {ARGO_HOOK} names no hook type of Argo CD's)" \
                if ARGO_HOOK in obj.annotations else f" (by Helm's {HELM_HOOK}, as it has no {ARGO_HOOK})"
            yield Hit(obj, argo[0], f"{obj.label}: an Argo CD hook{via}, which Argo CD deletes with its data "
                                    f"{argo[1]}")
