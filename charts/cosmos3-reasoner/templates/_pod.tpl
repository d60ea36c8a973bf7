{{- /* Pod-level pieces shared by the components, the download Job and the test Pods. */ -}}

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

{{/* Usage: include "cosmos3-reasoner.resources" (dict "resources" $r "gpuName" $name "gpus" $n) | fromJson -> container resources with string quantities (any resource the values name: cpu, memory, ephemeral-storage, hugepages-*) and, when gpus is set, the GPU in requests and limits. */}}
{{- define "cosmos3-reasoner.resources" -}}
{{- $out := dict -}}
{{- range $kind := list "requests" "limits" -}}
{{- $section := dict -}}
{{- range $name, $quantity := (get ($.resources | default dict) $kind | default dict) -}}
{{- if not (kindIs "invalid" $quantity) -}}
{{- $_ := set $section $name (include "cosmos3-reasoner.quantity" $quantity) -}}
{{- end -}}
{{- end -}}
{{- if $.gpus -}}
{{- $_ := set $section $.gpuName (toString $.gpus) -}}
{{- end -}}
{{- if $section -}}
{{- $_ := set $out $kind $section -}}
{{- end -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.smallResources" . | fromJson -> requests = limits for the gate container. */}}
{{- define "cosmos3-reasoner.smallResources" -}}
{{- $small := dict "cpu" "100m" "memory" "128Mi" -}}
{{- toJson (dict "requests" $small "limits" $small) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.caMountPath" . -> where the custom CA bundle is mounted. */}}
{{- define "cosmos3-reasoner.caMountPath" -}}
/etc/cosmos3-reasoner/ca
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.caVolumes" . | fromJson -> {volumes: [...]}: the custom CA bundle's ConfigMap as a volume, when customCA.configMapName is set. */}}
{{- define "cosmos3-reasoner.caVolumes" -}}
{{- $volumes := list -}}
{{- with .Values.customCA.configMapName -}}
{{- $volumes = append $volumes (dict "name" "custom-ca" "configMap" (dict "name" .)) -}}
{{- end -}}
{{- toJson (dict "volumes" $volumes) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.caMounts" . | fromJson -> {mounts: [...]}: the custom CA bundle mounted read-only, when customCA.configMapName is set. */}}
{{- define "cosmos3-reasoner.caMounts" -}}
{{- $mounts := list -}}
{{- if .Values.customCA.configMapName -}}
{{- $mounts = append $mounts (dict "name" "custom-ca" "mountPath" (include "cosmos3-reasoner.caMountPath" .) "readOnly" true) -}}
{{- end -}}
{{- toJson (dict "mounts" $mounts) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.podPlacement" (dict "root" $ "values" .Values.worker) | fromJson -> pull secrets, security context, scheduling and runtime class shared by a component's pods. */}}
{{- define "cosmos3-reasoner.podPlacement" -}}
{{- $spec := dict -}}
{{- with (include "cosmos3-reasoner.pullSecrets" .root | fromJson).secrets -}}{{- $_ := set $spec "imagePullSecrets" . -}}{{- end -}}
{{- with .values.podSecurityContext -}}{{- $_ := set $spec "securityContext" . -}}{{- end -}}
{{- with .values.nodeSelector -}}{{- $_ := set $spec "nodeSelector" . -}}{{- end -}}
{{- with .values.tolerations -}}{{- $_ := set $spec "tolerations" . -}}{{- end -}}
{{- with .values.affinity -}}{{- $_ := set $spec "affinity" . -}}{{- end -}}
{{- with .values.runtimeClassName -}}{{- $_ := set $spec "runtimeClassName" . -}}{{- end -}}
{{- toJson $spec -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.podScheduling" (dict "root" $ "values" .Values.worker "component" "ReasonerWorker") | fromJson -> topologySpreadConstraints (a constraint without labelSelector selects the component's pods) and priorityClassName of a DGD component's pods. */}}
{{- define "cosmos3-reasoner.podScheduling" -}}
{{- $scheduling := dict -}}
{{- $constraints := list -}}
{{- $own := dict "matchLabels" (include "cosmos3-reasoner.operatorPodLabels" . | fromJson) -}}
{{- range .values.topologySpreadConstraints -}}
{{- $constraint := deepCopy . -}}
{{- if not (hasKey $constraint "labelSelector") -}}
{{- $_ := set $constraint "labelSelector" $own -}}
{{- end -}}
{{- $constraints = append $constraints $constraint -}}
{{- end -}}
{{- with $constraints -}}{{- $_ := set $scheduling "topologySpreadConstraints" . -}}{{- end -}}
{{- with .values.priorityClassName -}}{{- $_ := set $scheduling "priorityClassName" . -}}{{- end -}}
{{- toJson $scheduling -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.podMetadata" (dict "root" $ "values" .Values.worker) | fromJson -> pod labels and annotations of a component (empty map when none). */}}
{{- define "cosmos3-reasoner.podMetadata" -}}
{{- $meta := dict -}}
{{- with .values.podLabels -}}{{- $_ := set $meta "labels" . -}}{{- end -}}
{{- with .values.podAnnotations -}}{{- $_ := set $meta "annotations" . -}}{{- end -}}
{{- toJson $meta -}}
{{- end -}}
