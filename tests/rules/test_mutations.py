"""The rule fixtures kill mutants: each deliberate change below, applied to a copy of the package, makes
that rule's fixture tests fail. A change that the fixtures let through names a missing fixture (another
spelling of a value, a value at or away from a boundary).

Slow: each mutant runs the rule's fixtures in a fresh interpreter against the mutated copy."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dgdlint.rules.catalogue import DIFF_RULES
from refdata import ROOT

pytestmark = pytest.mark.slow

PACKAGE = ROOT / "validate" / "dgdlint"

# (module, text as it is, the mutant, the rule whose fixtures must catch it)
MUTANTS = [
    ("rules/streaming.py", "if value is None or value.lower() not in wanted:",
     "if value is None or value not in wanted:", "streaming-worker-env"),  # env values read case-sensitively
    ("rules/streaming.py", '(("NIM_DYNAMO_WORKER", ("true", "1")),',
     '(("NIM_DYNAMO_WORKER", ("true",)),', "streaming-worker-env"),  # the spelling 1 dropped
    ("rules/streaming.py", 'if value in ("true", "1", "yes"):',
     'if value in ("true", "1"):', "streaming-async-scheduling"),  # the spelling yes dropped
    ("rules/fastvideo.py", "default <= bound", "default < bound",
     "fastvideo-default-exceeds-max"),  # a default at its bound refused
    ("rules/fastvideo.py", 'parts = (text or "").lower().split("x")', 'parts = (text or "").split("x")',
     "fastvideo-default-exceeds-max"),  # WxH read case-sensitively
    ("rules/video.py", "if value == expected:", "if value >= expected:",
     "video-num-frames-mismatch"),  # == loosened to >=
    ("video.py", "return value is not None and value.strip().lower() in _TRUE",
     "return value is not None and value.strip() in _TRUE", "media-internal-fetch-allowed"),  # case-sensitive
    ("video.py", '_TRUE = ("1", "true", "yes", "on")', '_TRUE = ("1", "true", "yes")',
     "media-internal-fetch-allowed"),  # the spelling on dropped
    ("cosmos.py", '(main.env_value("NIM_ENABLE_STREAMING") or "").strip().lower() in ("1", "true")',
     '(main.env_value("NIM_ENABLE_STREAMING") or "").strip() in ("1", "true")',
     "streaming-frontend-adapter"),  # streaming mode read case-sensitively
    ("rules/webhook_grove.py", "if total > GROVE_NAME_BUDGET:", "if total >= GROVE_NAME_BUDGET:",
     "grove-name-budget"),  # a name exactly at the budget refused
    ("rules/webhook_grove.py", 'return len(text.encode("utf-8", "surrogatepass"))', "return len(text)",
     "grove-name-budget"),  # names counted in letters, not in the bytes the operator counts
    ("rules/webhook_grove.py", 'return "".join("i" if char == "\\u0130" else char.lower() for char in text)',
     "return text.lower()", "operator-derived-name-invalid"),  # a dotted capital I lowered with a combining dot
    ("rules/derived_names.py", "if len(value) > LABEL_VALUE_LIMIT:", "if len(value) >= LABEL_VALUE_LIMIT:",
     "operator-derived-name-invalid"),  # a label value of 63 characters refused
    ("rules/derived_names.py", 'return written is None or written.text == "kubernetes"', "return True",
     "operator-derived-name-invalid"),  # a Service counted for every component under etcd discovery
    ("rules/derived_names.py", "worker_dcd = kind in WORKER_TYPES and pcs is None", "worker_dcd = False",
     "operator-derived-name-invalid"),  # a worker's DCD hash left out of its Service's name off Grove
    ("rules/derived_names.py", "worker_dcd = kind in WORKER_TYPES and pcs is None",
     "worker_dcd = kind in WORKER_TYPES", "operator-derived-name-invalid"),  # the hash counted on Grove too
    ("rules/derived_names.py", 'return go_lower(name.replace(".", "-"))', "return go_lower(name)",
     "operator-derived-name-invalid"),  # a dotted graph's Service names taken as they are
    ("rules/derived_names.py", "any(component.field(\"globalDynamoNamespace\").value is not True",
     "all(component.field(\"globalDynamoNamespace\").value is not True",
     "operator-derived-name-invalid"),  # globalDynamoNamespace on one component taken for all
    ("rules/pod_containers.py", "if len(text) > 64:", "if len(text) > 63:",
     "pod-spec-invalid"),  # a hostnameOverride of 64 characters refused
    ("rules/pod_containers.py", "groups = [regular] + [[container] for container in init]",
     "groups = [regular + init]", "pod-spec-invalid"),  # an init container's host port counted with the others
    ("rules/pod_containers.py", "{as_str(port.get('protocol')) or 'TCP'}", "{as_str(port.get('protocol')) or ''}",
     "pod-spec-invalid"),  # an unset protocol not read as its default TCP
    ("rules/pod_containers.py", "if not template and as_str(spec.get(\"nodeName\"))",
     "if as_str(spec.get(\"nodeName\"))", "pod-spec-invalid"),  # a template's node name with scheduling gates refused
    ("rules/pod_resources.py", "if pod_limit is not None and value is not None and value > pod_limit:",
     "if pod_limit is not None and value is not None and value >= pod_limit:",
     "pod-spec-invalid"),  # a container limit at the pod's refused
    ("rules/pod_containers.py", "if name in used or key in used or", "if key in used or",
     "pod-spec-invalid"),  # a request of a claim used whole before taken
    ("rules/security.py", "len(text.encode(\"utf-8\")) > 4095", "len(text.encode(\"utf-8\")) > 4096",
     "security-context-invalid"),  # an AppArmor profile of 4096 bytes taken
    ("rules/pod_containers.py", 'actions = ("Restart", "RestartAllContainers") if restart_all else ("Restart",)',
     'actions = ("Restart",)', "pod-spec-invalid"),  # a rule restarting all containers refused in 1.36
    ("rules/pod_containers.py", "    if not template:  # a template's images", "    if True:  # a template's images",
     "pod-spec-invalid"),  # a template's spaced image refused (the server reads it per pod)
    ("rules/admission.py", 'resource in ("cpu", "memory") for resource in', 'resource in ("cpu",) for resource in',
     "container-resources-invalid"),  # memory beside hugepages not counted
    ("rules/cron.py", 'for expression in (part for part in text.split(",") if part):',
     'for expression in text.split(","):', "pod-spec-invalid"),  # an empty list item refused (the parser skips it)
    ("rules/cron.py", '"@daily", "@midnight", "@hourly")', '"@daily", "@hourly")',
     "pod-spec-invalid"),  # @midnight refused
    ("rules/cron.py", 'if len(fields) != 5:', 'if len(fields) > 6:', "pod-spec-invalid"),  # six fields taken
    ("rules/apps.py", 'rolling.get("maxUnavailable", "25%")', 'rolling.get("maxUnavailable", 0)',
     "pod-spec-invalid"),  # an unset maxUnavailable not read as its default 25%
    ("rules/apps.py", 'if "more than 100%" not in problem or "maxUnavailable" in problem', 'if True',
     "pod-spec-invalid"),  # a Deployment's surge above 100% refused
    ("load/common.py", '_MARKS = ("<", "${", "{{", "\\\\", "binary")', '_MARKS = ("<", "${", "{{", "binary")',
     "placeholder-value"),  # a mark written as an escape taken for no mark
    ("cosmos.py", '|" + _HELM_REFERENCE)', '")', "placeholder-value"),  # Helm references no longer seen
    ("cosmos.py", '|" + _HELM_REFERENCE)', '|" + r"\\{\\{[^}]*\\}\\}")',
     "placeholder-value"),  # any {{ }} taken for Helm's, Prometheus' alert text included
    # rules n-z
    ("rules/video.py", 'capabilities = {part.strip() for part in entry.value.split(",")}',
     'capabilities = {part.strip().lower() for part in entry.value.split(",")}',
     "video-driver-capability-missing"),  # capabilities read case-insensitively, as the toolkit does not
    ("rules/video.py", "version >= FRONTEND_DECODING_SINCE", "version > FRONTEND_DECODING_SINCE",
     "vp-codec-runtime-too-old"),  # the runtime at the bound, 1.6, refused
    ("video.py", 'folded = word.lower().replace(".", "")', 'folded = word.replace(".", "")',
     "video-codec-unknown"),  # codec names read case-sensitively
    ("rules/hygiene.py", "_port(proxy) == _port(http)", "proxy == http",
     "nim-proxy-port-conflict"),  # ports compared as text: 08000 taken for another port than 8000
    ("rules/streaming.py", "if timeout_seconds(value) != timeout_seconds(expected):", "if value != expected:",
     "streaming-timeout-mismatch"),  # timeouts compared as text: 180.0 taken for another timeout
    ("rules/streaming.py", "if timeout_seconds(value) != timeout_seconds(expected):",
     "if timeout_seconds(value) > timeout_seconds(expected):", "streaming-timeout-mismatch"),  # != loosened to >
    ("rules/webhook_annotations.py", 'GROVE_UPDATE_STRATEGY: (("RollingRecreate", "OnDelete"), False),',
     'GROVE_UPDATE_STRATEGY: (("RollingRecreate", "OnDelete"), True),',
     "operator-annotation-invalid"),  # the update strategy read case-insensitively, as the webhook does not
    ("defaulting.py", 'enable is not None and enable.lower() == "false"', 'enable is not None and enable == "false"',
     "provider-override-invalid"),  # enable-grove read case-sensitively: FALSE taken for Grove on
    ("rules/webhook_components.py", "amount is not None and amount < 0", "amount is not None and amount <= 0",
     "shared-memory-negative"),  # a size at the bound, 0, refused
    ("quantity.py", "    text = as_str(text)\n    if not text:",
     "    text = as_str(text)\n    text = text and text.strip()\n    if not text:",
     "resource-quantity-invalid"),  # spaces trimmed, as Kubernetes' ParseQuantity does not
    ("rules/model_selection.py", "if tp * dp != count:", "if tp * dp > count:",
     "tags-selector-mismatch"),  # != loosened to >: too few GPUs selected let through
    ("model/objects.py", "return int(value) if value is not None else 0",
     "return int(float(quantity)) if quantity is not None and quantity.isdigit() else 0",
     "gpu-count-unsupported"),  # GPU counts read as plain integers: 1000m taken for no GPU
    ("rules/video.py", "    return str(number) if number is not None else text\n", "    return text\n",
     "video-num-frames-mismatch"),  # frame counts compared as text: " 064 " taken for another count
    # rules a-m
    ("rules/admission.py", "graph.backend_framework not in BACKEND_FRAMEWORKS",
     '(graph.backend_framework or "").lower() not in BACKEND_FRAMEWORKS',
     "backend-framework-invalid"),  # the enum read case-insensitively
    ("rules/cache.py", "if pods <= 1 or", "if pods <= 2 or", "cache-access-mode"),  # two pods let through
    ("rules/cache.py", "elif mount.volume not in known and mount.volume != cache:",
     "elif mount.volume not in known:", "volume-mount-unknown"),  # the compilation cache's claim unknown to main
    ("rules/cache.py", "elif mount.volume not in known and", "elif mount.volume not in listed and",
     "volume-mount-unknown"),  # a claim object of the set not counted
    ("rules/cache.py", "if mount.volume in volumes or mount.volume in added and not main:",
     "if mount.volume in volumes:", "volume-mount-unknown"),  # a sidecar's mount of an added volume refused
    ("rules/cache.py", "                    if not main:\n", "                    if True:\n",
     "volume-mount-unknown"),  # the main container's claim volumes refused
    ("rules/cache.py", 'if cache_path and cache_path.rstrip("/") != NIM_CACHE_PATH:',
     'if cache_path and cache_path.rstrip("/").lower() != NIM_CACHE_PATH:',
     "cache-mount-path"),  # a path compared case-insensitively
    ("rules/webhook_gpu.py", "if component.type.text not in GMS_COMPONENT_TYPES:",
     'if (component.type.text or "").lower() not in GMS_COMPONENT_TYPES:',
     "gpu-memory-service-invalid"),  # the component type read case-insensitively
    ("rules/webhook_gpu.py", "shadows not in (0, 1)", "shadows > 2", "failover-invalid"),  # 2 shadows let through
    ("rules/webhook_gpu.py", "component.alpha and mode == INTRA_POD and",
     'component.alpha and as_str(as_map(failover.value).get("mode")) == "intraPod" and',
     "failover-invalid"),  # the mode read as written: the CRD's default intraPod for an unset one forgotten
    ("webhook_component.py", "if isinstance(self.raw.get(\"frontendSidecar\"), dict) and", "if False and",
     "gpu-memory-service-invalid"),  # the v1alpha1 frontend sidecar's container sidecar-frontend forgotten
    ("webhook_component.py", 'if self.field("sharedMemory", "disabled").value is True:', "if False:",
     "shared-memory-negative"),  # v1alpha1 disabled shared memory's size checked, which the conversion drops
    ("webhook_component.py", 'if self.field("sharedMemory", "disabled").value is True:',
     'if self.field("sharedMemory", "disabled").present:', "shared-memory-negative"),  # disabled: false taken for true
    ("cosmos.py", "return go_trim_space(tag) if tag is not None else None", "return tag",
     "runtime-version-required"),  # spaces around the tag kept, which the operator trims
    ("scalars.py", "return text.strip(GO_SPACE)", "return text.strip()",
     "runtime-version-required"),  # Python's whitespace trimmed, which holds four controls Go's does not
    ("rules/webhook_gpu.py", "return None if int(text) > 0 else", "return None if int(text) >= 0 else",
     "gpu-power-limit-invalid"),  # > loosened to >=: zero watts accepted
    ("rules/webhook_gpu.py", "not _DECIMAL_INT.fullmatch(text)", "not _DECIMAL_INT.fullmatch(text.strip())",
     "gpu-power-limit-invalid"),  # spaces accepted, which Go's Atoi refuses
    ("cosmos.py", 'if name == "NIM_TAGS_SELECTOR" and before is not None and after is not None:', "if False:",
     "download-job-model-mismatch"),  # the tags selector compared as text: order and spaces matter again
    ("defaulting.py", 'enable is not None and enable.lower() == "false"', 'enable is not None and enable == "false"',
     "grove-pathway-required"),  # FALSE no longer read as off
    ("webhook_model.py", "        if self.previous is not None:\n            if provider is not None:",
     "        if False:\n            if provider is not None:",
     "grove-pathway-required"),  # an update judged as a create: enable-grove read instead of the stored provider
    ("webhook_model.py", 'if provider_at_create(self.obj.annotations) == "component":',
     'if provider_at_create(self.obj.annotations) == "component" or (provider and provider.text != "grove"):',
     "grove-pathway-required"),  # the manifest's provider read on create, where the operator overwrites it
    ("defaulting.py", "return written if written is not None else provider_at_create(previous.annotations)",
     'return written if written is not None else "grove"',
     "grove-name-budget"),  # the provider written at create taken for grove whatever enable-grove said
    ("rules/webhook_annotations.py", "if key == WORKLOAD_PROVIDER and view.previous is None:", "if False:",
     "operator-annotation-invalid"),  # the workload provider checked on create, where the operator overwrites it
    ("label_syntax.py", "if len(name) > 253:", "if len(name) > 254:",
     "kv-transfer-policy-name-invalid"),  # off by one: 254 characters accepted
    ("rules/fastvideo.py", "if count % (tp * sp) != 0:", "if tp * sp > count:",
     "fastvideo-parallelism-invalid"),  # "divides" loosened to "does not exceed"
    ("rules/gpu_fit.py", "if p.capability < capability_tuple(floor)]", "if p.compute_capability < floor]",
     "gpu-compute-capability"),  # capabilities compared as text: 10.0 sorts below 8.9
    ("rules/disruption.py", "if int(value[:-1]) > 100:", "if int(value[:-1]) >= 100:",
     "disruption-budget-invalid"),  # 100% refused
    ("rules/disruption.py", "if value < 0 else None", "if value <= 0 else None",
     "disruption-budget-invalid"),  # a count of 0 refused
    ("rules/syntax.py", 'if name in (".", ".."):', 'if not name.strip("."):',
     "object-metadata-invalid"),  # an RBAC name of three dots refused like '..'
    ("rules/syntax.py", 'for mark in ("/", "%")', 'for mark in ("/",)',
     "object-metadata-invalid"),  # a '%' in an RBAC name taken
    ("rules/network_policy.py", "if end < number:", "if end <= number:",
     "network-policy-invalid"),  # a range of one port refused
    ("rules/network_policy.py", "inner.prefixlen > network.prefixlen", "inner.prefixlen >= network.prefixlen",
     "network-policy-invalid"),  # an exception as wide as its block taken
    ("rules/autoscaler.py", "not 0 <= window <= MAX_STABILIZATION_SECONDS",
     "not 0 <= window < MAX_STABILIZATION_SECONDS", "autoscaler-spec-invalid"),  # a window of 3600 s refused
    ("rules/autoscaler.py", "not 1 <= period <= MAX_PERIOD_SECONDS", "not 1 <= period < MAX_PERIOD_SECONDS",
     "autoscaler-spec-invalid"),  # a policy period of 1800 s refused
    ("rules/autoscaler.py", "if value is not None and value <= 0:", "if value is not None and value < 0:",
     "autoscaler-spec-invalid"),  # a policy value of 0 taken
    ("rules/autoscaler.py", "utilization is not None and utilization < 1:\n        yield path",
     "utilization is not None and utilization < 0:\n        yield path",
     "autoscaler-spec-invalid"),  # an averageUtilization of 0 taken
    ("rules/autoscaler.py", 'utilization is not None and utilization < 1:\n            yield ("spec"',
     'utilization is not None and utilization < 0:\n            yield ("spec"',
     "autoscaler-spec-invalid"),  # a v1 targetCPUUtilizationPercentage of 0 taken
    ("rules/autoscaler.py", "floor = 0 if scale_to_zero else 1", "floor = 1",
     "autoscaler-spec-invalid"),  # scaling to zero refused beside an Object or External metric
    ("rules/autoscaler.py", 'in ("Object", "External") for metric', 'in ("Object",) for metric',
     "autoscaler-spec-invalid"),  # an External metric no longer lets an autoscaler scale to zero
    ("rules/autoscaler.py", "high is not None and low is not None and high < low",
     "high is not None and low is not None and high <= low", "autoscaler-spec-invalid"),  # max = min refused
    ("rules/autoscaler.py", "parsed is not None and parsed <= 0", "parsed is not None and parsed < 0",
     "autoscaler-spec-invalid"),  # a target quantity of 0 taken
    ("rules/autoscaler.py", "amount is not None and amount < 0", "amount is not None and amount <= 0",
     "autoscaler-spec-invalid"),  # a tolerance of 0 refused
    ("rules/autoscaler.py", "isinstance(policies, list) and not policies", "not policies",
     "autoscaler-spec-invalid"),  # policies left out (defaulted) refused
    ("rules/autoscaler.py", '!= "ReplicationController"', '!= ""',
     "autoscaler-spec-invalid"),  # a ReplicationController's v1 refused
    ("rules/autoscaler.py", 'for part in ("/", "%")', 'for part in ("/",)',
     "autoscaler-spec-invalid"),  # a '%' in a metric name taken
    ("rules/rbac.py", '"ClusterRoleBinding": ("ClusterRole",)}', '"ClusterRoleBinding": ("Role", "ClusterRole")}',
     "rbac-spec-invalid"),  # a ClusterRoleBinding to a Role taken
    ("rules/rbac.py", 'for key in ("apiGroups", "resources", "resourceNames")', 'for key in ("apiGroups", "resources")',
     "rbac-spec-invalid"),  # URLs beside resourceNames alone taken
    ("rules/rbac.py", "if not namespaced and not as_str(subject.get(\"namespace\")):",
     "if not as_str(subject.get(\"namespace\")):", "rbac-spec-invalid"),  # a RoleBinding's ServiceAccount needs one
    ("rules/rbac.py", "elif group and group != RBAC_GROUP:", "elif group != RBAC_GROUP:",
     "rbac-spec-invalid"),  # a User without apiGroup (defaulted) refused
    ("rules/rbac.py", "if namespaced:", "if False:", "rbac-spec-invalid"),  # URLs in a Role taken
    ("rules/quota.py", "and value[low] > value[high]:", "and value[low] >= value[high]:",
     "quota-spec-invalid"),  # min equal to max refused
    ("rules/quota.py", "if ratio is not None and ratio < 1:", "if ratio is not None and ratio <= 1:",
     "quota-spec-invalid"),  # a ratio of 1 refused
    ("rules/quota.py", "return bound if value > bound else None", "return bound if value >= bound else None",
     "quota-spec-invalid"),  # a ratio of max/min exactly refused
    ("rules/quota.py", "if _integer(resource) and _ceil(value, 3) % 1000:",
     "if _integer(resource) and value % 1:", "quota-spec-invalid"),  # pods 1.9999 refused (the server rounds it up)
    ("rules/quota.py", "return name in _OBJECT_COUNTS or _extended(name)", "return name in _OBJECT_COUNTS",
     "quota-spec-invalid"),  # a fraction of count/jobs.batch taken
    ("rules/quota.py", 'not name.startswith("requests.") and', "",
     "quota-spec-invalid"),  # requests.nvidia.com/gpu counted in whole units
    ("rules/quota.py", '    if kind == "Container":\n        for target', '    if False:\n        for target',
     "quota-spec-invalid"),  # a Container's defaults not filled in as the server fills them
    ("rules/quota.py", '"BestEffort": {"pods"}', '"BestEffort": {"pods", "requests.cpu"}',
     "quota-spec-invalid"),  # BestEffort with a cpu quota taken
    ("rules/service.py", "not 1 <= number <= 65535:", "not 1 <= number < 65535:",
     "service-spec-invalid"),  # port 65535 refused
    ("rules/service.py", "if low <= number <= high:", "if low < number <= high:",
     "service-spec-invalid"),  # node port 30000, the range's first, refused
    ("rules/service.py", "if low <= number <= high:", "if low <= number < high:",
     "service-spec-invalid"),  # node port 32767, the range's last, refused
    ("rules/service.py", "not 0 < timeout <= MAX_AFFINITY_SECONDS", "not 0 < timeout < MAX_AFFINITY_SECONDS",
     "service-spec-invalid"),  # a 86400-second affinity refused
    ("rules/service.py", "not 0 < timeout <= MAX_AFFINITY_SECONDS", "not 0 <= timeout <= MAX_AFFINITY_SECONDS",
     "service-spec-invalid"),  # a zero affinity timeout taken
    ("rules/service.py", "if not name and len(ports) > 1:", "if not name and len(ports) > 0:",
     "service-spec-invalid"),  # a lone port's name required
    ("rules/service.py", "(allocates and earlier and", "(earlier and",
     "service-spec-invalid"),  # an ExternalName's node port, which nothing allocates, held to one port number
    ("rules/service.py", "any(other == protocol for _number, other in earlier) or ", "",
     "service-spec-invalid"),  # two ports of one protocol on one node port taken where nothing is allocated
    ("rules/service.py", "if target not in (None, 0, \"\")", "if target not in (None, \"\")",
     "service-spec-invalid"),  # targetPort 0 refused, which the defaults make the port
    ("rules/service.py", "if protocol not in PROTOCOLS:", "if protocol.upper() not in PROTOCOLS:",
     "service-spec-invalid"),  # protocol tcp taken
    ("rules/service.py", '.removesuffix(".")', "", "service-spec-invalid"),  # a fully qualified externalName refused
    ("rules/service.py", "parse_cidr(text.strip(), strict)", "parse_cidr(text, strict)",
     "service-spec-invalid"),  # a source range with spaces around it refused
    ("rules/service.py", 'if single == "None" and not as_map(spec.get("selector")) else', 'if single == "None" else',
     "service-spec-invalid"),  # a headless Service with a selector taken for dual-stack by default
    ("rules/service.py", ' or (kind == "ClusterIP" and as_list(spec.get("externalIPs")))', "",
     "service-spec-invalid"),  # a ClusterIP Service's external IPs not counted as reachable from outside
    ("rules/metadata.py", "return dns1123_label_problem if relaxed_service_names else dns1035_label_problem",
     "return dns1035_label_problem", "object-metadata-invalid"),  # a Service name starting with a digit refused
    ("rules/metadata.py", '_LABEL_KINDS = {"Service"}', "_LABEL_KINDS: set = set()",
     "object-metadata-invalid"),  # a Service name read as a subdomain: dots and 64 characters taken
    ("rules/ingress.py", '_BAD_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")',
     '_BAD_SEQUENCES = ("//", "/./", "/../", "%2f")', "ingress-spec-invalid"),  # %2F no longer seen
    ("rules/scheduling.py", "if type(weight) is int and not 1 <= weight <= 100:",
     "if type(weight) is int and not 1 <= weight < 100:", "scheduling-spec-invalid"),  # weight 100 refused
    ("rules/scheduling.py", "if type(skew) is int and skew <= 0:", "if type(skew) is int and skew < 0:",
     "scheduling-spec-invalid"),  # maxSkew 0 taken
    ("rules/probes.py", "success not in (None, 0, 1)", "success not in (None, 1)",
     "pod-spec-invalid"),  # an unset (0) successThreshold, which the server defaults to 1, refused
    ("rules/probes.py", "grace <= 0:", "grace < 0:", "pod-spec-invalid"),  # a probe grace of 0 taken
    ("rules/probes.py", "seconds > grace)", "seconds >= grace)",
     "pod-spec-invalid"),  # a sleep as long as the grace period refused
    ("rules/pod_resources.py", 'if as_str(raw.get("restartPolicy")) == "Always":',
     'if as_str(raw.get("restartPolicy")) == "Never":', "pod-spec-invalid"),  # a sidecar counted as a plain init
    ("rules/pod_resources.py", "running = dict(started)", "running = {}",
     "pod-spec-invalid"),  # a plain init container counted without the sidecars started before it
    ("rules/pod_resources.py", "**written} if defaulted", "**written} if False",
     "pod-spec-invalid"),  # a created pod's limit no longer standing for its missing request
    ("rules/pod_resources.py", "if own is not None and needed > own:", "if own is not None and needed >= own:",
     "pod-spec-invalid"),  # a pod request equal to its containers' together refused
    ("rules/pod_resources.py", 'resource.startswith("hugepages-") and limit is not None and needed > limit',
     'resource.startswith("hugepages-") and limit is not None and needed >= limit',
     "pod-spec-invalid"),  # a pod hugepages limit equal to its containers' together refused
    ("rules/pod_resources.py", 'and resource not in tables["requests"] and resource not in over:',
     'and resource not in tables["requests"]:', "pod-spec-invalid"),  # one cause said twice
    ("rules/cluster_kinds.py", "elif value is not None and value > HIGHEST_USER_PRIORITY:",
     "elif value is not None and value >= HIGHEST_USER_PRIORITY:", "priority-class-invalid"),  # the top refused
    ("rules/cluster_kinds.py", 'PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")',
     'PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never", "never")',
     "priority-class-invalid"),  # a policy read without its case
    ("rules/cluster_kinds.py", 'if obj.value.get("globalDefault") is True:\n            if first_default',
     'if obj.value.get("globalDefault") is not None:\n            if first_default',
     "priority-class-invalid"),  # globalDefault: false counted as a default
    ("rules/cluster_kinds.py", 'elif "/" not in text and text not in STANDARD_FINALIZERS:',
     "elif text not in STANDARD_FINALIZERS:", "namespace-spec-invalid"),  # a qualified finalizer refused
    ("rules/storage_class.py", "qualified_name_problem(provisioner.lower())", "qualified_name_problem(provisioner)",
     "storage-class-invalid"),  # a provisioner with capitals refused
    ("rules/storage_class.py", 'RECLAIM_POLICIES = ("Delete", "Retain")',
     'RECLAIM_POLICIES = ("Delete", "Retain", "Recycle")', "storage-class-invalid"),  # Recycle taken
    ("rules/storage_class.py", "if not expressions:", "if False:",
     "storage-class-invalid"),  # an empty term taken
    ("rules/storage_class.py", "elif expressions in seen:", "elif False:",
     "storage-class-invalid"),  # a term given twice taken
    ("volume_binding.py", "whole_bytes=named)", "whole_bytes=True)",
     "claim-volume-mismatch"),  # a reserved volume compared in whole bytes
    ("volume_binding.py", "whole_bytes=named)", "whole_bytes=False)",
     "claim-volume-mismatch"),  # a named volume compared to the fraction of a byte
    ("volume_binding.py", "if wanted is not UNSET and wanted != held:", "if wanted != held:",
     "claim-volume-default-class"),  # an unset class read as none
    ("volume_binding.py", 'return as_str(spec.get("volumeMode")) or "Filesystem"',
     'return as_str(spec.get("volumeMode")) or ""', "claim-volume-mismatch"),  # an unset mode not Filesystem
    ("volume_binding.py",
     "        return\n    yield from fit_problems(claim, volume, attributes_class, named=True)",
     "        pass\n    yield from fit_problems(claim, volume, attributes_class, named=True)",
     "claim-volume-mismatch"),  # volumes that name each other checked
    ("volume_binding.py", "(not uid or uid == as_str(", "(True or uid == as_str(",
     "claim-volume-mismatch"),  # a claimRef's uid ignored
    ("rules/claim_binding.py", "elif first_reserved.setdefault(id(claim), volume) is not volume:", "elif False:",
     "claim-volume-mismatch"),  # two volumes reserved for one claim taken
    ("rules/claim_binding.py", "if first is not made and claim_ref(volume) is None:", "if False:",
     "claim-volume-mismatch"),  # a volume named by two claims taken
    ("rules/claim_binding.py", 'get("volumeName")) == volume.name:', 'get("volumeName")) == "":',
     "claim-volume-mismatch"),  # a claim bound both ways read as passing its volume over
    ("rules/claim_binding.py", "if BIND_COMPLETED not in made.claim.annotations})",
     "})", "claim-volume-mismatch"),  # a claim exported bound read as a new one
    ("volume_binding.py", "if mode and mode not in offered]", "if False]",
     "claim-volume-mismatch"),  # access modes not compared
    ("rules/persistent_volume.py", "if amount is not None and amount <= 0:", "if amount is not None and amount < 0:",
     "persistent-volume-invalid"),  # a capacity of 0 taken
    ("rules/persistent_volume.py", "amount = go_quantity(go_trim_space(text))", "amount = go_quantity(text)",
     "persistent-volume-invalid"),  # a capacity read without the decoder's trimming
    ("rules/persistent_volume.py", "        if value is None:  # a null quantity",
     "        if False:  # a null quantity", "persistent-volume-invalid"),  # a null capacity (read as 0) taken
    ("rules/persistent_volume.py", "if \"ReadWriteOncePod\" in modes and len(set(modes) & set(ACCESS_MODES)) > 1:",
     "if \"ReadWriteOncePod\" in modes and len(set(modes) & set(ACCESS_MODES)) > 2:",
     "persistent-volume-invalid"),  # ReadWriteOncePod beside one other mode taken
    ("rules/persistent_volume.py", "    return not kept", "    return path == \"/\"",
     "persistent-volume-invalid"),  # a hostPath of '//' not read as the root
    ("rules/persistent_volume.py", "if mode is not None and mode not in VOLUME_MODES:",
     "if mode and mode not in VOLUME_MODES:", "persistent-volume-invalid"),  # an empty volumeMode taken
    ("rules/persistent_sources.py", "if counted and kind != \"flexVolume\":", "if counted:",
     "persistent-volume-invalid"),  # a flexVolume refused as a second source
    ("rules/persistent_sources.py", "counted, kinds = 0, written_sources(spec)",
     "counted, kinds = 0, [kind for kind in spec if kind in SOURCE_ORDER and spec[kind] is not None]",
     "persistent-volume-invalid"),  # the sources read in the file's order, not the server's
    ("rules/persistent_sources.py", "in_tree_problems(kind, source, where, name, where + (\"targetPortal\",))",
     "in_tree_problems(kind, source, where, None, where + (\"targetPortal\",))",
     "persistent-volume-invalid"),  # an iscsi length read without the volume's name
    ("rules/persistent_sources.py", "if kind == \"local\" and spec.get(\"nodeAffinity\") is None:", "if False:",
     "persistent-volume-invalid"),  # a local volume without nodeAffinity taken
    ("rules/persistent_sources.py", "\"glusterfs\", \"nfs\", \"rbd\",", "\"glusterfs\", \"rbd\",",
     "persistent-volume-invalid"),  # the mount-options annotation refused on nfs
    ("rules/volume_sources.py", "return \"must be no more than 63 characters\" if len(driver) > 63",
     "return \"must be no more than 63 characters\" if len(driver) > 64",
     "persistent-volume-invalid"),  # a csi driver name of 64 characters taken
    ("rules/runtime_class.py", "elif dns1123_label_problem(handler):",
     "elif dns1123_label_problem(handler.replace('.', '-')):", "runtime-class-invalid"),  # a dotted handler taken
    ("rules/runtime_class.py", 'for name in ("key", "operator", "value", "effect"))',
     'for name in ("key", "value", "effect"))', "runtime-class-invalid"),  # an empty operator taken for Equal
    ("rules/runtime_class.py", "if overhead is not None and isinstance(overhead, dict):",
     "if overhead and isinstance(overhead, dict):", "runtime-class-invalid"),  # an empty overhead taken as none
    ("rules/runtime_class.py", "if overhead and _same_amounts(overhead, fixed) is False:",
     "if _same_amounts(overhead, fixed) is False:", "runtime-class-invalid"),  # {} refused beside a class's
    ("rules/runtime_class.py", "amounts = {str(k): parse_quantity(as_str(v)) for k, v in ours.items()}",
     "amounts = {str(k): as_str(v) for k, v in ours.items()}", "runtime-class-invalid"),  # compared as text
    ("rules/runtime_class.py", "and required[key] != value:", "and required[key].lower() != value.lower():",
     "runtime-class-invalid"),  # a node label's value compared without case
    ("rules/pod_resources.py", "problem = container_resource_name_problem(str(resource))", "problem = None",
     "runtime-class-invalid"),  # an overhead's resource names taken
    ("rules/ingress_class.py", "if len(controller) > MAX_CONTROLLER:", "if len(controller) >= MAX_CONTROLLER:",
     "ingress-class-invalid"),  # a controller of 250 characters refused
    ("rules/ingress_class.py", "MAX_CONTROLLER = 250", "MAX_CONTROLLER = 251",
     "ingress-class-invalid"),  # a controller of 251 characters taken
    ("rules/ingress_class.py", r"""[A-Za-z0-9/\-._~%!$&'()*+,;=:]+""", r"[A-Za-z0-9/\-._]+",
     "ingress-class-invalid"),  # a path's other URL characters refused
    ("rules/ingress_class.py", 'is not None else "Cluster"', 'is not None else "Namespace"',
     "ingress-class-invalid"),  # a namespace taken without a scope
    ("rules/ingress_class.py", "elif namespace is not None:", "elif namespace:",
     "ingress-class-invalid"),  # an empty namespace taken with scope Cluster
    ("rules/ingress.py", 'yield path + ("apiGroup",), f"{what} apiGroup is empty', "pass  # ",
     "ingress-class-invalid"),  # an empty apiGroup taken
    ("rules/resource_claim.py", "MAX_REQUESTS = 32", "MAX_REQUESTS = 33",
     "resource-claim-invalid"),  # 33 requests taken
    ("rules/resource_claim.py", "if len(items) > limit:", "if len(items) >= limit:",
     "resource-claim-invalid"),  # 32 constraints or configs refused
    ("rules/resource_claim.py", "MAX_SUBREQUESTS = 8", "MAX_SUBREQUESTS = 7",
     "resource-claim-invalid"),  # 8 subrequests refused
    ("rules/device_config.py", "MAX_SELECTORS = 32", "MAX_SELECTORS = 33",
     "resource-claim-invalid"),  # 33 selectors taken
    ("rules/device_config.py", "MAX_PARAMETERS = 10 * 1024", "MAX_PARAMETERS = 10 * 1024 - 1",
     "resource-claim-invalid"),  # parameters of 10240 bytes refused
    ("go_json.py", 'return "{" + ",".join(f"{_go_string(str(key))}:{marshal(item)}"',
     'return "{ " + ", ".join(f"{_go_string(str(key))}: {marshal(item)}"',
     "resource-claim-invalid"),  # JSON counted with spaces
    ("rules/device_cel.py", "MAX_EXPRESSION = 10 * 1024", "MAX_EXPRESSION = 10 * 1024 + 1",
     "resource-claim-invalid"),  # an expression of 10241 bytes taken
    ("rules/resource_claim.py", "elif mode == \"ExactCount\" and count is not None and count < 0:",
     "elif mode == \"ExactCount\" and count is not None and count <= 0:",
     "resource-claim-invalid"),  # count 0 refused (the v1 default makes it 1)
    ("rules/resource_claim.py", 'mode = as_str(request.get("allocationMode")) or "ExactCount"',
     'mode = as_str(request.get("allocationMode")) or "All"', "resource-claim-invalid"),  # the wrong default
    ("rules/resource_claim.py", 'operator = as_str(toleration.get("operator")) or "Equal"',
     'operator = as_str(toleration.get("operator"))', "resource-claim-invalid"),  # "" not defaulted to Equal
    ("rules/resource_claim.py", "if len(parts) > 2:\n        return None", "if len(parts) > 2:\n        return 'x'",
     "resource-claim-invalid"),  # a name with a second '/' refused
    ("rules/resource_claim.py", "else dns1123_subdomain_problem(domain)", "else csi_driver_problem(domain)",
     "resource-claim-invalid"),  # an attribute's domain in capitals taken
    ("rules/resource_claim.py", "(subrequests is not None and parts[1] in subrequests)", "True",
     "resource-claim-invalid"),  # any subrequest taken
    ("rules/device_cel.py", "if field not in DEVICE_FIELDS]", "if field not in DEVICE_FIELDS and False]",
     "resource-claim-invalid"),  # a misspelt device field taken (review R5)
    ("rules/device_cel.py", "    if _ORDERED.search(code):", "    if False:",
     "resource-claim-invalid"),  # a quantity compared with >= taken (review R5)
    ("model/claims.py", 'if obj.kind == "StatefulSet" and obj.group == "apps":', "if False:",
     "claim-volume-mismatch"),  # a StatefulSet's claim templates not read
    ("model/claims.py", "claim = from_pvcs_entry(graph.obj, entry, path)", "claim = None",
     "claim-volume-mismatch"),  # the claim of a v1alpha1 spec.pvcs entry not read
    ("model/pod.py", 'if self.obj.kind == "StatefulSet":', "if False:",
     "pod-spec-invalid"),  # a mount of a StatefulSet's claim template refused
    ("rules/device_cel.py", "compilers.typed.compile(_has_fields_as_true(expression))",
     "compilers.typed.compile(expression)", "resource-claim-invalid"),  # has(device.driver) typed as a string
    ("rules/device_cel.py", "ext_optional.ExtOptional(), _cross_type_comparisons(cel)]", "ext_optional.ExtOptional()]",
     "resource-claim-invalid"),  # an int compared with a double refused (cel-go takes it)
    ("rules/device_cel.py", "[self.quantity], False,", "[self.quantity], True,",
     "resource-claim-invalid"),  # sign(q) refused and q.sign() taken (Kubernetes' sign is a function)
    ("rules/device_cel.py", 't("google.protobuf.Any")', "t.DYN",
     "resource-claim-invalid"),  # an attribute beside dyn(1) in a literal, a comprehension over one taken
    ("rules/device_cel.py", "elif undeclared is not None and undeclared[1] in CHECKED_FUNCTIONS:", "elif False:",
     "resource-claim-invalid"),  # a quantity method given one argument too many taken
    ("rules/device_cel.py", "elif ranged is not None:", "elif False:",
     "resource-claim-invalid"),  # a comprehension over an attribute taken
    ("rules/device_cel.py", "mixed = cel_ast.mixed_literal(tree) if tree is not None else None", "mixed = None",
     "resource-claim-invalid"),  # [1, "a"] taken
    ("rules/cel_ast.py", "        if exempt:\n            continue", "        if False:\n            continue",
     "resource-claim-invalid"),  # format's list of arguments of mixed types refused
    ("rules/cel_ast.py", "kind = kind.abstract_type.parameter_types[0]", "pass",
     "resource-claim-invalid"),  # [?optional.of(1), 2] refused (an optional beside an int)
    ("rules/cel_ast.py", "found = mismatch([typed(e.map_key) for e in entries]) or \\", "found = \\",
     "resource-claim-invalid"),  # {"a": 1, 2: 1} taken
    ("rules/device_cel.py", "if match is not None and match[1] in CHECKED_FUNCTIONS:", "if match is not None:",
     "resource-claim-invalid"),  # a list's indexOf (Kubernetes' list library) refused
    ("rules/device_cel.py", "\"device.capacity\": capacity}", "\"device.capacity\": nested}",
     "resource-claim-invalid"),  # a capacity compared with an int taken
    ("rules/device_cel.py", "_STRINGS.sub('\"\"', expression)", "expression",
     "resource-claim-invalid"),  # a field named inside a string refused
    ("rules/device_cel.py", "if names and not any(", "if names and any(",
     "resource-claim-invalid"),  # a Kubernetes library name taken for the user's mistake
    ("rules/metadata.py", 'return not (value == "" or (', "return not ((",
     "resource-claim-invalid"),  # an empty template name taken for one set
    ("rules/metadata.py", "if key in _POINTER_FIELDS or isinstance(", "if isinstance(",
     "resource-claim-invalid"),  # a template's deletionGracePeriodSeconds of 0 taken for unset
    ("rules/metadata.py", "if key in _POINTER_FIELDS or isinstance(", "if isinstance(",
     "pod-spec-invalid"),  # the same in an ephemeral volume's claim template
    ("rules/resource_claim.py", 'if key not in ("labels", "annotations") and', 'if key not in ("labels",) and',
     "resource-claim-invalid"),  # template annotations refused
    ("rules/device_class.py", 'if "/" not in name or "kubernetes.io/" in name:', 'if "/" not in name:',
     "device-class-invalid"),  # an extended resource in kubernetes.io taken
    ("rules/resource_claim.py", "MAX_CONFIG = 32", "MAX_CONFIG = 33",
     "device-class-invalid"),  # 33 configs taken
    ("rules/device_config.py", "MAX_SELECTORS = 32", "MAX_SELECTORS = 31",
     "device-class-invalid"),  # 32 selectors refused
    ("rules/metadata.py", '"ResourceClaimTemplate", "DeviceClass"}', '"ResourceClaimTemplate"}',
     "object-metadata-invalid"),  # a DeviceClass's name left unread
    ("rules/autoscaler_target.py", '"apps": {"DaemonSet"},', '"apps": {"DaemonSet", "StatefulSet"},',
     "autoscaler-target-unscalable"),  # a StatefulSet taken for unscalable
    ("rules/autoscaler_target.py", 'api_group(as_str(target.get("apiVersion")) or "")',
     'as_str(target.get("apiVersion")) or ""', "autoscaler-target-unscalable"),  # the group read with its version
    ("rules/coverage.py", "return bool(obj.kind) and bool(obj.api_version) and not obj.is_custom",
     "return bool(obj.kind) and bool(obj.api_version)", "kind-validation-not-modelled"),  # a custom kind noted
    ("rules/coverage.py", 'yield Hit(objects[0], ("kind",)', 'yield Hit(objects[-1], ("kind",)',
     "kind-validation-not-modelled"),  # the note on the kind's last object, not its first
    ("rules/metadata.py", 'if obj.kind in _NAMESPACE_KINDS and obj.group == "":', "if False:",
     "object-metadata-invalid"),  # a Namespace's name read as a subdomain: dots taken
    ("rules/metadata.py", "if obj.cluster_scoped or not isinstance(namespace, str)",
     "if not isinstance(namespace, str)",
     "object-metadata-invalid"),  # a cluster-wide kind's namespace, which the server clears, refused
    ("rules/metadata.py", "problem = dns1123_label_problem(namespace)",
     "problem = dns1123_subdomain_problem(namespace)",
     "object-metadata-invalid"),  # a namespace read as a subdomain: 64 characters taken
    ("rules/hygiene.py", 'key = (group, obj.kind, obj.namespace if scoped else "", obj.name)',
     "key = (group, obj.kind, obj.namespace, obj.name)",
     "duplicate-object"),  # a namespace written on a cluster-wide object taken for another object
    ("rules/pods.py", "OPERATOR_GRACE_SECONDS = 60", "OPERATOR_GRACE_SECONDS = 61",
     "pod-spec-invalid"),  # a DGD sleep past the operator's grace period taken
    ("rules/pods.py", "OPERATOR_EPP_GRACE_SECONDS = 130", "OPERATOR_EPP_GRACE_SECONDS = 131",
     "pod-spec-invalid"),  # an endpoint picker's sleep past its grace period taken
    ("rules/pods.py", 'if component_type == "epp" else', 'if component_type == "EPP" else',
     "pod-spec-invalid"),  # an endpoint picker given the other components' grace period
    ("rules/security.py", "MAX_ID = 2**31 - 1", "MAX_ID = 2**31", "security-context-invalid"),  # int32 bound lost
    ("rules/security.py", "not 0 <= value <= MAX_ID:\n            yield where + (name,)",
     "not 0 < value <= MAX_ID:\n            yield where + (name,)", "security-context-invalid"),  # user 0 refused
    ("rules/downward.py", 'if written is None or written == "0":', 'if written is None or written == "0" or True:',
     "env-source-invalid"),  # divisors no longer read: 1Mi taken for a CPU
    ("quantity.py", "and not shifted.endswith(\"000\")", "", "env-source-invalid"),  # "1000" kept as written
    ("rules/downward.py", 'if field_path == "spec.host":', 'if False:', "env-source-invalid"),  # spec.host refused
    ("rules/env_sources.py", 'name[:-2] + "a" if prefix and', 'name if prefix and',
     "env-source-invalid"),  # an envFrom name with a trailing '-' refused
    ("rules/pod_fields.py", 'if text is None or (defaulted and text == ""):', "if text is None:",
     "pod-spec-invalid"),  # an empty dnsPolicy, which the server defaults, refused
    ("quantity.py", "digits = whole  #", 'digits = "" if whole == "0" else whole  #',
     "env-source-invalid"),  # "0.1e1" kept as written, so refused as a divisor
    ("rules/pod_fields.py", "if len(servers) > 3:", "if len(servers) > 4:", "pod-spec-invalid"),  # four taken
    ("rules/pod_fields.py", 'trimmed = name[:-1] if name.endswith(".") else name', "trimmed = name",
     "pod-spec-invalid"),  # a search domain's trailing dot refused
    ("rules/pod_fields.py", 'elif restart == "RestartContainer" and (pod_restart == "Never" or',
     'elif restart == "RestartContainer" and (', "pod-spec-invalid"),  # RestartContainer taken in a Never pod
    ("rules/jobs.py", "if dns1123_label_problem(hostname):", "if len(hostname) >= 63:",
     "pod-spec-invalid"),  # an Indexed Job's 63-character hostname refused
    ("rules/jobs.py", 'if spec.get("completions") is None and spec.get("parallelism") is not None:',
     'if spec.get("completions") is None:', "pod-spec-invalid"),  # the defaults of an Indexed Job forgotten
    ("rules/jobs.py", "if selects(selector, generated) is False:", "if True:",
     "pod-spec-invalid"),  # a selector on the generated job-name label refused
    ("rules/volume_files.py", 'as_str(item.get("key")) == ""', 'len(as_str(item.get("key")) or "ab") < 2',
     "pod-spec-invalid"),  # a one-character item key refused
    ("rules/volumes.py", 'if volume == "":', 'if volume is not None and len(volume) < 2:',
     "pod-spec-invalid"),  # a one-character volume name refused in a mount
    ("rules/volumes.py", 'if not as_str(source.get("reference")):',
     'if len(as_str(source.get("reference")) or "") < 2:', "pod-spec-invalid"),  # a one-character reference
    ("rules/volumes.py", "if policy and policy not in PULL_POLICIES:",
     "if policy is not None and policy not in PULL_POLICIES:", "pod-spec-invalid"),  # an empty (defaulted) policy
    ("rules/volume_sources.py", 'not nfs_path.startswith("/")', 'not nfs_path.startswith("/") or len(nfs_path) < 2',
     "pod-spec-invalid"),  # the nfs root, "/", refused
    ("rules/volumes.py", "elif dns1123_subdomain_problem(secret):", "elif len(secret) < 2:",
     "pod-spec-invalid"),  # a csi secret name read by length, not syntax
    ("rules/claims.py", 'return as_str(first.get("apiGroup")) == as_str(second.get("apiGroup")) and all(',
     'return (as_str(first.get("apiGroup")) or "") == (as_str(second.get("apiGroup")) or "") and all(',
     "claim-spec-invalid"),  # an apiGroup "" taken for one left out
    ("rules/claims.py", 'if stateful_set.kind == "StatefulSet" and stateful_set.group == "apps":',
     'if stateful_set.kind == "StatefulSet" and stateful_set.group == "":',
     "claim-spec-invalid"),  # a StatefulSet's claim templates left unchecked
    ("rules/claims.py", "name_problem = dns1123_label_problem(written_name) if written_name else None",
     "name_problem = dns1123_subdomain_problem(written_name) if written_name else None",
     "claim-spec-invalid"),  # a claim template's name read as a subdomain, though it names a pod volume
    ("rules/volumes.py", '        elif not name and "name" in volume:', '        elif False:',
     "pod-spec-invalid"),  # a volume named "" taken
    ("model/claims.py", '        del sources["dataSourceRef"]\n', "        pass\n",
     "claim-spec-invalid"),  # a claim's namespaced dataSourceRef kept, though the server drops it
    ("model/claims.py", '            del sources["dataSource"]\n', "            pass\n",
     "claim-spec-invalid"),  # a claim's lone snapshot without apiGroup kept, though the server drops it
    ("rules/claims.py", "sources = _data_sources(spec, claim_object)", "sources = _data_sources(spec, True)",
     "pod-spec-invalid"),  # a claim template's data sources trimmed as a claim's are
    ("rules/claims.py", "if attributes_class and attributes and dns1123_subdomain_problem(attributes):",
     "if attributes_class and attributes and dns1123_label_problem(attributes):",
     "claim-spec-invalid"),  # a volumeAttributesClassName read as a DNS label: dots refused
    ("rules/volumes.py", 'if ".." in device_path.split("/"):', 'if ".." in device_path:',
     "pod-spec-invalid"),  # a devicePath element only starting with '..' taken for a backstep
    ("rules/volumes.py", "elif kind is not None and kind not in BLOCK_SOURCES:",
     'elif kind is not None and kind != "persistentVolumeClaim":', "pod-spec-invalid"),  # ephemeral refused
    ("rules/volumes.py", "if device_path in mount_paths.values():",
     'if device_path.rstrip("/") in [text.rstrip("/") for text in mount_paths.values()]:',
     "pod-spec-invalid"),  # paths compared as directories, not as written: /data/ taken for /data
    ("rules/volumes.py", "elif kind is None and volumes is not None:", "elif volumes is not None and False:",
     "pod-spec-invalid"),  # a device of a volume the pod lacks let through
    ("rules/volumes.py", 'claim = f"{pod_name}-{name}"', 'claim = f"{pod_name}{name}"',
     "pod-spec-invalid"),  # the claim name's '-' not counted: 254 characters taken
    ("rules/volumes.py", 'if pod.obj.kind == "Pod" and pod.path == ("spec",) else None',
     'if pod.path else None', "pod-spec-invalid"),  # a template's workload name taken for its pods'
    ("rules/volume_files.py", "if len(present) > 1:", "if len(present) > 2:",
     "pod-spec-invalid"),  # two kinds in one projected source taken
    ("rules/volume_files.py", "if not 3600 <= seconds <= highest:", "if not 3600 < seconds <= highest:",
     "pod-spec-invalid"),  # a pod certificate's maxExpirationSeconds of an hour refused
    ("rules/volume_files.py", "if not 3600 <= seconds <= highest:", "if not 3600 <= seconds < highest:",
     "pod-spec-invalid"),  # a day (91 days) at its bound refused
    ("rules/volume_files.py", 'host == "kubernetes.io" or host.endswith(".kubernetes.io")', 'host == "kubernetes.io"',
     "pod-spec-invalid"),  # a signer under kubernetes.io given 91 days
    ("rules/volume_files.py", "text = str(key).lower()", "text = str(key)",
     "pod-spec-invalid"),  # a user annotation key with capitals refused (the server reads it in lower case)
    ("rules/volume_files.py", "len(labels) < 2", "len(labels) < 1",
     "pod-spec-invalid"),  # a signer's domain of one label taken
    ("rules/volume_files.py", "if colon and \"/\" in signer:", "if False:",
     "pod-spec-invalid"),  # a trust bundle's name not read back to its signer
    ("rules/volume_files.py", "return []  # a service account token's path",
     'return [(as_str(source.get("path")) or "", (kind, "path"))]  # a service account token\'s path',
     "pod-spec-invalid"),  # a token's path compared with the items'
    ("rules/windows.py", "if len(user.encode()) > USER_LONGEST:", "if len(user.encode()) >= USER_LONGEST:",
     "security-context-invalid"),  # a user name of 104 characters refused
    ("rules/windows.py", "if len(parts) > 2:", "if len(parts) > 3:",
     "security-context-invalid"),  # two backslashes taken
    ("rules/windows.py", "NETBIOS_DOMAIN.fullmatch(domain) or DNS_DOMAIN.fullmatch(domain)",
     "DNS_DOMAIN.fullmatch(domain)", "security-context-invalid"),  # a NetBIOS domain with a space refused
    ("rules/windows.py", '    if os_name == "linux":\n        return\n    context,',
     '    if os_name != "windows":\n        return\n    context,',
     "security-context-invalid"),  # a pod without os taken for a linux one
    ("rules/windows.py", '(name != "sysctls" or as_list(value))', "True",
     "security-context-invalid"),  # an empty list of sysctls refused
    ("rules/windows.py", "if own is True or (own is None and pod_value is True):", "if own is True:",
     "pod-spec-invalid"),  # a container's hostProcess inherited from the pod not counted
    ("rules/windows.py", "        if spec.get(name) is True:", "        if spec.get(name) is not None:",
     "pod-spec-invalid"),  # a windows pod's hostPID: false refused
    ("rules/volume_sources.py", "    if lun is not None and not 0 <= lun <= 255:",
     "    if lun is not None and not 0 <= lun < 255:", "pod-spec-invalid"),  # an iscsi lun of 255 refused
    ("rules/volume_sources.py", "not 0 <= partition <= 255", "not 1 <= partition <= 255",
     "pod-spec-invalid"),  # partition 0 refused (the server's message says 1, its check 0)
    ("rules/volume_sources.py", "if len(joined) > 64:", "if len(joined) >= 64:",
     "pod-spec-invalid"),  # an iscsi <volume>:<portal> of 64 characters refused
    ("rules/volume_sources.py", "if len(tenant) > 64:", "if len(tenant) > 65:",
     "pod-spec-invalid"),  # a Quobyte tenant of 65 characters taken
    ("rules/volume_sources.py", 'caching = "ReadWrite" if caching is None', 'caching = "" if caching is None',
     "pod-spec-invalid"),  # a null cachingMode not defaulted
    ("rules/volume_sources.py", '("." + space.lower())', '("." + space)',
     "pod-spec-invalid"),  # a flexVolume option's namespace read case-sensitively
    ("rules/volume_sources.py", 'if pair.startswith("["):', "if False:",
     "pod-spec-invalid"),  # an IPv6 registry host in brackets refused
    ("rules/volume_sources.py", "elif targets and wwids:", "elif False:",
     "pod-spec-invalid"),  # fc targets and wwids together taken
    ("rules/volume_sources.py", "elif dataset and uuid:", "elif False:",
     "pod-spec-invalid"),  # a flocker dataset named by its name and its UUID taken
    ("rules/volume_sources.py", 'if "/" in dataset:', 'if dataset.startswith("/"):',
     "pod-spec-invalid"),  # a flocker datasetName with '/' inside taken
    ("rules/volume_sources.py", "(value is None and not schema_requires and source.get(name) is None)", "False",
     "pod-spec-invalid"),  # a missing scaleIO or storageos volumeName left to a schema that does not require it
    ("rules/claims.py", 'if not group and kind and kind != "PersistentVolumeClaim":', "if False:",
     "claim-spec-invalid"),  # a snapshot without its apiGroup taken
    ("rules/jobs.py", 'as_str(pattern.get("status")) or "True"', 'as_str(pattern.get("status")) or ""',
     "pod-spec-invalid"),  # a pod condition without a status refused, though the server makes it True
    ("rules/metadata.py", "annotations_size(table) > ANNOTATIONS_LIMIT", "annotations_size(table) >= ANNOTATIONS_LIMIT",
     "object-metadata-invalid"),  # annotations of exactly 262144 bytes refused
    ("rules/metadata.py", 'return sum(len(str(key).encode("utf-8", "surrogatepass"))\n               + (',
     "return sum((", "object-metadata-invalid"),  # keys left out of the size
    ("rules/metadata.py", 'elif not custom and "/" not in text', 'elif "/" not in text',
     "object-metadata-invalid"),  # a custom resource's finalizer without a domain refused (only warned)
    ("rules/metadata.py", 'generate[:-2] + "a" if len(generate) > 1', 'generate if len(generate) > 1',
     "object-metadata-invalid"),  # a generateName's trailing '-' refused
    ("rules/metadata.py", "elif generated and check(", "elif False and check(",
     "object-metadata-invalid"),  # the name generated from a masked generateName not read
    ("rules/metadata.py", "if controller is not None:", "if False:",
     "object-metadata-invalid"),  # a second controller taken
    ("rules/jobs.py", "if not name or len(name) <= 63 or", "if not name or len(name) < 63 or",
     "pod-spec-invalid"),  # a Job's name of 63 characters refused
    ("rules/jobs.py", 'len(name) <= 63 or spec.get("manualSelector") is True:', "len(name) <= 63:",
     "pod-spec-invalid"),  # a long name refused though manualSelector writes no job-name label
    ("rules/jobs.py", "if name and len(name) > _CRON_NAME_LIMIT:", "if name and len(name) >= _CRON_NAME_LIMIT:",
     "pod-spec-invalid"),  # a CronJob's name of 52 characters refused
    ("rules/jobs.py", "min(len(generate), 58) + 5 > _CRON_NAME_LIMIT", "len(generate) > _CRON_NAME_LIMIT",
     "pod-spec-invalid"),  # the 5 characters the server adds to a CronJob's generateName forgotten
    ("rules/pod_annotations.py", '(not value.startswith("-") and len(body) > 1', "(len(body) > 1",
     "pod-spec-invalid"),  # a negative deletion cost with leading zeros (-007) refused
    ("rules/pod_annotations.py", "_INT32 = (-(2**31), 2**31 - 1)", "_INT32 = (-(2**31) + 1, 2**31)",
     "pod-spec-invalid"),  # the 32-bit bounds off by one
    ("rules/pod_annotations.py", 'if profile in ("runtime/default", "docker/default", "unconfined"):',
     'if profile in ("runtime/default", "unconfined"):', "pod-spec-invalid"),  # docker/default refused
    ("rules/pod_annotations.py", "name = _TOLERATION_FIELDS.get(key.lower())", "name = _TOLERATION_FIELDS.get(key)",
     "pod-spec-invalid"),  # toleration field names read case-sensitively, as Go's decoder does not
    ("rules/pod_annotations.py", 'if key == MIRROR and not as_str(spec.get("nodeName")):', "if key == MIRROR:",
     "pod-spec-invalid"),  # the mirror-pod annotation refused beside a nodeName
    ("rules/pod_annotations.py", "if created_as_pod and own.get(", "if False and own.get(",
     "pod-spec-invalid"),  # a Pod's AppArmor annotation read as a template's (the server copies it first)
    ("rules/pod_annotations.py", 'annotation[len(LOCALHOST):] == as_str(profile.get("localhostProfile"))',
     "annotation.startswith(LOCALHOST)", "pod-spec-invalid"),  # localhost profiles not compared
    # diff rules (their cases under tests/diff/cases/<rule>/)
    ("rules/webhook_update.py", "if after is not None and after.text != stored:",
     "if after is not None and after.text.lower() != stored.lower():",
     "update-workload-provider"),  # the provider compared case-insensitively: Grove taken for grove
    ("rules/webhook_update.py", "stored = stored_provider(old.obj)", "stored = before.text if before else None",
     "update-workload-provider"),  # only a provider the old manifest wrote counted: a restated one refused
    ("rules/webhook_update.py", "if (before.scaling_adapter or after.scaling_adapter) and",
     "if after.scaling_adapter and", "update-replicas-scaling-adapter"),  # an adapter dropped with the scaling
    ("webhook_component.py", "return Value(canonical_quantity(found[0]), found[1])", "return Value(found[0], found[1])",
     "update-gpu-power-limit"),  # GPUs compared as text: 1000m taken for another count than 1
    ("webhook_component.py", "found = table.get(NVIDIA_GPU)",
     'found = next((table[r] for r in sorted(table) if r.lower().endswith("/gpu")), None)',
     "update-gpu-power-limit"),  # any */gpu resource counted, where the webhook counts nvidia.com/gpu only
    ("schema/stage.py", "return (min_available_defaulted(old, stored),", "return (old,",
     "crd-cel-rule"),  # the stored graph read without the minAvailable 1 the defaulting webhook gave it
    ("rules/webhook_conversion.py", "if found is None or not found.text:  #", "if found is None:  #",
     "operator-conversion-annotation"),  # an empty record reported, which the operator skips
    ("go_json.py", "name = key if key in fields else folded.get(_fold(key))", "name = key if key in fields else None",
     "operator-conversion-record-refused"),  # field names matched exactly, where Go's decoder folds case
    ("go_json.py", r'return name.lower().replace("\u017f", "s")', "return name.lower()",
     "operator-conversion-record-refused"),  # the long s no longer an s, as it is to Go's folding
    ("go_json.py", "continue  # no such field: Go ignores it", "raise Undecodable(path + (key,), 'unknown')",
     "operator-conversion-record-refused"),  # an unknown field taken for a decode error
    ("go_json.py", 'raise Undecodable(path, f"is {_kind(value)}, where Go wants a whole number")', "return 0",
     "operator-conversion-record-refused"),  # a wrong type no longer skips the record
    ("go_json.py", "limit = INT32_MAX if node.get(\"maximum\") == INT32_MAX else INT64_MAX", "limit = INT64_MAX",
     "operator-conversion-record-refused"),  # an int32 field read as 64 bits: 2147483648 decodes
    ("go_json.py", "if not -limit - 1 <= number <= limit:", "if not -limit - 1 <= number < limit:",
     "operator-conversion-record-refused"),  # 2147483647 taken for an overflow
    ("go_json.py", "and (problem := rfc3339_problem(value))", "and (problem := None)",
     "operator-conversion-record-refused"),  # a status time that is no RFC 3339 text decodes
    ("go_time.py", "if fields[\"day\"] > _days_in(fields[\"month\"], year):", "if False:",
     "operator-conversion-record-refused"),  # February 30th taken by the looser reader
    ("go_time.py", "return 29 if month == 2 and calendar.isleap(year) else _DAYS[month - 1]",
     "return _DAYS[month - 1]", "operator-conversion-record-refused"),  # a leap day refused
    ("go_json.py", "if isinstance(value, list) and not isinstance(value, Pairs):", "if isinstance(value, list):",
     "operator-conversion-record-refused"),  # an object taken for a []byte
    ("cosmos.py", "all(int(part) < 2**64 for part in match.groups()[:3])", "True",
     "runtime-version-required"),  # a version beyond 64 bits taken
    ("rules/cron.py", "except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):",
     "except (zoneinfo.ZoneInfoNotFoundError, ValueError):", "pod-spec-invalid"),  # a folder as a zone: a crash
    ("go_json.py", 'elif code < 0x20 or char in "<>&" or code in (0x2028, 0x2029):', "elif code < 0x20:",
     "resource-claim-invalid"),  # parameters counted without Go's HTML escaping
    ("rules/device_cel.py", "if not _RECURSION.search(str(error)):", "if True:",
     "resource-claim-invalid"),  # a selector nested 40 deep refused, which the server takes
    ("rules/device_cel.py", 'r"recursion limit exceeded|Exceeded max recursion depth"', 'r"recursion limit exceeded"',
     "resource-claim-invalid"),  # a sum of 41 terms refused, which the server takes
    ("go_json.py", 'if kind == "object" and not node.get("x-kubernetes-preserve-unknown-fields"):',
     'if kind == "object":', "operator-conversion-record-refused"),  # an open JSON value (a list) fails the decode
    ("go_json.py", "out[name] = decode(item, inner, path + (key,), times, out.get(name))",
     "out[name] = decode(item, inner, path + (key,), times)",
     "operator-conversion-record-refused"),  # a key written twice replaces what the first set, where Go merges
    ("conversion_record.py", 'envelope = any(key == "spec" for key, _ in top)', "envelope = True",
     "operator-conversion-record-refused"),  # the legacy form (no spec key) read as an empty envelope
    ("conversion_record.py", "if name not in components:", "if name not in components or saved is None:",
     "operator-conversion-record-refused"),  # a component's null service taken for a nil one
    ("conversion_record.py", 'if components[name].get("frontendSidecar") == FRONTEND_SIDECAR and',
     'if components[name].get("frontendSidecar") and', "operator-conversion-record-refused"),  # any sidecar name
    ("rules/webhook_conversion.py", "spec.path, record)\n            continue\n", "spec.path, record)\n",
     "operator-conversion-record-refused"),  # a v1alpha1 graph's records validated as v1alpha1 fields
    ("hub_restore.py", 'by_name[as_map(component).get("name") or ""] = index',
     'by_name.setdefault(as_map(component).get("name") or "", index)',
     "operator-conversion-record-refused"),  # the first component of a name restored, where Go's map keeps the last
    ("hub_restore.py", "if name_only(container) is True or name in present", "if name in present",
     "operator-conversion-record-refused"),  # a container with only its name added, taking the name of a later one
    ("hub_containers.py", "or (isinstance(value, (list, dict)) and not value)", "or False",
     "operator-conversion-record-refused"),  # an empty list taken for a set field: the container is not name-only
    ("hub_restore.py", "(name == FRONTEND_SIDECAR_CONTAINER and not has_sidecar)", "False",
     "operator-conversion-record-refused"),  # a deleted generated sidecar-frontend restored
    ("hub_restore.py", "        if found and as_list(", "        if False and as_list(",
     "operator-conversion-record-refused"),  # the record's sidecar-frontend lends the generated one no claims
    ("hub_restore.py", "if not any(as_map(c).get(\"name\") == sidecar for c in containers):", "if True:",
     "operator-conversion-record-refused"),  # frontendSidecar restored though the record holds its container
    ("hub_restore.py", "    if not converted and not hub_only:\n        return None\n", "",
     "operator-conversion-record-refused"),  # grove restored beside a record checkpoint with no converted block
    ("hub_restore.py", " or service.get(\"checkpoint\") is not None)", ")",
     "operator-conversion-record-refused"),  # a v1alpha1 checkpoint taken for no experimental block
    ("hub_restore.py", "restore.no_pod_template = template is None and not _builds_pod_template(service)",
     "restore.no_pod_template = False", "operator-conversion-record-refused"),  # a service that builds no pod
    ("hub_containers.py", 'if service.get("resources") is not None or service.get("envs")', 'if service.get("envs")',
     "operator-conversion-record-refused"),  # resources: {} taken for none, where its failed round trip keeps main
    ("hub_containers.py", 'if any(as_map(c).get("name") == MAIN for c in',
     'if False and any(as_map(c).get("name") == MAIN for c in',
     "operator-conversion-record-refused"),  # main dropped though the record's pod template has one
    ("hub_containers.py", 'return all((m.get("name") or "", m.get("mountPoint") or "") == key for m in entries)',
     "return True", "operator-conversion-record-refused"),  # a mount other than the compilation cache ignored
    ("hub_containers.py", "if main is not None and (not isinstance(main, dict) or name_only(main) is not True):",
     "if False:", "operator-conversion-record-refused"),  # extraPodSpec.mainContainer's image not merged into main
    ("hub_restore.py", "if name != MAIN or not self.hub.main_dropped]", "]",
     "operator-conversion-record-refused"),  # the dropped main still named
    ("rules/webhook_gpu.py", "names = list(dict.fromkeys(component.container_names() + converted.container_names()))",
     "names = component.container_names()", "gpu-memory-service-invalid"),  # a client the record adds refused
    ("hub_restore.py", "return found if found is not None or self.hub is None else self.hub.claims", "return found",
     "operator-conversion-record-refused"),  # a restored container's claims not read
    ("hub_restore.py", "if self.hub is not None and self.hub.grove is not None:", "if False:",
     "operator-conversion-record-refused"),  # a restored grove.forceScalingGroup not read
    ("hub_restore.py", "return self.hub.frontend_sidecar if self.hub is not None else None", "return None",
     "operator-conversion-record-refused"),  # a restored frontendSidecar not read
    ("rules/webhook_grove.py", "inner = fields.get(str(key).lower(), False)", "inner = fields.get(str(key), False)",
     "provider-override-invalid"),  # field names matched exactly, where Go's decoder folds case
    ("rules/webhook_grove.py", "if inner is False or value is None:", "if inner is False:",
     "provider-override-invalid"),  # a null field refused, which Go's decoder leaves unset
    ("rules/webhook_grove.py", "if inner is None and not isinstance(value, str):",
     "if inner is None and isinstance(value, (list, dict)):",
     "provider-override-invalid"),  # a number taken for a string
    ("schema/stage.py", "min_available_defaulted(instance, named if isinstance(named, str) else stored))",
     "instance)", "crd-cel-rule"),  # the update read without the defaults it gets again: a false refusal
    ("rules/webhook_update.py", 'as_str(policy.get("enforcement")) or "required"', 'as_str(policy.get("enforcement"))',
     "update-kv-transfer-policy"),  # the default enforcement written out taken for a change
    ("cosmos.py", 'r"^[vV]?(0|', 'r"^v?(0|', "update-runtime-version"),  # a tag V1.7.0 no longer a version
    ("diff/deployment.py", "previous.is_multinode != component.is_multinode",
     "previous.node_count != component.node_count", "diff-immutable-field"),  # 2 to 4 nodes taken for a new shape
    ("diff/pods.py", "if not view.alpha or c.obj.get(c.path) is not None}", "}",
     "diff-immutable-field"),  # a null v1alpha1 service taken for a component
    ("diff/pods.py", 'if shared.get("disabled") is True:', "if False:",
     "diff-sessions-lost"),  # sharedMemory.disabled read as its size, not as the 0 it converts to
    ("diff/pods.py", "if isinstance(sidecar, dict) and not any(", "if False and not any(",
     "diff-sessions-lost"),  # a v1alpha1 frontendSidecar not taken for the container it becomes
    ("diff/pods.py", "if m.claim is None and m.volume not in volumes", "if False",
     "diff-sessions-lost"),  # a v1beta1 main mount of no pod volume not read as the claim the operator mounts
    ("go_merge.py", "out[key] = merged(out[key], value, key)", "out[key] = value",
     "diff-sessions-lost"),  # mainContainer's probe taken whole, not merged field by field over the service's
    ("diff/converted.py", "if secret and go_zero(raw.get(\"envFrom\")):", "if False:",
     "diff-sessions-lost"),  # a v1alpha1 envFromSecret not taken for the envFrom it becomes
    ("diff/converted.py", "fields = mount_fields(as_map(saved[index]))", "fields = {}",
     "diff-sessions-lost"),  # the record's mount fields not restored on a service's volumeMount
    ("diff/converted.py", "raw[kind] = merged(raw.get(kind), saved.raw[kind])", "pass",
     "diff-sessions-lost"),  # the record's sidecar-frontend lends no probe
    ("diff/converted.py", "    if not secret:\n        return container\n", "    return container\n",
     "diff-sessions-lost"),  # a frontendSidecar's envFromSecret dropped
    ("diff/views.py", "for key, value in as_map(metadata.get(table)).items():",
     "for key, value in as_map(metadata.get(table)).items() if False else ():",
     "diff-sessions-lost"),  # the pod template's labels and annotations not compared
    ("diff/views.py", "view[prefix + key] = (canonical_json(zeroless(container.raw[key]))",
     "view[prefix + key + \"\"] = (canonical_json(None)", "diff-sessions-lost"),  # envFrom and probes not compared
    ("diff/views.py", "(canonical_json(mount.fields),", "(canonical_json(None),",
     "diff-sessions-lost"),  # a mount's readOnly, subPath ... not compared
    ("cosmos.py", '(main.env_value("NIM_ENABLE_STREAMING") or "").strip().lower() in ("1", "true")',
     '(main.env_value("NIM_ENABLE_STREAMING") or "").strip() in ("1", "true")',
     "diff-sessions-lost"),  # TRUE no longer switches streaming on
    ("diff/cache.py", 'obj.annotations.get("helm.sh/resource-policy") == "keep"',
     'str(obj.annotations.get("helm.sh/resource-policy")).lower() == "keep"',
     "diff-cache-changed"),  # Keep taken for keep, which Helm's upgrade does not
    ("cosmos.py", 'if name == "NIM_TAGS_SELECTOR" and before is not None and after is not None:', "if False:",
     "diff-download-not-rerun"),  # the tags selector compared as text: a reordered one taken for another model
    ("rules/placement.py", "any(verdict.witness is not None for verdict in verdicts)",
     "all(verdict.witness is not None for verdict in verdicts)",
     "node-affinity-unsatisfiable"),  # terms read as all required, not alternatives
    ("node_selection.py", "tries = len(taken) + 1", "tries = 0",
     "node-affinity-unsatisfiable"),  # only the value a NotIn names tried in a Gt/Lt range
    ("node_selection.py", 'return number > threshold if self.operator == "Gt"',
     'return number >= threshold if self.operator == "Gt"', "node-affinity-unsatisfiable"),  # Gt read as >=
    ("node_selection.py", "if not expressions and not matched_fields:", "if False:",
     "node-affinity-unsatisfiable"),  # an empty term taken to match every node
    ("rules/volume_affinity.py", 'return operator in ("In", "NotIn") and len(values) == 1',
     'return False and len(values) == 1', "volume-node-affinity-conflict"),  # a volume's matchFields checked
    ("rules/volume_affinity.py", "expressions += volume_expressions", "expressions = list(volume_expressions)",
     "volume-node-affinity-conflict"),  # the pod's term dropped from the joined one
    ("rules/volume_placement.py", "if alone or len(rest) < 2:", "if True:",
     "volume-node-affinity-conflict"),  # volumes judged one at a time only
    ("rules/volume_placement.py", "if len(reserving) == 1 and not list(", "if not reserving and not list(",
     "volume-node-affinity-conflict"),  # a volume reserved by claimRef taken for no binding
    ("rules/volume_placement.py", "if name and name not in volumes:  # the operator adds a claim volume",
     "if False:  #", "volume-node-affinity-conflict"),  # a v1alpha1 service's mounts of spec.pvcs claims not read
    ("rules/volume_placement.py", 'f"{owner.label} pod {owner.obj.name}-{ordinal}", named + claims',
     'f"{owner.label} pod {owner.obj.name}-{ordinal}", named', "volume-node-affinity-conflict"),  # templates' claims
    ("rules/compilation_cache.py", "    if component.type not in WORKER_TYPES:\n        return None\n", "",
     "compilation-cache-invalid"),  # a frontend given the graph's framework (and vLLM's default path)
    ("rules/compilation_cache.py", "for framework, pattern in _DETECT.items() if pattern.search(text)]",
     "for framework, pattern in _DETECT.items() if False]",
     "compilation-cache-invalid"),  # the worker's command not read for its framework
    ("rules/compilation_cache.py", "        if path != mount_path:", "        if not path.startswith(mount_path):",
     "compilation-cache-invalid"),  # a mount below the cache's path taken for one at it
    ("rules/compilation_cache.py", "        if mount.volume != claim:", "        if False:",
     "compilation-cache-invalid"),  # another volume at the cache's path let through
    ("rules/compilation_cache.py", "        elif mount.read_only:", "        elif False:",
     "compilation-cache-invalid"),  # a read-only cache mount let through
    ("rules/compilation_cache.py", 'elif source.get("readOnly") is True:', 'elif "readOnly" in source:',
     "compilation-cache-invalid"),  # readOnly: false read as read-only
    ("rules/volumes.py", "if mount_path is not None and not mount_path and not (filled and volume == filled):",
     "if mount_path is not None and not mount_path:",
     "pod-spec-invalid"),  # main's mount of the cache claim refused for the empty path the operator fills in
    ("rules/probes.py", "probe_problems(kind, merged(own, written), ())", "probe_problems(kind, own, ())",
     "pod-spec-invalid"),  # a v1alpha1 service's own probe read without its mainContainer's merged over it
    ("rules/probes.py", "(written_path if not path or not go_zero(value) else own_path)", "written_path",
     "pod-spec-invalid"),  # a merged probe's problem named at mainContainer's probe whichever sets the field
    ("rules/volumes.py", "if container is not component.main or cache is None",
     "if cache is None", "pod-spec-invalid"),  # a sidecar's mount of the cache claim taken for main's
    ("rules/compilation_cache.py", 'elif as_str(source.get("claimName")) != claim:', "elif False:",
     "compilation-cache-invalid"),  # a volume of another claim let through
    ("model/build.py", '== "main"), None)', '== "main"), 0 if len(containers) == 1 else None)',
     "volume-mount-unknown"),  # a lone container not named main read as main: its mount of a claim given a volume
    ("model/build.py", '== "main"), None)', '== "main"), 0 if len(containers) == 1 else None)',
     "compilation-cache-invalid"),  # ... and the backend framework read from its command
    ("video.py", 'or main.name == "main"):', "or True):",
     "main-image-missing"),  # a pod without a main container taken to run the graph's engine
    ("diff/views.py", 'view[prefix + "imagePullPolicy"] = (pull_policy(container),',
     'view[prefix + "imagePullPolicy"] = ("",', "diff-sessions-lost"),  # imagePullPolicy not compared
    ("diff/views.py", 'digest is None)) else "IfNotPresent"', 'digest is None)) else "Always"',
     "diff-sessions-lost"),  # a tagged image's default policy taken for Always
    ("diff/views.py", "(canonical_json([c.name for c in containers])",
     "(canonical_json(sorted(c.name for c in containers))", "diff-sessions-lost"),  # the sidecars' order not compared
]


