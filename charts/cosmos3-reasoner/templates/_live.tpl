{{- /*
What the deployed graph says, read with `lookup` on `helm upgrade` (under `helm template`, Argo CD and a
first install there is nothing to read).
*/ -}}

{{/* Usage: include "cosmos3-reasoner.liveReplicas" (dict "root" . "name" "<component>") -> the replicas of that component in the deployed DGD (as the API server serves it in operator.apiVersion), or "" when there is no such graph, component or count. Under a scaling adapter the count is the adapter's: written back unchanged, an upgrade neither resets it (Helm 3 sends the patch from the previous manifest, which had none or another count) nor takes it over. */}}
{{- define "cosmos3-reasoner.liveReplicas" -}}
{{- $root := .root -}}
{{- $dgd := lookup (printf "nvidia.com/%s" $root.Values.operator.apiVersion) "DynamoGraphDeployment" $root.Release.Namespace (include "cosmos3-reasoner.fullname" $root) | default dict -}}
{{- $spec := $dgd.spec | default dict -}}
{{- $entry := dict -}}
{{- if eq $root.Values.operator.apiVersion "v1alpha1" -}}
{{- $entry = get ($spec.services | default dict) .name | default dict -}}
{{- else -}}
{{- range $spec.components | default list -}}{{- if eq (.name | default "") $.name -}}{{- $entry = . -}}{{- end -}}{{- end -}}
{{- end -}}
{{- if and (kindIs "map" $entry) (hasKey $entry "replicas") (not (kindIs "invalid" $entry.replicas)) -}}
{{- int64 $entry.replicas -}}
{{- end -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.adapterReplicas" (dict "root" . "name" "<component>" "into" $component) -> sets `replicas` of a component under a scaling adapter to the deployed count, or leaves it out; writes nothing. */}}
{{- define "cosmos3-reasoner.adapterReplicas" -}}
{{- $live := include "cosmos3-reasoner.liveReplicas" (dict "root" .root "name" .name) -}}
{{- if ne $live "" -}}
{{- $_ := set .into "replicas" (int64 $live) -}}
{{- else -}}
{{- $_ := unset .into "replicas" -}}
{{- end -}}
{{- end -}}
