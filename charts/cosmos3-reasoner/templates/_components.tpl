{{- /*
One builder per DGD component. Each returns the component independent of the DGD API shape: name,
type, replicas, main container (image, command, args, env, envFrom, mounts, security context),
resources, GPU count, pod spec, pod metadata and settings of the component itself.
*/ -}}

{{/* Usage: include "cosmos3-reasoner.frontendComponent" . | fromJson -> the Frontend component. */}}
{{- define "cosmos3-reasoner.frontendComponent" -}}
{{- $v := .Values -}}
{{- $streaming := eq $v.mode "streaming" -}}
{{- $main := dict -}}
{{- if $streaming -}}
{{- $main = dict "image" (include "cosmos3-reasoner.nimImage" .) "imagePullPolicy" $v.image.pullPolicy "workingDir" "/opt/nim" "command" (list "/opt/nim/.venv/bin/python" "-m" "streaming.dynamo.frontend") -}}
{{- else -}}
{{- $main = dict "image" (include "cosmos3-reasoner.imageRef" $v.frontend.image) "imagePullPolicy" $v.frontend.image.pullPolicy "command" (list "python3" "-m" "dynamo.frontend") -}}
{{- end -}}
{{- $args := list "--http-host" "0.0.0.0" "--http-port" "8000" -}}
{{- if $streaming -}}
{{- $args = concat $args (list "--discovery-backend" "kubernetes") -}}
{{- end -}}
{{- $args = concat $args (list "--dyn-chat-processor" "dynamo" "--router-mode" $v.frontend.routerMode "--router-session-affinity-ttl-secs" (int $v.frontend.sessionAffinityTtlSeconds | toString)) ($v.frontend.extraArgs | default list) -}}
{{- $_ := set $main "args" $args -}}
{{- with $v.frontend.envFrom -}}{{- $_ := set $main "envFrom" . -}}{{- end -}}
{{- with concat (include "cosmos3-reasoner.caMounts" . | fromJson).mounts ($v.frontend.extraVolumeMounts | default list) -}}{{- $_ := set $main "volumeMounts" . -}}{{- end -}}
{{- with $v.frontend.securityContext -}}{{- $_ := set $main "securityContext" . -}}{{- end -}}
{{- $frontend := dict "name" (include "cosmos3-reasoner.frontendName" .) "type" "frontend" "replicas" (int $v.frontend.replicas) "main" $main -}}
{{- $_ := set $frontend "env" (include "cosmos3-reasoner.frontendEnv" . | fromJson).env -}}
{{- $_ := set $frontend "resources" $v.frontend.resources -}}
{{- $_ := set $frontend "gpus" "" -}}
{{- $pod := include "cosmos3-reasoner.podPlacement" (dict "root" . "values" $v.frontend) | fromJson -}}
{{- $pod = mergeOverwrite $pod (include "cosmos3-reasoner.podScheduling" (dict "root" . "values" $v.frontend "component" $frontend.name) | fromJson) -}}
{{- with concat (include "cosmos3-reasoner.caVolumes" . | fromJson).volumes ($v.frontend.extraVolumes | default list) -}}{{- $_ := set $pod "volumes" . -}}{{- end -}}
{{- $_ := set $frontend "podSpec" $pod -}}
{{- /* Settings of the v1alpha1 Frontend service itself (v1beta1 has neither; see ingress.yaml and validate-values.yaml). */ -}}
{{- $serviceExtras := dict -}}
{{- with $v.frontend.serviceAnnotations -}}{{- $_ := set $serviceExtras "annotations" . -}}{{- end -}}
{{- if $v.ingress.enabled -}}{{- $_ := set $serviceExtras "ingress" (include "cosmos3-reasoner.operatorIngress" . | fromJson) -}}{{- end -}}
{{- $_ := set $frontend "serviceExtras" $serviceExtras -}}
{{- $_ := set $frontend "scalingAdapter" ($v.frontend.scalingAdapter | default dict).enabled -}}
{{- $_ := set $frontend "podMetadata" (include "cosmos3-reasoner.podMetadata" (dict "root" . "values" $v.frontend) | fromJson) -}}
{{- toJson $frontend -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.workerComponent" . | fromJson -> the ReasonerWorker component (its gate and the gate's volume in the gated download mode). */}}
{{- define "cosmos3-reasoner.workerComponent" -}}
{{- $v := .Values -}}
{{- $main := dict "image" (include "cosmos3-reasoner.nimImage" .) "imagePullPolicy" $v.image.pullPolicy "workingDir" "/opt/nim" "command" (list "/bin/bash" "-lc") "args" (list "set -euo pipefail\nexec /opt/nim/start_server.sh\n") -}}
{{- with $v.worker.envFrom -}}{{- $_ := set $main "envFrom" . -}}{{- end -}}
{{- with concat (include "cosmos3-reasoner.caMounts" . | fromJson).mounts ($v.worker.extraVolumeMounts | default list) -}}{{- $_ := set $main "volumeMounts" . -}}{{- end -}}
{{- with $v.worker.securityContext -}}{{- $_ := set $main "securityContext" . -}}{{- end -}}
{{- $worker := dict "name" (include "cosmos3-reasoner.workerName" .) "type" $v.worker.componentType "replicas" (int $v.worker.replicas) "main" $main -}}
{{- $_ := set $worker "env" (include "cosmos3-reasoner.workerEnv" . | fromJson).env -}}
{{- $_ := set $worker "resources" $v.worker.resources -}}
{{- $_ := set $worker "gpus" (include "cosmos3-reasoner.gpus" .) -}}
{{- $_ := set $worker "sharedMemorySize" (include "cosmos3-reasoner.quantity" $v.worker.sharedMemorySize) -}}
{{- $_ := set $worker "mountsCache" true -}}
{{- $pod := include "cosmos3-reasoner.podPlacement" (dict "root" . "values" $v.worker) | fromJson -}}
{{- $pod = mergeOverwrite $pod (include "cosmos3-reasoner.podScheduling" (dict "root" . "values" $v.worker "component" $worker.name) | fromJson) -}}
{{- $_ := set $pod "terminationGracePeriodSeconds" (int $v.worker.terminationGracePeriodSeconds) -}}
{{- $volumes := list -}}
{{- if include "cosmos3-reasoner.gateEnabled" . -}}
{{- $_ := set $pod "initContainers" (list (include "cosmos3-reasoner.gateContainer" . | fromJson)) -}}
{{- $volumes = append $volumes (dict "name" "model-cache-gate" "persistentVolumeClaim" (dict "claimName" (include "cosmos3-reasoner.claimName" .))) -}}
{{- end -}}
{{- with concat $volumes (include "cosmos3-reasoner.caVolumes" . | fromJson).volumes ($v.worker.extraVolumes | default list) -}}{{- $_ := set $pod "volumes" . -}}{{- end -}}
{{- $_ := set $worker "podSpec" $pod -}}
{{- $_ := set $worker "serviceExtras" dict -}}
{{- $_ := set $worker "scalingAdapter" ($v.worker.scalingAdapter | default dict).enabled -}}
{{- $_ := set $worker "podMetadata" (include "cosmos3-reasoner.podMetadata" (dict "root" . "values" $v.worker) | fromJson) -}}
{{- toJson $worker -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.operatorIngress" . | fromJson -> the v1alpha1 `ingress` of the Frontend service: the host split at its first dot, since the operator writes "<host>.<hostSuffix>". */}}
{{- define "cosmos3-reasoner.operatorIngress" -}}
{{- $in := .Values.ingress -}}
{{- $labels := splitn "." 2 $in.host -}}
{{- $ingress := dict "enabled" true "host" $labels._0 "hostSuffix" $labels._1 "ingressControllerClassName" $in.className -}}
{{- with $in.tls.secretName -}}{{- $_ := set $ingress "tls" (dict "secretName" .) -}}{{- end -}}
{{- with $in.annotations -}}{{- $_ := set $ingress "annotations" . -}}{{- end -}}
{{- toJson $ingress -}}
{{- end -}}
