{{- /*
Names and labels. Helpers that hand structured data to a template return JSON built with toJson from
dicts (`include` only returns strings) and the caller reads it back with fromJson: no helper writes YAML
text that is parsed again, so a value can never add a key. Arguments, one way throughout: a helper takes
the root context `.`; one that needs more takes a dict of named arguments with the root under "root";
the few that need no root (imageRef, resources, quantity, mergeEnv) take only the piece they format.
*/ -}}

{{/* Usage: include "cosmos3-reasoner.workerName" . -> "ReasonerWorker", the worker component's name (also the longest component name, which sets the name budget). */}}
{{- define "cosmos3-reasoner.workerName" -}}ReasonerWorker{{- end -}}

{{/* Usage: include "cosmos3-reasoner.frontendName" . -> "Frontend", the frontend component's name. */}}
{{- define "cosmos3-reasoner.frontendName" -}}Frontend{{- end -}}

{{/* Usage: include "cosmos3-reasoner.name" . -> the chart name, or nameOverride. */}}
{{- define "cosmos3-reasoner.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 45 | trimSuffix "-" -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.fullname" . -> DGD name and object-name prefix. At most 31 characters (Grove's 45 minus the longest component name); a longer name keeps its first 24 characters and a 6-hex hash of the whole name, so two releases never share it. */}}
{{- define "cosmos3-reasoner.fullname" -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- $full := printf "%s-%s" .Release.Name $name -}}
{{- if .Values.fullnameOverride -}}
{{- $full = .Values.fullnameOverride -}}
{{- else if contains $name .Release.Name -}}
{{- $full = .Release.Name -}}
{{- end -}}
{{- $budget := sub 45 (len (include "cosmos3-reasoner.workerName" .)) | int -}}
{{- if gt (len $full) $budget -}}
{{- $hash := $full | sha256sum | trunc 6 -}}
{{- $full = printf "%s-%s" (regexReplaceAll "[-.]+$" ($full | trunc (sub $budget 7 | int)) "") $hash -}}
{{- end -}}
{{- $full -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.validateNames" . -> fails when the fullname (the DGD's name) would make a name the Dynamo operator derives from it at run time invalid: component Services "<fullname>-<component>" and Grove's headless Service "<fullname>-0" and pod host names are DNS labels (a Service's a DNS-1035 one, starting with a letter, before Kubernetes 1.36), and the label nvidia.com/dynamo-namespace "<namespace>-<fullname>" is at most 63 characters. The message names where the name came from. */}}
{{- define "cosmos3-reasoner.validateNames" -}}
{{- $full := include "cosmos3-reasoner.fullname" . -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- $from := printf "the release name %q and the chart name %q" .Release.Name .Chart.Name -}}
{{- if .Values.fullnameOverride -}}
{{- $from = printf "fullnameOverride %q" .Values.fullnameOverride -}}
{{- else if contains $name .Release.Name -}}
{{- $from = printf "the release name %q" .Release.Name -}}
{{- else if .Values.nameOverride -}}
{{- $from = printf "the release name %q and nameOverride %q" .Release.Name .Values.nameOverride -}}
{{- end -}}
{{- $what := printf "the DynamoGraphDeployment name %q (from %s)" $full $from -}}
{{- $example := regexReplaceAll "^[^a-z]+" (regexReplaceAll "[^-a-z0-9]" (lower $full) "-") "" | default .Chart.Name -}}
{{- if contains "." $full -}}
{{- fail (printf "%s holds a dot: the Dynamo operator's Grove pathway names the headless Service %q and the pods' host names after it, and the API server refuses a Service or host name with a dot (a DNS label: lowercase letters, digits and '-'); use a release name without dots, or set fullnameOverride (for example %q)" $what (printf "%s-0" $full) $example) -}}
{{- end -}}
{{- if not (regexMatch "^[a-z]([-a-z0-9]*[a-z0-9])?$" $full) -}}
{{- $why := printf "is not a DNS label (lowercase letters, digits and '-')" -}}
{{- if not (regexMatch "^[a-zA-Z]" $full) -}}
{{- $why = printf "starts with %q, not a letter" (substr 0 1 $full) -}}
{{- end -}}
{{- fail (printf "%s %s: the Dynamo operator names the Service %q after it, and a Service name is a DNS-1035 label (lowercase letters, digits and '-', starting with a letter; Kubernetes before 1.36 refuses any other, and the chart supports 1.28 on); use a release name that starts with a letter, or set fullnameOverride (for example %q)" $what $why (printf "%s-frontend" $full) $example) -}}
{{- end -}}
{{- $dynamoNamespace := printf "%s-%s" .Release.Namespace $full -}}
{{- if gt (len $dynamoNamespace) 63 -}}
{{- $room := sub 62 (len .Release.Namespace) | int -}}
{{- $fix := "install into a namespace with a shorter name" -}}
{{- if gt $room 0 -}}
{{- $fix = printf "set fullnameOverride to at most %d characters, or %s" $room $fix -}}
{{- end -}}
{{- fail (printf "%s in namespace %q: the Dynamo operator labels the graph's objects and pods nvidia.com/dynamo-namespace=%s, %d characters (<namespace>-<name>), and the API server refuses a label value over 63; %s" $what .Release.Namespace $dynamoNamespace (len $dynamoNamespace) $fix) -}}
{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.chart" . -> "<chart>-<version>" for the helm.sh/chart label. */}}
{{- define "cosmos3-reasoner.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.selectorLabels" (dict "root" $ "component" "model-download") | fromJson -> the labels a pod of this release carries. */}}
{{- define "cosmos3-reasoner.selectorLabels" -}}
{{- toJson (dict "app.kubernetes.io/name" (include "cosmos3-reasoner.name" .root) "app.kubernetes.io/instance" .root.Release.Name "app.kubernetes.io/component" .component) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.metadata" (dict "root" $ "name" $name "component" "inference" "annotations" $extra "labels" $extraLabels) -> name, namespace, labels and annotations of a top-level object as YAML (annotations and labels optional; the chart's own annotations win over the user's). */}}
{{- define "cosmos3-reasoner.metadata" -}}
{{- $root := .root -}}
{{- $labels := include "cosmos3-reasoner.selectorLabels" . | fromJson -}}
{{- $_ := set $labels "helm.sh/chart" (include "cosmos3-reasoner.chart" $root) -}}
{{- $_ := set $labels "app.kubernetes.io/version" $root.Chart.AppVersion -}}
{{- $_ := set $labels "app.kubernetes.io/managed-by" $root.Release.Service -}}
{{- $labels = mergeOverwrite $labels (deepCopy ($root.Values.labels | default dict)) (deepCopy (.labels | default dict)) -}}
{{- $annotations := mergeOverwrite (deepCopy ($root.Values.annotations | default dict)) (.annotations | default dict) -}}
name: {{ .name | quote }}
namespace: {{ $root.Release.Namespace | quote }}
labels:
  {{- toYaml $labels | nindent 2 }}
{{- with $annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.operatorPodLabels" (dict "root" $ "component" "ReasonerWorker") | fromJson -> the labels the Dynamo operator puts on this release's pods of one component (graph name and component name). */}}
{{- define "cosmos3-reasoner.operatorPodLabels" -}}
{{- toJson (dict "nvidia.com/dynamo-graph-deployment-name" (include "cosmos3-reasoner.fullname" .root) "nvidia.com/dynamo-component" .component) -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.frontendServiceName" . -> "<fullname>-frontend", the Service the operator creates for the Frontend component. */}}
{{- define "cosmos3-reasoner.frontendServiceName" -}}
{{- printf "%s-frontend" (include "cosmos3-reasoner.fullname" .) -}}
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
