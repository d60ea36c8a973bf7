{{- /* Images, pull secrets and the support matrix that decides what the NIM image runs. */ -}}

{{/* Usage: include "cosmos3-reasoner.matrix" . | fromYaml -> the support matrix (files/support-matrix.yaml, a file of the chart, not a value). */}}
{{- define "cosmos3-reasoner.matrix" -}}
{{- .Files.Get "files/support-matrix.yaml" -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.variant" . | fromJson -> the matrix entry of model.variant (validated first). */}}
{{- define "cosmos3-reasoner.variant" -}}
{{- $matrix := include "cosmos3-reasoner.matrix" . | fromYaml -}}
{{- toJson (get $matrix.variants .Values.model.variant) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.gpus" . -> GPUs per worker: model.gpus, else the first count the matrix lists. */}}
{{- define "cosmos3-reasoner.gpus" -}}
{{- if kindIs "invalid" .Values.model.gpus -}}
{{- $variant := include "cosmos3-reasoner.variant" . | fromJson -}}
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

{{/* Usage: include "cosmos3-reasoner.pullSecrets" . | fromJson -> {secrets: [{name: ...}]}: imagePullSecrets given as names or as {name: ...} objects. */}}
{{- define "cosmos3-reasoner.pullSecrets" -}}
{{- $secrets := list -}}
{{- range .Values.imagePullSecrets -}}
{{- if kindIs "string" . -}}
{{- $secrets = append $secrets (dict "name" .) -}}
{{- else -}}
{{- $secrets = append $secrets (dict "name" .name) -}}
{{- end -}}
{{- end -}}
{{- toJson (dict "secrets" $secrets) -}}
{{- end -}}
