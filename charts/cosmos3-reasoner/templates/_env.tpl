{{- /* Environment of the components: every list is a list of dicts, returned as {env: [...]} in JSON. */ -}}

{{/* Usage: include "cosmos3-reasoner.ngcApiKeyEnv" . | fromJson -> {env: [NGC_API_KEY from its secret]}, or {env: []} when ngcApiKeySecret.name is empty (air-gapped, pre-filled cache). */}}
{{- define "cosmos3-reasoner.ngcApiKeyEnv" -}}
{{- $env := list -}}
{{- with .Values.ngcApiKeySecret.name -}}
{{- $ref := dict "name" . "key" $.Values.ngcApiKeySecret.key -}}
{{- $env = append $env (dict "name" "NGC_API_KEY" "valueFrom" (dict "secretKeyRef" $ref)) -}}
{{- end -}}
{{- toJson (dict "env" $env) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.proxyEnv" . | fromJson -> {env: [...]}: the proxy settings (upper and lower case, as tools read either) and the custom CA bundle's path for OpenSSL, Python requests and curl. */}}
{{- define "cosmos3-reasoner.proxyEnv" -}}
{{- $env := list -}}
{{- $proxy := .Values.proxy -}}
{{- range $pair := list (list "HTTP_PROXY" $proxy.httpProxy) (list "HTTPS_PROXY" $proxy.httpsProxy) (list "NO_PROXY" $proxy.noProxy) -}}
{{- with index $pair 1 -}}
{{- $env = append $env (dict "name" (index $pair 0) "value" .) -}}
{{- $env = append $env (dict "name" (index $pair 0 | lower) "value" .) -}}
{{- end -}}
{{- end -}}
{{- with .Values.customCA.configMapName -}}
{{- $bundle := printf "%s/%s" (include "cosmos3-reasoner.caMountPath" $) $.Values.customCA.key -}}
{{- range $name := list "SSL_CERT_FILE" "REQUESTS_CA_BUNDLE" "CURL_CA_BUNDLE" -}}
{{- $env = append $env (dict "name" $name "value" $bundle) -}}
{{- end -}}
{{- end -}}
{{- toJson (dict "env" $env) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.mergeEnv" (dict "base" $env "extra" $extraEnv) | fromJson -> {env: [...]}: an extra entry replaces the base entry of its name in place, new names are appended. */}}
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
{{- toJson (dict "env" $merged) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.modelEnvTail" . | fromJson -> {env: [...]}: NIM_USE_DFLASH and NIM_STREAMING_SPEC_METHOD forced by a variant without DFlash (Edge), or NIM_USE_DFLASH from model.useDflash. */}}
{{- define "cosmos3-reasoner.modelEnvTail" -}}
{{- $variant := include "cosmos3-reasoner.variant" . | fromJson -}}
{{- $env := list -}}
{{- if not $variant.dflash -}}
{{- $env = append $env (dict "name" "NIM_USE_DFLASH" "value" "0") -}}
{{- $env = append $env (dict "name" "NIM_STREAMING_SPEC_METHOD" "value" $variant.specMethod) -}}
{{- else if not (kindIs "invalid" .Values.model.useDflash) -}}
{{- $env = append $env (dict "name" "NIM_USE_DFLASH" "value" (ternary "1" "0" .Values.model.useDflash)) -}}
{{- end -}}
{{- toJson (dict "env" $env) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.workerEnv" . | fromJson -> {env: [...]}: the worker's env in the reference order, then proxy and CA, then worker.extraEnv merged by name. */}}
{{- define "cosmos3-reasoner.workerEnv" -}}
{{- $v := .Values -}}
{{- $streaming := eq $v.mode "streaming" -}}
{{- $variant := include "cosmos3-reasoner.variant" . | fromJson -}}
{{- $env := list (dict "name" "NIM_CACHE_PATH" "value" (include "cosmos3-reasoner.cacheMountPath" .)) -}}
{{- $env = concat $env (include "cosmos3-reasoner.ngcApiKeyEnv" . | fromJson).env -}}
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
{{- $discovery := dict "async_scheduling" (not $streaming) "discovery_backend" "kubernetes" "enable_multimodal" true -}}
{{- $literals = append $literals (list "NIM_DISCOVERY_BACKEND" (toJson $discovery)) -}}
{{- else -}}
{{- $literals = append $literals (list "NIM_DISCOVERY_BACKEND" "kubernetes") -}}
{{- $literals = append $literals (list "NIM_DYNAMO_ASYNC_SCHEDULING" $async) -}}
{{- end -}}
{{- $literals = append $literals (list "DYN_REQUEST_PLANE" "tcp") -}}
{{- $literals = append $literals (list "DYN_SELF_HOST_METADATA" "true") -}}
{{- /* The operator owns the system port (container port `system`, its probes): the chart never moves it. */ -}}
{{- $literals = append $literals (list "DYN_SYSTEM_PORT" "9090") -}}
{{- $literals = append $literals (list "NIM_TAGS_SELECTOR" (include "cosmos3-reasoner.tagsSelector" .)) -}}
{{- with $v.model.profile -}}
{{- $literals = append $literals (list "NIM_MODEL_PROFILE" .) -}}
{{- end -}}
{{- $literals = append $literals (list "VLLM_EARLY_UUID_LOOKUPS" "1") -}}
{{- $literals = append $literals (list "VLLM_UUID_AUTO_DERIVE" "1") -}}
{{- $literals = append $literals (list "TQDM_DISABLE" "1") -}}
{{- range $literals -}}
{{- $env = append $env (dict "name" (index . 0) "value" (index . 1 | toString)) -}}
{{- end -}}
{{- /* The operator labels every pod with its base Dynamo namespace; the NIM's private frontend needs it. */ -}}
{{- $env = append $env (dict "name" "DYN_NAMESPACE_PREFIX" "valueFrom" (dict "fieldRef" (dict "fieldPath" "metadata.labels['nvidia.com/dynamo-namespace']"))) -}}
{{- $env = concat $env (include "cosmos3-reasoner.modelEnvTail" . | fromJson).env -}}
{{- if $streaming -}}
{{- $streamingEnv := list (list "NIM_STREAMING_MAX_SESSIONS" (int $v.streaming.maxSessions)) -}}
{{- $streamingEnv = append $streamingEnv (list "NIM_STREAMING_MAX_VIDEO_SEGMENTS" (int $v.streaming.maxVideoSegments)) -}}
{{- $streamingEnv = append $streamingEnv (list "NIM_STREAMING_REST_IDLE_TIMEOUT_S" (int $v.streaming.restIdleTimeoutSeconds)) -}}
{{- $streamingEnv = append $streamingEnv (list "NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S" (int $v.streaming.requestTimeoutSeconds)) -}}
{{- if and $variant.dflash $v.streaming.specMethod -}}
{{- $streamingEnv = append $streamingEnv (list "NIM_STREAMING_SPEC_METHOD" $v.streaming.specMethod) -}}
{{- end -}}
{{- range $streamingEnv -}}
{{- $env = append $env (dict "name" (index . 0) "value" (index . 1 | toString)) -}}
{{- end -}}
{{- end -}}
{{- $env = concat $env (include "cosmos3-reasoner.proxyEnv" . | fromJson).env -}}
{{- include "cosmos3-reasoner.mergeEnv" (dict "base" $env "extra" $v.worker.extraEnv) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.frontendEnv" . | fromJson -> {env: [...]}: the frontend's env, proxy and CA, then frontend.extraEnv merged by name. */}}
{{- define "cosmos3-reasoner.frontendEnv" -}}
{{- $env := list (dict "name" "DYN_REQUEST_PLANE" "value" "tcp") -}}
{{- if eq .Values.mode "streaming" -}}
{{- $env = append $env (dict "name" "NIM_DYNAMO_STREAMING_ENDPOINT" "value" (include "cosmos3-reasoner.streamingEndpoint" .)) -}}
{{- $env = append $env (dict "name" "NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S" "value" (int .Values.streaming.requestTimeoutSeconds | toString)) -}}
{{- end -}}
{{- $env = concat $env (include "cosmos3-reasoner.proxyEnv" . | fromJson).env -}}
{{- include "cosmos3-reasoner.mergeEnv" (dict "base" $env "extra" .Values.frontend.extraEnv) -}}
{{- end -}}
