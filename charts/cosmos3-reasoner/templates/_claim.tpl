{{- /*
The model-cache claim that already exists (an upgrade, or a re-install after `helm uninstall` kept it),
read with `lookup`; under `helm template` and Argo CD lookup finds nothing and these checks pass.
*/ -}}

{{/* Usage: include "cosmos3-reasoner.quantityBytes" $q -> the quantity in bytes, as a float64 in text (suffixes Ki..Ei, n..E, an e/E exponent). */}}
{{- define "cosmos3-reasoner.quantityBytes" -}}
{{- $q := include "cosmos3-reasoner.quantity" . -}}
{{- $number := regexReplaceAll "^([0-9]*\\.?[0-9]*).*$" $q "${1}" -}}
{{- $suffix := trimPrefix $number $q -}}
{{- $factors := dict "" 1.0 "Ki" 1024.0 "Mi" 1048576.0 "Gi" 1073741824.0 "Ti" 1099511627776.0 "Pi" 1125899906842624.0 "Ei" 1152921504606846976.0 "n" 0.000000001 "u" 0.000001 "m" 0.001 "k" 1000.0 "M" 1000000.0 "G" 1000000000.0 "T" 1000000000000.0 "P" 1000000000000000.0 "E" 1000000000000000000.0 -}}
{{- $factor := 1.0 -}}
{{- if regexMatch "^[eE][0-9]+$" $suffix -}}
{{- /* at most 10^40, far beyond any claim: a hostile exponent (1e999999999) would loop for minutes */ -}}
{{- $exponent := substr 1 -1 $suffix -}}
{{- range until (int (min 40 (ternary 40 (atoi $exponent) (gt (len $exponent) 2)))) -}}{{- $factor = mulf $factor 10 -}}{{- end -}}
{{- else -}}
{{- $factor = get $factors $suffix -}}
{{- end -}}
{{- mulf (float64 $number) $factor -}}
{{- end -}}

{{/* Usage: include "cosmos3-reasoner.validateExistingClaim" (dict "root" $ "claim" $existing) -> fails when the claim that exists was made by another release, or differs from cache.* in what the API server never changes (storage class, access modes, a smaller size, any size while unbound), or in what Helm never updates (the hook mode's claim is created once). */}}
{{- define "cosmos3-reasoner.validateExistingClaim" -}}
{{- $root := .root -}}
{{- $cache := $root.Values.cache -}}
{{- with .claim -}}
{{- $name := .metadata.name -}}
{{- $isHook := include "cosmos3-reasoner.downloadIsHook" $root -}}
{{- $other := "a new claim with cache.name (the model is then downloaded into it), or delete this one and its model" -}}
{{- $annotations := .metadata.annotations | default dict -}}
{{- $owner := get $annotations "meta.helm.sh/release-name" | default "" -}}
{{- if ne $owner $root.Release.Name -}}
{{- $madeBy := ternary "was not made by Helm" (printf "belongs to release %s" $owner) (not $owner) -}}
{{- fail (printf "the existing claim %s %s, not to %s: reuse it with cache.create false and cache.name %s, or give this release a new claim with cache.name" $name $madeBy $root.Release.Name $name) -}}
{{- end -}}
{{- $spec := .spec | default dict -}}
{{- if and $cache.storageClass (hasKey $spec "storageClassName") -}}
{{- $wanted := ternary "" $cache.storageClass (eq $cache.storageClass "-") -}}
{{- if ne $wanted ($spec.storageClassName | default "") -}}
{{- fail (printf "cache.storageClass %q differs from the existing claim %s's storage class %q: a claim's class never changes; set cache.storageClass to %q (or leave it empty), or use %s" $cache.storageClass $name ($spec.storageClassName | default "") ($spec.storageClassName | default "-") $other) -}}
{{- end -}}
{{- end -}}
{{- $modes := $spec.accessModes | default list -}}
{{- if ne (toJson $modes) (toJson (list $cache.accessMode)) -}}
{{- fail (printf "cache.accessMode %s differs from the existing claim %s's access modes [%s]: a claim's access modes never change; set cache.accessMode %s, or use %s" $cache.accessMode $name (join ", " $modes) (first $modes | default "ReadWriteMany") $other) -}}
{{- end -}}
{{- if and $cache.volumeName $spec.volumeName (ne $cache.volumeName $spec.volumeName) -}}
{{- fail (printf "cache.volumeName %q differs from the volume %q the existing claim %s is bound to: a bound claim keeps its volume; set cache.volumeName %q (or leave it empty), or use %s" $cache.volumeName $spec.volumeName $name $spec.volumeName $other) -}}
{{- end -}}
{{- $had := ((($spec.resources | default dict).requests | default dict).storage | default "0") | toString -}}
{{- $size := include "cosmos3-reasoner.quantity" $cache.size -}}
{{- $wantBytes := include "cosmos3-reasoner.quantityBytes" $cache.size | float64 -}}
{{- $hadBytes := include "cosmos3-reasoner.quantityBytes" $had | float64 -}}
{{- $phase := (.status | default dict).phase | default "Pending" -}}
{{- if lt $wantBytes $hadBytes -}}
{{- fail (printf "cache.size %s is smaller than the existing claim %s's %s: a claim never shrinks; set cache.size %s (or more), or use %s" $size $name $had $had $other) -}}
{{- else if and (gt $wantBytes $hadBytes) (ne $phase "Bound") -}}
{{- fail (printf "cache.size %s differs from the existing claim %s's %s, which is not bound yet (%s): the API server resizes only a bound claim; keep cache.size %s until a pod has bound it, or use %s" $size $name $had $phase $had $other) -}}
{{- else if and (gt $wantBytes $hadBytes) $isHook -}}
{{- fail (printf "cache.size %s differs from the existing claim %s's %s, and in the hook download mode Helm never updates an existing claim: grow it with `kubectl -n %s patch pvc %s -p '{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"%s\"}}}}'` (its storage class must allow volume expansion), then run this again" $size $name $had $root.Release.Namespace $name $size) -}}
{{- end -}}
{{- end -}}
{{- end -}}
