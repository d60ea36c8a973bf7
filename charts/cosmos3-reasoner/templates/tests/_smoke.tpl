{{- /*
Helpers of the `helm test` hooks: one ConfigMap carries files/smoke.py (the same client that
`dgdlint smoke` runs) and each test Pod runs it with the NIM image's Python, so nothing else is pulled.
*/ -}}

{{/* Usage: include "cosmos3-reasoner.smokeClientName" . -> the ConfigMap holding the smoke client: "<fullname>-smoke-client". */}}
{{- define "cosmos3-reasoner.smokeClientName" -}}
{{- printf "%s-smoke-client" (include "cosmos3-reasoner.fullname" .) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.smokeClientBlock" . -> files/smoke.py indented for a literal block at column 4, blank lines left empty. */}}
{{- define "cosmos3-reasoner.smokeClientBlock" -}}
{{- $indented := .Files.Get "files/smoke.py" | trimSuffix "\n" | indent 4 -}}
{{- regexReplaceAll "(?m)^ +$" $indented "" -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.testUrl" . -> tests.url, else the frontend Service the operator creates: "http://<fullname>-frontend.<namespace>.svc:8000". */}}
{{- define "cosmos3-reasoner.testUrl" -}}
{{- .Values.tests.url | default (printf "http://%s.%s.svc:8000" (include "cosmos3-reasoner.frontendServiceName" .) .Release.Namespace) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.testImage" . -> tests.image when it names a repository, else the NIM image. */}}
{{- define "cosmos3-reasoner.testImage" -}}
{{- if .Values.tests.image.repository -}}
{{- include "cosmos3-reasoner.imageRef" .Values.tests.image -}}
{{- else -}}
{{- include "cosmos3-reasoner.nimImage" . -}}
{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.testActiveDeadline" . -> seconds a test Pod may run: the --wait budget, six requests of --timeout each, and 300 s to schedule, pull and start. */}}
{{- define "cosmos3-reasoner.testActiveDeadline" -}}
{{- add (int .Values.tests.waitSeconds) (mul 6 (int .Values.tests.timeoutSeconds)) 300 -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.testPod" (dict "root" $ "test" "api" "weight" "0" "streaming" false) -> a `helm test` Pod named "<fullname>-test-<test>" that runs the smoke client (with --streaming when asked). */}}
{{- define "cosmos3-reasoner.testPod" -}}
{{- $root := .root -}}
{{- $v := $root.Values.tests -}}
{{- $hook := dict "helm.sh/hook" "test" "helm.sh/hook-delete-policy" "before-hook-creation,hook-succeeded" "helm.sh/hook-weight" .weight -}}
{{- $args := list "--url" (include "cosmos3-reasoner.testUrl" $root) "--timeout" (int $v.timeoutSeconds | toString) "--wait" (int $v.waitSeconds | toString) -}}
{{- if .streaming -}}
{{- $args = append $args "--streaming" -}}
{{- end -}}
{{- $mounts := list (dict "name" "smoke-client" "mountPath" "/opt/cosmos3-smoke" "readOnly" true) (dict "name" "tmp" "mountPath" "/tmp") -}}
{{- $container := dict "name" "smoke" "image" (include "cosmos3-reasoner.testImage" $root) "imagePullPolicy" ($v.image.pullPolicy | default $root.Values.image.pullPolicy) -}}
{{- $_ := set $container "command" (list $v.python "-I" "-B" "/opt/cosmos3-smoke/smoke.py") -}}
{{- $_ := set $container "args" $args -}}
{{- $_ := set $container "resources" (include "cosmos3-reasoner.resources" (dict "resources" $v.resources) | fromJson) -}}
{{- with $v.securityContext -}}{{- $_ := set $container "securityContext" . -}}{{- end -}}
{{- $_ := set $container "volumeMounts" $mounts -}}
{{- $spec := dict "restartPolicy" "Never" "activeDeadlineSeconds" (include "cosmos3-reasoner.testActiveDeadline" $root | int) -}}
{{- $_ := set $spec "automountServiceAccountToken" false -}}
{{- $_ := set $spec "enableServiceLinks" false -}}
{{- with (include "cosmos3-reasoner.pullSecrets" $root | fromJson).secrets -}}{{- $_ := set $spec "imagePullSecrets" . -}}{{- end -}}
{{- /* A test Pod is a small CPU pod like the frontend: it goes where the frontend's pods may go. */ -}}
{{- with $root.Values.frontend.nodeSelector -}}{{- $_ := set $spec "nodeSelector" . -}}{{- end -}}
{{- with $root.Values.frontend.tolerations -}}{{- $_ := set $spec "tolerations" . -}}{{- end -}}
{{- with $root.Values.download.serviceAccountName -}}{{- $_ := set $spec "serviceAccountName" . -}}{{- end -}}
{{- with $v.podSecurityContext -}}{{- $_ := set $spec "securityContext" . -}}{{- end -}}
{{- $_ := set $spec "containers" (list $container) -}}
{{- $volumes := list (dict "name" "smoke-client" "configMap" (dict "name" (include "cosmos3-reasoner.smokeClientName" $root) "defaultMode" 292)) -}}
{{- $volumes = append $volumes (dict "name" "tmp" "emptyDir" (dict "sizeLimit" "16Mi")) -}}
{{- $_ := set $spec "volumes" $volumes -}}
apiVersion: v1
kind: Pod
metadata:
  {{- include "cosmos3-reasoner.metadata" (dict "root" $root "name" (printf "%s-test-%s" (include "cosmos3-reasoner.fullname" $root) .test) "component" "test" "annotations" $hook) | nindent 2 }}
spec:
  {{- toYaml $spec | nindent 2 }}
{{- end -}}
