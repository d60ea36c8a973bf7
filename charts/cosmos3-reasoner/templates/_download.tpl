{{- /*
Helpers of the model download: what the cache must hold (identity and marker), the Job's pod, and the
workers' gate of the gated mode. Every object is built as a dict and written with toYaml.
*/ -}}

{{/* Usage: include "cosmos3-reasoner.downloadIdentity" . -> "image|variant|precision|tagsSelector" (plus "|profile=<id>" when model.profile pins one): what the cache must hold. */}}
{{- define "cosmos3-reasoner.downloadIdentity" -}}
{{- $identity := printf "%s|%s|%s|%s" (include "cosmos3-reasoner.nimImage" .) .Values.model.variant .Values.model.precision (include "cosmos3-reasoner.tagsSelector" .) -}}
{{- with .Values.model.profile -}}{{- $identity = printf "%s|profile=%s" $identity . -}}{{- end -}}
{{- $identity -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadKey" . -> the first 12 hex of sha256 of the download identity: names the marker, and annotates the DGD. */}}
{{- define "cosmos3-reasoner.downloadKey" -}}
{{- include "cosmos3-reasoner.downloadIdentity" . | sha256sum | trunc 12 -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadMarker" . -> the file the Job writes when done (and the gate of the gated mode waits for). */}}
{{- define "cosmos3-reasoner.downloadMarker" -}}
{{- printf "%s/.cosmos3-download/%s.done" (include "cosmos3-reasoner.cacheMountPath" .) (include "cosmos3-reasoner.downloadKey" .) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadRecord" . -> "<claim>/<download key>": what a successful download put where; the DGD carries it, so a later upgrade can tell that this claim already holds this model. */}}
{{- define "cosmos3-reasoner.downloadRecord" -}}
{{- printf "%s/%s" (include "cosmos3-reasoner.claimName" .) (include "cosmos3-reasoner.downloadKey" .) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadIsCurrent" . -> "true" on a `helm upgrade` in the hook mode when the deployed DGD (Helm lookup) records this claim and download key: an earlier hook filled this claim with exactly this model, so the Job (and its GPU request) is left out; else "". lookup sees nothing under `helm template` and Argo CD, which always run the Job. */}}
{{- define "cosmos3-reasoner.downloadIsCurrent" -}}
{{- if and .Release.IsUpgrade (include "cosmos3-reasoner.downloadIsHook" .) .Values.download.skipWhenDeployed -}}
{{- $dgd := include "cosmos3-reasoner.deployedGraph" . | fromJson -}}
{{- $annotations := ($dgd.metadata | default dict).annotations | default dict -}}
{{- if eq (get $annotations "cosmos3-reasoner/downloaded" | default "") (include "cosmos3-reasoner.downloadRecord" .) -}}true{{- end -}}
{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadIsHook" . -> "true" when the Job is a pre-install/pre-upgrade hook (download.mode hook), else "". */}}
{{- define "cosmos3-reasoner.downloadIsHook" -}}
{{- if and .Values.download.enabled (eq .Values.download.mode "hook") -}}true{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadIsArgoHook" . -> "true" when the Job is an Argo CD Sync hook a wave before the DGD (download.mode argocd), else "". */}}
{{- define "cosmos3-reasoner.downloadIsArgoHook" -}}
{{- if and .Values.download.enabled (eq .Values.download.mode "argocd") -}}true{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.graphWave" . | fromJson -> argocd mode: the Argo CD sync wave after the download's, for the DGD and the objects about its pods and Services (PodDisruptionBudget, NetworkPolicy, PodMonitor, Ingress), which cannot turn healthy before the operator made them; else {}. */}}
{{- define "cosmos3-reasoner.graphWave" -}}
{{- if include "cosmos3-reasoner.downloadIsArgoHook" . -}}{{- dict "argocd.argoproj.io/sync-wave" "1" | toJson -}}{{- else -}}{}{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.gateEnabled" . -> "true" when workers wait for the download marker (gated and argocd modes), else "". */}}
{{- define "cosmos3-reasoner.gateEnabled" -}}
{{- if and .Values.download.enabled (has .Values.download.mode (list "gated" "argocd")) .Values.download.gate.enabled -}}true{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadGpus" . -> GPUs of the download pod: none when model.profile pins the profile (nothing to select by hardware), else the workers' count. */}}
{{- define "cosmos3-reasoner.downloadGpus" -}}
{{- if not .Values.model.profile -}}{{- include "cosmos3-reasoner.gpus" . -}}{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadEnv" . | fromJson -> {env: [...]}: what download-to-cache needs to fetch the workers' profile, the marker, then download.extraEnv merged by name. */}}
{{- define "cosmos3-reasoner.downloadEnv" -}}
{{- $v := .Values -}}
{{- $env := list (dict "name" "NIM_CACHE_PATH" "value" (include "cosmos3-reasoner.cacheMountPath" .)) -}}
{{- $env = concat $env (include "cosmos3-reasoner.ngcApiKeyEnv" . | fromJson).env -}}
{{- $env = append $env (dict "name" "NIM_MODEL_TYPE" "value" $v.model.type) -}}
{{- $env = append $env (dict "name" "NIM_MODEL_VARIANT" "value" $v.model.variant) -}}
{{- $env = append $env (dict "name" "NIM_PRECISION" "value" $v.model.precision) -}}
{{- $env = append $env (dict "name" "NIM_TAGS_SELECTOR" "value" (include "cosmos3-reasoner.tagsSelector" .)) -}}
{{- with $v.model.profile -}}{{- $env = append $env (dict "name" "NIM_MODEL_PROFILE" "value" .) -}}{{- end -}}
{{- $env = concat $env (include "cosmos3-reasoner.modelEnvTail" . | fromJson).env -}}
{{- $env = concat $env (include "cosmos3-reasoner.proxyEnv" . | fromJson).env -}}
{{- $env = append $env (dict "name" "MODEL_DOWNLOAD_MARKER" "value" (include "cosmos3-reasoner.downloadMarker" .)) -}}
{{- $env = append $env (dict "name" "MODEL_DOWNLOAD_IDENTITY" "value" (include "cosmos3-reasoner.downloadIdentity" .)) -}}
{{- include "cosmos3-reasoner.mergeEnv" (dict "base" $env "extra" $v.download.extraEnv) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadPodTemplate" . | fromJson -> the download Job's pod template: one container that runs files/download.sh around download.command and download.args. */}}
{{- define "cosmos3-reasoner.downloadPodTemplate" -}}
{{- $v := .Values -}}
{{- $labels := include "cosmos3-reasoner.selectorLabels" (dict "root" . "component" "model-download") | fromJson -}}
{{- $labels = mergeOverwrite $labels (deepCopy ($v.download.podLabels | default dict)) -}}
{{- $mounts := list (dict "name" "model-cache" "mountPath" (include "cosmos3-reasoner.cacheMountPath" .)) -}}
{{- $mounts = concat $mounts (include "cosmos3-reasoner.caMounts" . | fromJson).mounts ($v.download.extraVolumeMounts | default list) -}}
{{- $command := list "/bin/bash" "-c" (.Files.Get "files/download.sh") "download" -}}
{{- $download := dict "name" "download" "image" (include "cosmos3-reasoner.nimImage" .) "imagePullPolicy" $v.image.pullPolicy "command" $command "args" (concat $v.download.command ($v.download.args | default list)) -}}
{{- $_ := set $download "env" (include "cosmos3-reasoner.downloadEnv" . | fromJson).env -}}
{{- with $v.download.envFrom -}}{{- $_ := set $download "envFrom" . -}}{{- end -}}
{{- $_ := set $download "resources" (include "cosmos3-reasoner.resources" (dict "resources" $v.download.resources "gpuName" $v.worker.gpuResourceName "gpus" (include "cosmos3-reasoner.downloadGpus" .)) | fromJson) -}}
{{- with $v.download.securityContext -}}{{- $_ := set $download "securityContext" . -}}{{- end -}}
{{- $_ := set $download "volumeMounts" $mounts -}}
{{- $spec := include "cosmos3-reasoner.podPlacement" (dict "root" . "values" $v.worker) | fromJson -}}
{{- $_ := set $spec "restartPolicy" "Never" -}}
{{- $_ := set $spec "automountServiceAccountToken" false -}}
{{- with $v.download.priorityClassName -}}{{- $_ := set $spec "priorityClassName" . -}}{{- end -}}
{{- with $v.download.serviceAccountName -}}{{- $_ := set $spec "serviceAccountName" . -}}{{- end -}}
{{- with $v.download.runtimeClassName -}}{{- $_ := set $spec "runtimeClassName" . -}}{{- end -}}
{{- $_ := set $spec "containers" (list $download) -}}
{{- $volumes := list (dict "name" "model-cache" "persistentVolumeClaim" (dict "claimName" (include "cosmos3-reasoner.claimName" .))) -}}
{{- $volumes = concat $volumes (include "cosmos3-reasoner.caVolumes" . | fromJson).volumes ($v.download.extraVolumes | default list) -}}
{{- $_ := set $spec "volumes" $volumes -}}
{{- $metadata := dict "labels" $labels -}}
{{- with $v.download.podAnnotations -}}{{- $_ := set $metadata "annotations" . -}}{{- end -}}
{{- toJson (dict "metadata" $metadata "spec" $spec) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadJobName" . -> hook and argocd modes: "<fullname>-download" (Helm or Argo CD deletes the previous run first); gated mode: "<fullname>-download-<first 8 hex of sha256(pod template)>", since a Job's template is immutable. */}}
{{- define "cosmos3-reasoner.downloadJobName" -}}
{{- if or (include "cosmos3-reasoner.downloadIsHook" .) (include "cosmos3-reasoner.downloadIsArgoHook" .) -}}
{{- printf "%s-download" (include "cosmos3-reasoner.fullname" .) -}}
{{- else -}}
{{- printf "%s-download-%s" (include "cosmos3-reasoner.fullname" .) (include "cosmos3-reasoner.downloadPodTemplate" . | sha256sum | trunc 8) -}}
{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadHookAnnotations" . | fromJson -> hook mode: the Job runs before the release's other objects on install and upgrade (Helm pre-install/pre-upgrade, Argo CD PreSync), each run replacing the previous Job; argocd mode: an Argo CD Sync hook in wave 0, beside the claim, so the DGD (wave 1) waits for it; gated mode: {}. */}}
{{- define "cosmos3-reasoner.downloadHookAnnotations" -}}
{{- $annotations := dict -}}
{{- if include "cosmos3-reasoner.downloadIsHook" . -}}
{{- $annotations = dict "helm.sh/hook" "pre-install,pre-upgrade" "helm.sh/hook-weight" "0" "helm.sh/hook-delete-policy" "before-hook-creation,hook-succeeded" -}}
{{- $_ := set $annotations "argocd.argoproj.io/hook" "PreSync" -}}
{{- $_ := set $annotations "argocd.argoproj.io/hook-delete-policy" "BeforeHookCreation,HookSucceeded" -}}
{{- $_ := set $annotations "argocd.argoproj.io/sync-wave" "0" -}}
{{- else if include "cosmos3-reasoner.downloadIsArgoHook" . -}}
{{- $annotations = dict "argocd.argoproj.io/hook" "Sync" "argocd.argoproj.io/hook-delete-policy" "BeforeHookCreation,HookSucceeded" "argocd.argoproj.io/sync-wave" "0" -}}
{{- end -}}
{{- toJson $annotations -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.claimHookAnnotations" . | fromJson -> annotations of a created claim. Always kept on uninstall, and by Argo CD both when the application is deleted (Delete=false) and when the claim leaves the manifest (Prune=false: cache.create turned false for the same claim, a renamed cache.name), as Helm keeps it on upgrade. In hook mode the claim is itself a Helm hook that runs before the Job (weight -10), with a delete policy that never fires for a claim, so Helm's default (delete before re-creating) never touches the cache. Argo CD would run such a claim as a hook too, and deletes a hook at the end of a failed sync (HookFailed), of a successful one (HookSucceeded) or at the next sync (BeforeHookCreation, its default): so Argo CD skips it (download.mode argocd is the Argo CD mode). In argocd mode the claim is an ordinary object in the Job's wave, so a WaitForFirstConsumer claim binds to the Job's pod. */}}
{{- define "cosmos3-reasoner.claimHookAnnotations" -}}
{{- $annotations := dict "helm.sh/resource-policy" "keep" "argocd.argoproj.io/sync-options" "Prune=false,Delete=false" -}}
{{- if include "cosmos3-reasoner.downloadIsHook" . -}}
{{- $_ := set $annotations "helm.sh/hook" "pre-install,pre-upgrade" -}}
{{- $_ := set $annotations "helm.sh/hook-weight" "-10" -}}
{{- $_ := set $annotations "helm.sh/hook-delete-policy" "hook-failed" -}}
{{- $_ := set $annotations "argocd.argoproj.io/hook" "Skip" -}}
{{- /* Helm adopts the claim as an ordinary release object if download.mode later becomes gated. */ -}}
{{- $_ := set $annotations "meta.helm.sh/release-name" .Release.Name -}}
{{- $_ := set $annotations "meta.helm.sh/release-namespace" .Release.Namespace -}}
{{- else if include "cosmos3-reasoner.downloadIsArgoHook" . -}}
{{- $_ := set $annotations "argocd.argoproj.io/sync-wave" "0" -}}
{{- end -}}
{{- toJson $annotations -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.gateContainer" . | fromJson -> the worker init container of the gated mode, which waits for the download marker (files/gate.sh). */}}
{{- define "cosmos3-reasoner.gateContainer" -}}
{{- $v := .Values -}}
{{- $gate := dict "name" "wait-for-model-download" "image" (include "cosmos3-reasoner.nimImage" .) "imagePullPolicy" $v.image.pullPolicy -}}
{{- $_ := set $gate "command" (list "/bin/bash" "-c" (.Files.Get "files/gate.sh")) -}}
{{- $env := list (dict "name" "MODEL_DOWNLOAD_MARKER" "value" (include "cosmos3-reasoner.downloadMarker" .)) -}}
{{- $env = append $env (dict "name" "MODEL_DOWNLOAD_TIMEOUT_SECONDS" "value" (int $v.download.gate.timeoutSeconds | toString)) -}}
{{- $_ := set $gate "env" $env -}}
{{- $_ := set $gate "resources" (include "cosmos3-reasoner.smallResources" . | fromJson) -}}
{{- with $v.download.helperSecurityContext -}}{{- $_ := set $gate "securityContext" . -}}{{- end -}}
{{- $_ := set $gate "volumeMounts" (list (dict "name" "model-cache-gate" "mountPath" (include "cosmos3-reasoner.cacheMountPath" .) "readOnly" true)) -}}
{{- toJson $gate -}}
{{- end -}}