def mutated_copy(folder: Path, module: str, before: str, after: str) -> Path:
    """A source tree beside `folder` whose dgdlint has one change; the rest of the repository is linked."""
    for entry in ROOT.iterdir():
        if entry.name not in ("validate", ".git", ".venv"):
            (folder / entry.name).symlink_to(entry)
    shutil.copytree(PACKAGE, folder / "validate" / "dgdlint", ignore=shutil.ignore_patterns("__pycache__"))
    target = folder / "validate" / "dgdlint" / module
    text = target.read_text(encoding="utf-8")
    assert text.count(before) == 1, f"{module} no longer holds {before!r}: update this mutant"
    target.write_text(text.replace(before, after), encoding="utf-8")
    return folder / "validate"


def fixture_tests(rule: str, source_root: Path | None) -> subprocess.CompletedProcess:
    """The rule's fixtures; for a diff rule its cases and the tests named after it (test_diff_cases.py)."""
    environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if source_root is not None:
        environment["PYTHONPATH"] = os.pathsep.join([str(source_root), environment.get("PYTHONPATH", "")])
    if rule in DIFF_RULES:
        tests, selection = [ROOT / "tests" / "diff" / "test_diff_cases.py"], f"{rule} or {rule.replace('-', '_')}"
    else:  # its fixtures, and its update cases when it reads the stored object (test_update_check_rules.py)
        tests = [ROOT / "tests" / "rules" / "test_rule_fixtures.py",
                 ROOT / "tests" / "diff" / "test_update_check_rules.py"]
        selection = f"{rule}/"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           *map(str, tests), "-k", selection],
                          cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize("module, before, after, rule", MUTANTS, ids=[f"{m[3]}: {m[2][:40]}" for m in MUTANTS])
def test_the_rule_s_fixtures_kill_the_mutant(tmp_path, module, before, after, rule):
    completed = fixture_tests(rule, mutated_copy(tmp_path, module, before, after))
    assert "passed" in completed.stdout or "failed" in completed.stdout, completed.stdout + completed.stderr
    assert completed.returncode == 1, f"the mutant survived:\n{completed.stdout[-1500:]}"


def test_the_unmutated_fixtures_pass():
    completed = fixture_tests("streaming-worker-env", None)
    assert completed.returncode == 0, completed.stdout[-1500:]


def test_the_unmutated_diff_cases_pass():
    completed = fixture_tests("diff-cache-changed", None)
    assert "passed" in completed.stdout and completed.returncode == 0, completed.stdout[-1500:]
