{{- /*
Helpers of the cosmos3-reasoner chart. Helpers that hand structured data to a template return
YAML (a map, or a map wrapping a list) that the caller reads back with fromYaml, because
`include` only returns strings. Everything derived from the support matrix is computed here once,
so the DGD (either API shape), the Job and NOTES.txt cannot drift apart.
*/ -}}

{{/* Usage: include "cosmos3-reasoner.name" . -> the chart name, or nameOverride. */}}
{{- define "cosmos3-reasoner.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 45 | trimSuffix "-" -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.fullname" . -> DGD name and object-name prefix, at most 31 characters: Grove's budget is DGD name + component name <= 45, and the longest component, ReasonerWorker, has 14 (the Job's "<fullname>-download-<hash8>" then has at most 49). */}}
{{- define "cosmos3-reasoner.fullname" -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- $full := printf "%s-%s" .Release.Name $name -}}
{{- if .Values.fullnameOverride -}}
{{- $full = .Values.fullnameOverride -}}
{{- else if contains $name .Release.Name -}}
{{- $full = .Release.Name -}}
{{- end -}}
{{- $budget := sub 45 (len "ReasonerWorker") | int -}}
{{- regexReplaceAll "[-.]+$" ($full | trunc $budget) "" -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.chart" . -> "<chart>-<version>" for the helm.sh/chart label. */}}
{{- define "cosmos3-reasoner.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.selectorLabels" (dict "root" $ "component" "model-download") -> the labels a pod of this release carries. */}}
{{- define "cosmos3-reasoner.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cosmos3-reasoner.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.metadata" (dict "root" $ "name" $name "component" "inference" "annotations" $extra "labels" $extraLabels) -> name, namespace, labels and annotations of a top-level object (annotations and labels optional). */}}
{{- define "cosmos3-reasoner.metadata" -}}
{{- $root := .root -}}
{{- $labels := include "cosmos3-reasoner.selectorLabels" . | fromYaml -}}
{{- $_ := set $labels "helm.sh/chart" (include "cosmos3-reasoner.chart" $root) -}}
{{- $_ := set $labels "app.kubernetes.io/version" $root.Chart.AppVersion -}}
{{- $_ := set $labels "app.kubernetes.io/managed-by" $root.Release.Service -}}
{{- $labels = mergeOverwrite $labels (deepCopy ($root.Values.labels | default dict)) (deepCopy (.labels | default dict)) -}}
{{- $annotations := mergeOverwrite (deepCopy ($root.Values.annotations | default dict)) (.annotations | default dict) -}}
name: {{ .name }}
namespace: {{ $root.Release.Namespace }}
labels:
  {{- toYaml $labels | nindent 2 }}
{{- with $annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.matrix" . | fromYaml -> the support matrix (files/support-matrix.yaml). */}}
{{- define "cosmos3-reasoner.matrix" -}}
{{- .Files.Get "files/support-matrix.yaml" -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.variant" . | fromYaml -> the matrix entry of model.variant (validated first). */}}
{{- define "cosmos3-reasoner.variant" -}}
{{- $matrix := include "cosmos3-reasoner.matrix" . | fromYaml -}}
{{- toYaml (get $matrix.variants .Values.model.variant) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.gpus" . -> GPUs per worker: model.gpus, else the first count the matrix lists. */}}
{{- define "cosmos3-reasoner.gpus" -}}
{{- if kindIs "invalid" .Values.model.gpus -}}
{{- $variant := include "cosmos3-reasoner.variant" . | fromYaml -}}
{{- (get $variant.precisions .Values.model.precision).gpus | first | int -}}
{{- else -}}
{{- .Values.model.gpus | int -}}
{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.tagsSelector" . -> NIM_TAGS_SELECTOR: model.tagsSelector, else derived from the GPU count. */}}
{{- define "cosmos3-reasoner.tagsSelector" -}}
{{- if .Values.model.tagsSelector -}}
{{- .Values.model.tagsSelector -}}
{{- else -}}
{{- $gpus := include "cosmos3-reasoner.gpus" . -}}
{{- printf "n_gpus=%s,nim_tp=%s,nim_dp=1" $gpus $gpus -}}
{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.imageRef" .Values.image -> "repository:tag", "repository@digest" or both. */}}
{{- define "cosmos3-reasoner.imageRef" -}}
{{- $ref := .repository -}}
{{- if .tag -}}{{- $ref = printf "%s:%s" $ref .tag -}}{{- end -}}
{{- if .digest -}}{{- $ref = printf "%s@%s" $ref .digest -}}{{- end -}}
{{- $ref -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.nimImage" . -> the NIM image of workers, Job, gate and streaming frontend. */}}
{{- define "cosmos3-reasoner.nimImage" -}}
{{- include "cosmos3-reasoner.imageRef" .Values.image -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.frontendServiceName" . -> "<fullname>-frontend", the Service the operator creates for the Frontend component. */}}
{{- define "cosmos3-reasoner.frontendServiceName" -}}
{{- printf "%s-frontend" (include "cosmos3-reasoner.fullname" .) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.operatorIngress" . | fromYaml -> the v1alpha1 `ingress` of the Frontend service: the host split at its first dot, since the operator writes "<host>.<hostSuffix>". */}}
{{- define "cosmos3-reasoner.operatorIngress" -}}
{{- $in := .Values.ingress -}}
{{- $labels := splitn "." 2 $in.host -}}
{{- $ingress := dict "enabled" true "host" $labels._0 "hostSuffix" $labels._1 "ingressControllerClassName" $in.className -}}
{{- with $in.tls.secretName -}}{{- $_ := set $ingress "tls" (dict "secretName" .) -}}{{- end -}}
{{- with $in.annotations -}}{{- $_ := set $ingress "annotations" . -}}{{- end -}}
{{- toYaml $ingress -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.claimName" . -> the model-cache claim: cache.name or "<fullname>-model-cache". */}}
{{- define "cosmos3-reasoner.claimName" -}}
{{- .Values.cache.name | default (printf "%s-model-cache" (include "cosmos3-reasoner.fullname" .)) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.cacheMountPath" . -> where the NIM expects its cache (fixed). */}}
{{- define "cosmos3-reasoner.cacheMountPath" -}}
/opt/nim/.cache
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.streamingEndpoint" . -> streaming.endpoint, else "<fullname>.backend.streaming". */}}
{{- define "cosmos3-reasoner.streamingEndpoint" -}}
{{- .Values.streaming.endpoint | default (printf "%s.backend.streaming" (include "cosmos3-reasoner.fullname" .)) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadIdentity" . -> "image|variant|precision|tagsSelector": what the cache must hold. */}}
{{- define "cosmos3-reasoner.downloadIdentity" -}}
{{- printf "%s|%s|%s|%s" (include "cosmos3-reasoner.nimImage" .) .Values.model.variant .Values.model.precision (include "cosmos3-reasoner.tagsSelector" .) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadMarker" . -> the file the Job writes when done and the worker gate waits for. */}}
{{- define "cosmos3-reasoner.downloadMarker" -}}
{{- printf "%s/.cosmos3-download/%s.done" (include "cosmos3-reasoner.cacheMountPath" .) (include "cosmos3-reasoner.downloadIdentity" . | sha256sum | trunc 12) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.gateEnabled" . -> "true" when workers wait for the download marker, else "". */}}
{{- define "cosmos3-reasoner.gateEnabled" -}}
{{- if and .Values.download.enabled .Values.download.gate.enabled -}}true{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.envVar" (list "NAME" "value") | fromYaml -> one literal EnvVar. */}}
{{- define "cosmos3-reasoner.envVar" -}}
{{- toYaml (dict "name" (index . 0) "value" (index . 1 | toString)) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.ngcApiKeyEnv" . | fromYaml -> NGC_API_KEY from its secret (never a literal). */}}
{{- define "cosmos3-reasoner.ngcApiKeyEnv" -}}
{{- $ref := dict "name" .Values.ngcApiKeySecret.name "key" .Values.ngcApiKeySecret.key -}}
{{- toYaml (dict "name" "NGC_API_KEY" "valueFrom" (dict "secretKeyRef" $ref)) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.mergeEnv" (dict "base" $env "extra" $extraEnv) | fromYaml -> {env: [...]}: an extra entry replaces the base entry of its name in place, new names are appended. */}}
{{- define "cosmos3-reasoner.mergeEnv" -}}
{{- $extraByName := dict -}}
{{- range .extra -}}
{{- $_ := set $extraByName .name . -}}
{{- end -}}
{{- $merged := list -}}
{{- $placed := dict -}}
{{- range .base -}}
{{- $merged = append $merged (get $extraByName .name | default .) -}}
{{- $_ := set $placed .name true -}}
{{- end -}}
{{- range .extra -}}
{{- if not (hasKey $placed .name) -}}
{{- $merged = append $merged . -}}
{{- $_ := set $placed .name true -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "env" $merged) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.modelEnvTail" . | fromYaml -> {env: [...]}: NIM_USE_DFLASH and NIM_STREAMING_SPEC_METHOD forced by a variant without DFlash (Edge), or NIM_USE_DFLASH from model.useDflash. */}}
{{- define "cosmos3-reasoner.modelEnvTail" -}}
{{- $variant := include "cosmos3-reasoner.variant" . | fromYaml -}}
{{- $env := list -}}
{{- if not $variant.dflash -}}
{{- $env = append $env (include "cosmos3-reasoner.envVar" (list "NIM_USE_DFLASH" "0") | fromYaml) -}}
{{- $env = append $env (include "cosmos3-reasoner.envVar" (list "NIM_STREAMING_SPEC_METHOD" $variant.specMethod) | fromYaml) -}}
{{- else if not (kindIs "invalid" .Values.model.useDflash) -}}
{{- $env = append $env (include "cosmos3-reasoner.envVar" (list "NIM_USE_DFLASH" (ternary "1" "0" .Values.model.useDflash)) | fromYaml) -}}
{{- end -}}
{{- toYaml (dict "env" $env) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.workerEnv" . | fromYaml -> {env: [...]}: the worker's env in the reference order, then worker.extraEnv merged by name. */}}
{{- define "cosmos3-reasoner.workerEnv" -}}
{{- $v := .Values -}}
{{- $streaming := eq $v.mode "streaming" -}}
{{- $variant := include "cosmos3-reasoner.variant" . | fromYaml -}}
{{- $env := list (include "cosmos3-reasoner.envVar" (list "NIM_CACHE_PATH" (include "cosmos3-reasoner.cacheMountPath" .)) | fromYaml) -}}
{{- $env = append $env (include "cosmos3-reasoner.ngcApiKeyEnv" . | fromYaml) -}}
{{- $literals := list (list "OUTLINES_CACHE_DIR" "/tmp/outlines") -}}
{{- $literals = append $literals (list "NIM_HTTP_API_PORT" (int $v.worker.httpPort)) -}}
{{- $literals = append $literals (list "NIM_INFERENCE_PROTOCOL" "http") -}}
{{- $literals = append $literals (list "NIM_LOGGING_JSONL" "1") -}}
{{- $literals = append $literals (list "NIM_LOG_LEVEL" $v.worker.logLevel) -}}
{{- $literals = append $literals (list "NIM_MODEL_TYPE" $v.model.type) -}}
{{- $literals = append $literals (list "NIM_MODEL_VARIANT" $v.model.variant) -}}
{{- $literals = append $literals (list "NIM_PRECISION" $v.model.precision) -}}
{{- $literals = append $literals (list "NIM_DYNAMO_WORKER" "true") -}}
{{- $literals = append $literals (list "NIM_ENABLE_STREAMING" (ternary "1" "0" $streaming)) -}}
{{- if $streaming -}}
{{- $literals = append $literals (list "NIM_DYNAMO_STREAMING_ENDPOINT" (include "cosmos3-reasoner.streamingEndpoint" .)) -}}
{{- end -}}
{{- $literals = append $literals (list "NIM_DYNAMO_PROXY_PORT" (int $v.worker.proxyPort)) -}}
{{- $async := ternary "false" "true" $streaming -}}
{{- if eq $v.worker.discoveryBackendForm "json" -}}
{{- $literals = append $literals (list "NIM_DISCOVERY_BACKEND" (printf "{\"async_scheduling\":%s,\"discovery_backend\":\"kubernetes\",\"enable_multimodal\":true}" $async)) -}}
{{- else -}}
{{- $literals = append $literals (list "NIM_DISCOVERY_BACKEND" "kubernetes") -}}
{{- $literals = append $literals (list "NIM_DYNAMO_ASYNC_SCHEDULING" $async) -}}
{{- end -}}
{{- $literals = append $literals (list "DYN_REQUEST_PLANE" "tcp") -}}
{{- $literals = append $literals (list "DYN_SELF_HOST_METADATA" "true") -}}
{{- $literals = append $literals (list "DYN_SYSTEM_PORT" (int $v.worker.systemPort)) -}}
{{- $literals = append $literals (list "NIM_TAGS_SELECTOR" (include "cosmos3-reasoner.tagsSelector" .)) -}}
{{- $literals = append $literals (list "VLLM_EARLY_UUID_LOOKUPS" "1") -}}
{{- $literals = append $literals (list "VLLM_UUID_AUTO_DERIVE" "1") -}}
{{- $literals = append $literals (list "TQDM_DISABLE" "1") -}}
{{- range $literals -}}
{{- $env = append $env (include "cosmos3-reasoner.envVar" . | fromYaml) -}}
{{- end -}}
{{- /* The operator labels every pod with its base Dynamo namespace; the NIM's private frontend needs it. */ -}}
{{- $env = append $env (dict "name" "DYN_NAMESPACE_PREFIX" "valueFrom" (dict "fieldRef" (dict "fieldPath" "metadata.labels['nvidia.com/dynamo-namespace']"))) -}}
{{- $env = concat $env (include "cosmos3-reasoner.modelEnvTail" . | fromYaml).env -}}
{{- if $streaming -}}
{{- $streamingEnv := list (list "NIM_STREAMING_MAX_SESSIONS" (int $v.streaming.maxSessions)) -}}
{{- $streamingEnv = append $streamingEnv (list "NIM_STREAMING_MAX_VIDEO_SEGMENTS" (int $v.streaming.maxVideoSegments)) -}}
{{- $streamingEnv = append $streamingEnv (list "NIM_STREAMING_REST_IDLE_TIMEOUT_S" (int $v.streaming.restIdleTimeoutSeconds)) -}}
{{- $streamingEnv = append $streamingEnv (list "NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S" (int $v.streaming.requestTimeoutSeconds)) -}}
{{- if and $variant.dflash $v.streaming.specMethod -}}
{{- $streamingEnv = append $streamingEnv (list "NIM_STREAMING_SPEC_METHOD" $v.streaming.specMethod) -}}
{{- end -}}
{{- range $streamingEnv -}}
{{- $env = append $env (include "cosmos3-reasoner.envVar" . | fromYaml) -}}
{{- end -}}
{{- end -}}
{{- include "cosmos3-reasoner.mergeEnv" (dict "base" $env "extra" $v.worker.extraEnv) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.frontendEnv" . | fromYaml -> {env: [...]}: the frontend's env, then frontend.extraEnv merged by name. */}}
{{- define "cosmos3-reasoner.frontendEnv" -}}
{{- $env := list (include "cosmos3-reasoner.envVar" (list "DYN_REQUEST_PLANE" "tcp") | fromYaml) -}}
{{- if eq .Values.mode "streaming" -}}
{{- $env = append $env (include "cosmos3-reasoner.envVar" (list "NIM_DYNAMO_STREAMING_ENDPOINT" (include "cosmos3-reasoner.streamingEndpoint" .)) | fromYaml) -}}
{{- $env = append $env (include "cosmos3-reasoner.envVar" (list "NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S" (int .Values.streaming.requestTimeoutSeconds)) | fromYaml) -}}
{{- end -}}
{{- include "cosmos3-reasoner.mergeEnv" (dict "base" $env "extra" .Values.frontend.extraEnv) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadEnv" . | fromYaml -> {env: [...]}: what download-to-cache needs to fetch the workers' profile, then download.extraEnv merged by name. */}}
{{- define "cosmos3-reasoner.downloadEnv" -}}
{{- $v := .Values -}}
{{- $env := list (include "cosmos3-reasoner.envVar" (list "NIM_CACHE_PATH" (include "cosmos3-reasoner.cacheMountPath" .)) | fromYaml) -}}
{{- $env = append $env (include "cosmos3-reasoner.ngcApiKeyEnv" . | fromYaml) -}}
{{- $literals := list (list "NIM_MODEL_TYPE" $v.model.type) -}}
{{- $literals = append $literals (list "NIM_MODEL_VARIANT" $v.model.variant) -}}
{{- $literals = append $literals (list "NIM_PRECISION" $v.model.precision) -}}
{{- $literals = append $literals (list "NIM_TAGS_SELECTOR" (include "cosmos3-reasoner.tagsSelector" .)) -}}
{{- range $literals -}}
{{- $env = append $env (include "cosmos3-reasoner.envVar" . | fromYaml) -}}
{{- end -}}
{{- $env = concat $env (include "cosmos3-reasoner.modelEnvTail" . | fromYaml).env -}}
{{- include "cosmos3-reasoner.mergeEnv" (dict "base" $env "extra" $v.download.extraEnv) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.quantity" $q -> a Kubernetes quantity as a string; whole numbers never in exponent form. */}}
{{- define "cosmos3-reasoner.quantity" -}}
{{- if kindIs "string" . -}}
{{- . -}}
{{- else if eq (float64 .) (float64 (int64 .)) -}}
{{- int64 . -}}
{{- else -}}
{{- toString . -}}
{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.resources" (dict "resources" $r "gpuName" $name "gpus" $n) | fromYaml -> container resources with string quantities and, when gpus is set, the GPU in requests and limits. */}}
{{- define "cosmos3-reasoner.resources" -}}
{{- $out := dict -}}
{{- range $kind := list "requests" "limits" -}}
{{- $section := dict -}}
{{- range $name, $quantity := (get ($.resources | default dict) $kind | default dict) -}}
{{- $_ := set $section $name (include "cosmos3-reasoner.quantity" $quantity) -}}
{{- end -}}
{{- if $.gpus -}}
{{- $_ := set $section $.gpuName (toString $.gpus) -}}
{{- end -}}
{{- if $section -}}
{{- $_ := set $out $kind $section -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.smallResources" . | fromYaml -> requests = limits for the gate and marker containers. */}}
{{- define "cosmos3-reasoner.smallResources" -}}
{{- $small := dict "cpu" "100m" "memory" "128Mi" -}}
{{- toYaml (dict "requests" $small "limits" $small) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.gateContainer" . | fromYaml -> the worker init container that waits for the download marker. */}}
{{- define "cosmos3-reasoner.gateContainer" -}}
name: wait-for-model-download
image: {{ include "cosmos3-reasoner.nimImage" . }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
command:
  - /bin/bash
  - -c
args:
  - |
    set -euo pipefail
    until [ -f "$MODEL_DOWNLOAD_MARKER" ]; do
      if [ "$SECONDS" -ge "$MODEL_DOWNLOAD_TIMEOUT_SECONDS" ]; then
        echo "gave up after ${SECONDS}s: $MODEL_DOWNLOAD_MARKER is missing, so the model-download Job has not finished; check it with kubectl get jobs" >&2
        exit 1
      fi
      echo "waiting for the model download (${SECONDS}s): $MODEL_DOWNLOAD_MARKER"
      sleep 15
    done
    echo "model download complete: $MODEL_DOWNLOAD_MARKER"
env:
  - name: MODEL_DOWNLOAD_MARKER
    value: {{ include "cosmos3-reasoner.downloadMarker" . | quote }}
  - name: MODEL_DOWNLOAD_TIMEOUT_SECONDS
    value: {{ int .Values.download.gate.timeoutSeconds | toString | quote }}
resources:
  {{- include "cosmos3-reasoner.smallResources" . | nindent 2 }}
{{- with .Values.download.helperSecurityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumeMounts:
  - name: model-cache-gate
    mountPath: {{ include "cosmos3-reasoner.cacheMountPath" . }}
    readOnly: true
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.podPlacement" (dict "values" .Values.worker "root" $) | fromYaml -> pull secrets, security context and scheduling shared by a component's pods. */}}
{{- define "cosmos3-reasoner.podPlacement" -}}
{{- $spec := dict -}}
{{- $secrets := list -}}
{{- range .root.Values.imagePullSecrets -}}
{{- $secrets = append $secrets (dict "name" .) -}}
{{- end -}}
{{- with $secrets -}}{{- $_ := set $spec "imagePullSecrets" . -}}{{- end -}}
{{- with .values.podSecurityContext -}}{{- $_ := set $spec "securityContext" . -}}{{- end -}}
{{- with .values.nodeSelector -}}{{- $_ := set $spec "nodeSelector" . -}}{{- end -}}
{{- with .values.tolerations -}}{{- $_ := set $spec "tolerations" . -}}{{- end -}}
{{- with .values.affinity -}}{{- $_ := set $spec "affinity" . -}}{{- end -}}
{{- toYaml $spec -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.operatorPodLabels" (dict "root" $ "component" "ReasonerWorker") | fromYaml -> the labels the Dynamo operator puts on this release's pods of one component (graph name and component name). */}}
{{- define "cosmos3-reasoner.operatorPodLabels" -}}
nvidia.com/dynamo-graph-deployment-name: {{ include "cosmos3-reasoner.fullname" .root }}
nvidia.com/dynamo-component: {{ .component }}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.podScheduling" (dict "root" $ "values" .Values.worker "component" "ReasonerWorker") | fromYaml -> topologySpreadConstraints (a constraint without labelSelector selects the component's pods) and priorityClassName of a DGD component's pods. */}}
{{- define "cosmos3-reasoner.podScheduling" -}}
{{- $scheduling := dict -}}
{{- $constraints := list -}}
{{- $own := dict "matchLabels" (include "cosmos3-reasoner.operatorPodLabels" . | fromYaml) -}}
{{- range .values.topologySpreadConstraints -}}
{{- $constraint := deepCopy . -}}
{{- if not (hasKey $constraint "labelSelector") -}}
{{- $_ := set $constraint "labelSelector" $own -}}
{{- end -}}
{{- $constraints = append $constraints $constraint -}}
{{- end -}}
{{- with $constraints -}}{{- $_ := set $scheduling "topologySpreadConstraints" . -}}{{- end -}}
{{- with .values.priorityClassName -}}{{- $_ := set $scheduling "priorityClassName" . -}}{{- end -}}
{{- toYaml $scheduling -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.podMetadata" .Values.worker | fromYaml -> pod labels and annotations of a component (empty map when none). */}}
{{- define "cosmos3-reasoner.podMetadata" -}}
{{- $meta := dict -}}
{{- with .podLabels -}}{{- $_ := set $meta "labels" . -}}{{- end -}}
{{- with .podAnnotations -}}{{- $_ := set $meta "annotations" . -}}{{- end -}}
{{- toYaml $meta -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.components" . | fromYaml -> {frontend, worker}: both components independent of the DGD API shape (main container, env, resources, pod spec, pod metadata). */}}
{{- define "cosmos3-reasoner.components" -}}
{{- $v := .Values -}}
{{- $streaming := eq $v.mode "streaming" -}}
{{- $frontendMain := dict -}}
{{- if $streaming -}}
{{- $frontendMain = dict "image" (include "cosmos3-reasoner.nimImage" .) "imagePullPolicy" $v.image.pullPolicy "workingDir" "/opt/nim" "command" (list "/opt/nim/.venv/bin/python" "-m" "streaming.dynamo.frontend") -}}
{{- else -}}
{{- $frontendMain = dict "image" (include "cosmos3-reasoner.imageRef" $v.frontend.image) "imagePullPolicy" $v.frontend.image.pullPolicy "command" (list "python3" "-m" "dynamo.frontend") -}}
{{- end -}}
{{- $args := list "--http-host" "0.0.0.0" "--http-port" "8000" -}}
{{- if $streaming -}}
{{- $args = concat $args (list "--discovery-backend" "kubernetes") -}}
{{- end -}}
{{- $args = concat $args (list "--dyn-chat-processor" "dynamo" "--router-mode" $v.frontend.routerMode "--router-session-affinity-ttl-secs" (int $v.frontend.sessionAffinityTtlSeconds | toString)) ($v.frontend.extraArgs | default list) -}}
{{- $_ := set $frontendMain "args" $args -}}
{{- with $v.frontend.securityContext -}}{{- $_ := set $frontendMain "securityContext" . -}}{{- end -}}
{{- $frontend := dict "name" "Frontend" "type" "frontend" "replicas" (int $v.frontend.replicas) "main" $frontendMain -}}
{{- $_ := set $frontend "env" (include "cosmos3-reasoner.frontendEnv" . | fromYaml).env -}}
{{- $_ := set $frontend "resources" $v.frontend.resources -}}
{{- $_ := set $frontend "gpus" "" -}}
{{- $frontendPod := include "cosmos3-reasoner.podPlacement" (dict "values" $v.frontend "root" .) | fromYaml -}}
{{- $frontendPod = mergeOverwrite $frontendPod (include "cosmos3-reasoner.podScheduling" (dict "root" . "values" $v.frontend "component" "Frontend") | fromYaml) -}}
{{- $_ := set $frontend "podSpec" $frontendPod -}}
{{- /* Settings of the v1alpha1 Frontend service itself (v1beta1 has neither; see ingress.yaml and validate-values.yaml). */ -}}
{{- $serviceExtras := dict -}}
{{- with $v.frontend.serviceAnnotations -}}{{- $_ := set $serviceExtras "annotations" . -}}{{- end -}}
{{- if $v.ingress.enabled -}}{{- $_ := set $serviceExtras "ingress" (include "cosmos3-reasoner.operatorIngress" . | fromYaml) -}}{{- end -}}
{{- $_ := set $frontend "serviceExtras" $serviceExtras -}}
{{- $_ := set $frontend "podMetadata" (include "cosmos3-reasoner.podMetadata" $v.frontend | fromYaml) -}}
{{- $workerMain := dict "image" (include "cosmos3-reasoner.nimImage" .) "imagePullPolicy" $v.image.pullPolicy "workingDir" "/opt/nim" "command" (list "/bin/bash" "-lc") "args" (list "set -euo pipefail\nexec /opt/nim/start_server.sh\n") -}}
{{- with $v.worker.securityContext -}}{{- $_ := set $workerMain "securityContext" . -}}{{- end -}}
{{- $worker := dict "name" "ReasonerWorker" "type" $v.worker.componentType "replicas" (int $v.worker.replicas) "main" $workerMain -}}
{{- $_ := set $worker "env" (include "cosmos3-reasoner.workerEnv" . | fromYaml).env -}}
{{- $_ := set $worker "resources" $v.worker.resources -}}
{{- $_ := set $worker "gpus" (include "cosmos3-reasoner.gpus" .) -}}
{{- $_ := set $worker "sharedMemorySize" (include "cosmos3-reasoner.quantity" $v.worker.sharedMemorySize) -}}
{{- $_ := set $worker "mountsCache" true -}}
{{- $workerPod := include "cosmos3-reasoner.podPlacement" (dict "values" $v.worker "root" .) | fromYaml -}}
{{- $workerPod = mergeOverwrite $workerPod (include "cosmos3-reasoner.podScheduling" (dict "root" . "values" $v.worker "component" "ReasonerWorker") | fromYaml) -}}
{{- $_ := set $workerPod "terminationGracePeriodSeconds" (int $v.worker.terminationGracePeriodSeconds) -}}
{{- if include "cosmos3-reasoner.gateEnabled" . -}}
{{- $_ := set $workerPod "initContainers" (list (include "cosmos3-reasoner.gateContainer" . | fromYaml)) -}}
{{- $_ := set $workerPod "volumes" (list (dict "name" "model-cache-gate" "persistentVolumeClaim" (dict "claimName" (include "cosmos3-reasoner.claimName" .)))) -}}
{{- end -}}
{{- $_ := set $worker "podSpec" $workerPod -}}
{{- $_ := set $worker "podMetadata" (include "cosmos3-reasoner.podMetadata" $v.worker | fromYaml) -}}
{{- toYaml (dict "frontend" $frontend "worker" $worker) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadPodTemplate" . -> the download Job's pod template as YAML text (hashed into the Job name). */}}
{{- define "cosmos3-reasoner.downloadPodTemplate" -}}
{{- $v := .Values -}}
{{- $labels := include "cosmos3-reasoner.selectorLabels" (dict "root" . "component" "model-download") | fromYaml -}}
{{- $labels = mergeOverwrite $labels (deepCopy ($v.download.podLabels | default dict)) -}}
{{- $mount := list (dict "name" "model-cache" "mountPath" (include "cosmos3-reasoner.cacheMountPath" .)) -}}
{{- $download := dict "name" "download" "image" (include "cosmos3-reasoner.nimImage" .) "imagePullPolicy" $v.image.pullPolicy "command" $v.download.command "args" $v.download.args "volumeMounts" $mount -}}
{{- $_ := set $download "env" (include "cosmos3-reasoner.downloadEnv" . | fromYaml).env -}}
{{- $_ := set $download "resources" (include "cosmos3-reasoner.resources" (dict "resources" $v.download.resources "gpuName" $v.worker.gpuResourceName "gpus" (include "cosmos3-reasoner.gpus" .)) | fromYaml) -}}
{{- with $v.download.securityContext -}}{{- $_ := set $download "securityContext" . -}}{{- end -}}
{{- $markerEnv := list (dict "name" "MODEL_DOWNLOAD_MARKER" "value" (include "cosmos3-reasoner.downloadMarker" .)) (dict "name" "MODEL_DOWNLOAD_IDENTITY" "value" (include "cosmos3-reasoner.downloadIdentity" .)) -}}
{{- $markScript := "set -euo pipefail\nmkdir -p \"${MODEL_DOWNLOAD_MARKER%/*}\"\nprintf '%s\\n' \"$MODEL_DOWNLOAD_IDENTITY\" > \"$MODEL_DOWNLOAD_MARKER.tmp\"\nmv -f \"$MODEL_DOWNLOAD_MARKER.tmp\" \"$MODEL_DOWNLOAD_MARKER\"\necho \"model download complete: $MODEL_DOWNLOAD_MARKER\"\n" -}}
{{- $mark := dict "name" "mark-complete" "image" (include "cosmos3-reasoner.nimImage" .) "imagePullPolicy" $v.image.pullPolicy "command" (list "/bin/bash" "-c") "args" (list $markScript) "env" $markerEnv "volumeMounts" $mount -}}
{{- $_ := set $mark "resources" (include "cosmos3-reasoner.smallResources" . | fromYaml) -}}
{{- with $v.download.helperSecurityContext -}}{{- $_ := set $mark "securityContext" . -}}{{- end -}}
{{- $spec := include "cosmos3-reasoner.podPlacement" (dict "values" $v.worker "root" .) | fromYaml -}}
{{- $_ := set $spec "restartPolicy" "Never" -}}
{{- with $v.download.priorityClassName -}}{{- $_ := set $spec "priorityClassName" . -}}{{- end -}}
{{- with $v.download.serviceAccountName -}}{{- $_ := set $spec "serviceAccountName" . -}}{{- end -}}
{{- $_ := set $spec "initContainers" (list $download) -}}
{{- $_ := set $spec "containers" (list $mark) -}}
{{- $_ := set $spec "volumes" (list (dict "name" "model-cache" "persistentVolumeClaim" (dict "claimName" (include "cosmos3-reasoner.claimName" .)))) -}}
{{- $metadata := dict "labels" $labels -}}
{{- with $v.download.podAnnotations -}}{{- $_ := set $metadata "annotations" . -}}{{- end -}}
{{- toYaml (dict "metadata" $metadata "spec" $spec) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.downloadJobName" . -> "<fullname>-download-<first 8 hex of sha256(pod template)>": a changed pod template gives a new Job, since Job templates are immutable. */}}
{{- define "cosmos3-reasoner.downloadJobName" -}}
{{- printf "%s-download-%s" (include "cosmos3-reasoner.fullname" .) (include "cosmos3-reasoner.downloadPodTemplate" . | sha256sum | trunc 8) -}}
{{- end -}}
