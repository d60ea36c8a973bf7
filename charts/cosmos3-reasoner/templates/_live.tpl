{{- /*
What the deployed graph says, read with `lookup` on `helm upgrade` (under `helm template`, Argo CD and a
first install there is nothing to read).
*/ -}}

{{/* Usage: include "cosmos3-reasoner.deployedGraph" . | fromJson -> this release's DGD as the API server serves it in operator.apiVersion, or {} when there is none or nothing to read it from. */}}
{{- define "cosmos3-reasoner.deployedGraph" -}}
{{- lookup (printf "nvidia.com/%s" .Values.operator.apiVersion) "DynamoGraphDeployment" .Release.Namespace (include "cosmos3-reasoner.fullname" .) | default dict | toJson -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.adapterReplicas" (dict "graph" $deployed "v1alpha1" $v1alpha1 "name" "<component>" "into" $component) -> sets `replicas` of a component under a scaling adapter to its count in the deployed graph (deployedGraph), or leaves it out where there is none; writes nothing. The count is the adapter's: written back unchanged, an upgrade neither resets it (Helm 3 sends the patch from the previous manifest, which had none or another count) nor takes it over. */}}
{{- define "cosmos3-reasoner.adapterReplicas" -}}
{{- $spec := .graph.spec | default dict -}}
{{- $entry := dict -}}
{{- if .v1alpha1 -}}
{{- $entry = get ($spec.services | default dict) .name | default dict -}}
{{- else -}}
{{- range $spec.components | default list -}}{{- if eq (.name | default "") $.name -}}{{- $entry = . -}}{{- end -}}{{- end -}}
{{- end -}}
{{- if and (kindIs "map" $entry) (hasKey $entry "replicas") (not (kindIs "invalid" $entry.replicas)) -}}
{{- $_ := set .into "replicas" (int64 $entry.replicas) -}}
{{- else -}}
{{- $_ := unset .into "replicas" -}}
{{- end -}}
{{- end -}}
