"""A Job's own spec as the API server validates it on create (written from Kubernetes' batch validation and
the Job strategy, v1.37): the selector the server generates unless `manualSelector: true` (a selector of
one's own, or a job-name label of another name, is refused), the completion mode and what needs Indexed
(completions; backoffLimitPerIndex, maxFailedIndexes and successPolicy only with it; an Indexed Job's name
with its last index as a pod hostname), the pod failure policy (its actions, exit code and pod condition
rules, restartPolicy Never), the pod replacement policy and managedBy. Counts and the pod template are
pods.py's. Each function yields (path, problem)."""

from __future__ import annotations

import re

from dgdlint.model import Workload, as_list, as_map, as_str
from dgdlint.rules.selectors import selects
from dgdlint.rules.syntax import as_int, dns1123_label_problem, dns1123_subdomain_problem, qualified_name_problem

ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
EXIT_OPERATORS = ("In", "NotIn")
CONDITION_STATUSES = ("False", "True", "Unknown")
REPLACEMENT_POLICIES = ("Failed", "TerminatingOrFailed")
COMPLETION_MODES = ("NonIndexed", "Indexed")
_JOB_NAME_LABELS = ("batch.kubernetes.io/job-name", "job-name")
_UID_LABELS = ("batch.kubernetes.io/controller-uid", "controller-uid")
_HTTP_PATH = re.compile(r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+")


def job_spec_problems(workload: Workload):
    if workload.obj.kind != "Job":
        return
    spec = as_map(workload.obj.value.get("spec"))
    yield from _selector_problems(workload.obj.name, spec)
    yield from _mode_problems(workload.obj.name, spec)
    yield from _failure_policy_problems(spec, workload.pod.spec)
    managed = as_str(spec.get("managedBy"))
    if managed is not None and _managed_by_problem(managed):
        yield ("spec", "managedBy"), f"managedBy {managed!r} is not a domain-prefixed path of at most 63 " \
                                     "characters (such as kueue.x-k8s.io/multikueue)"


def _managed_by_problem(text: str) -> bool:
    """apimachinery's domain-prefixed path (a DNS subdomain, '/', an HTTP path), at most 63 characters."""
    host, slash, path = text.partition("/")
    return len(text) > 63 or not slash or not host or not path or dns1123_subdomain_problem(host) is not None \
        or not _HTTP_PATH.fullmatch(path)


def _selector_problems(name: str, spec: dict):
    template_labels = as_map(as_map(as_map(spec.get("template")).get("metadata")).get("labels"))
    selector = spec.get("selector")
    if spec.get("manualSelector") is True:
        if not isinstance(selector, dict):  # the server also finds that no selector selects the template
            yield ("spec",), "has manualSelector: true but no selector"
        elif selects(selector, template_labels) is False:
            yield ("spec", "template", "metadata", "labels"), "has a selector that does not select its pod " \
                                                              "template's labels"
        return
    # The server generates the selector (the Job's uid) and the template's job-name and controller-uid labels.
    for key in _JOB_NAME_LABELS:
        written = template_labels.get(key)
        if written is not None and as_str(written) != name:
            yield ("spec", "template", "metadata", "labels", key), \
                f"labels its pods {key}={as_str(written)!r}, not its own name {name!r}; leave the label to the " \
                "server"
    for key in _UID_LABELS:
        if key in template_labels:
            yield ("spec", "template", "metadata", "labels", key), \
                f"labels its pods {key}, which only the server can write (the Job's uid); remove it"
    if not isinstance(selector, dict) or not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return
    expected = {key: name for key in _JOB_NAME_LABELS}
    named = set(as_map(selector.get("matchLabels"))) | {as_str(as_map(e).get("key"))
                                                        for e in as_list(selector.get("matchExpressions"))}
    if named & set(_UID_LABELS):
        return  # a uid the manifest cannot know: refused unless it is this Job's, which no file can say
    if selects(selector, expected) is False:
        yield ("spec", "selector"), "sets a selector of its own without manualSelector: true (the server " \
                                    "generates it from the Job's uid); remove the selector, or set manualSelector: true"


def _mode_problems(name: str, spec: dict):
    mode = as_str(spec.get("completionMode"))
    indexed = mode == "Indexed"
    if mode is not None and mode not in COMPLETION_MODES:
        yield ("spec", "completionMode"), f"completionMode {mode!r} is not NonIndexed or Indexed"
        return
    completions = as_int(spec.get("completions"))
    if spec.get("completions") is None and spec.get("parallelism") is None:
        completions = 1  # the server makes both 1 when both are unset
    per_index, max_failed = as_int(spec.get("backoffLimitPerIndex")), as_int(spec.get("maxFailedIndexes"))
    if max_failed is not None and per_index is None:
        yield ("spec", "maxFailedIndexes"), "maxFailedIndexes needs backoffLimitPerIndex"
    if not indexed:
        for key, value in (("backoffLimitPerIndex", per_index), ("maxFailedIndexes", max_failed)):
            if value is not None:
                yield ("spec", key), f"{key} needs completionMode: Indexed"
        if spec.get("successPolicy") is not None:
            yield ("spec", "successPolicy"), "successPolicy needs completionMode: Indexed"
        return
    if spec.get("completions") is None and spec.get("parallelism") is not None:
        yield ("spec", "completions"), "an Indexed Job with a parallelism needs completions"
    parallelism = as_int(spec.get("parallelism"))
    if parallelism is not None and parallelism > 100_000:
        yield ("spec", "parallelism"), f"parallelism {parallelism} is above 100000, the most an Indexed Job takes"
    if max_failed is not None and completions is not None and max_failed > completions:
        yield ("spec", "maxFailedIndexes"), f"maxFailedIndexes {max_failed} is above completions {completions}"
    if max_failed is not None and max_failed > 100_000:
        yield ("spec", "maxFailedIndexes"), f"maxFailedIndexes {max_failed} is above 100000"
    if completions is not None and completions > 0:
        hostname = f"{name}-{completions - 1}"  # the last pod's hostname
        if dns1123_label_problem(hostname):
            yield ("metadata", "name"), f"an Indexed Job's pods are named {name}-<index>, and {hostname!r} " \
                                        f"{dns1123_label_problem(hostname)}"


def _failure_policy_problems(spec: dict, pod_spec: dict):
    policy = spec.get("podFailurePolicy")
    replacement = as_str(spec.get("podReplacementPolicy"))
    if replacement is not None:
        allowed = ("Failed",) if isinstance(policy, dict) else REPLACEMENT_POLICIES
        if replacement not in allowed:
            yield ("spec", "podReplacementPolicy"), f"podReplacementPolicy {replacement!r} is not " + \
                (" or ".join(allowed)) + (" (with a podFailurePolicy)" if isinstance(policy, dict) else "")
    if not isinstance(policy, dict):
        return
    restart = as_str(pod_spec.get("restartPolicy"))
    if restart == "OnFailure":
        yield ("spec", "template", "spec", "restartPolicy"), "a Job with a podFailurePolicy takes restartPolicy " \
                                                             "Never only"
    rules = as_list(policy.get("rules"))
    if len(rules) > 20:
        yield ("spec", "podFailurePolicy", "rules"), f"has {len(rules)} pod failure rules; at most 20"
    names = {as_str(as_map(c).get("name")) for kind in ("containers", "initContainers")
             for c in as_list(pod_spec.get(kind))}
    per_index = spec.get("backoffLimitPerIndex") is not None
    for index, rule_ in enumerate(rules):
        yield from _rule_problems(as_map(rule_), ("spec", "podFailurePolicy", "rules", index), names, per_index)


def _rule_problems(rule_: dict, where: tuple, names: set, per_index: bool):
    action = as_str(rule_.get("action")) or ""
    if action not in ACTIONS:
        yield where + ("action",), f"pod failure action {action!r} is not one of {', '.join(ACTIONS)}" if action \
            else "pod failure rule has no action"
    elif action == "FailIndex" and not per_index:
        yield where + ("action",), "pod failure action FailIndex needs backoffLimitPerIndex"
    codes, conditions = rule_.get("onExitCodes"), as_list(rule_.get("onPodConditions"))
    if isinstance(codes, dict) == bool(conditions):
        yield where, "pod failure rule needs onExitCodes or onPodConditions, one of them"
    if isinstance(codes, dict):
        yield from _exit_code_problems(codes, where + ("onExitCodes",), names)
    if len(conditions) > 20:
        yield where + ("onPodConditions",), f"has {len(conditions)} pod condition patterns; at most 20"
    for index, pattern in enumerate(conditions):
        pattern, at = as_map(pattern), where + ("onPodConditions", index)
        kind = as_str(pattern.get("type")) or ""
        if qualified_name_problem(kind):
            yield at + ("type",), f"pod condition type {kind!r} {qualified_name_problem(kind)}"
        status = as_str(pattern.get("status")) or ""
        if status not in CONDITION_STATUSES:
            yield at + ("status",), f"pod condition status {status!r} is not True, False or Unknown"


def _exit_code_problems(codes: dict, where: tuple, names: set):
    operator = as_str(codes.get("operator")) or ""
    if operator not in EXIT_OPERATORS:
        yield where + ("operator",), f"exit code operator {operator!r} is not In or NotIn"
    container = as_str(codes.get("containerName"))
    if container is not None and container not in names:
        yield where + ("containerName",), f"exit codes of container {container!r}, which the pod does not have"
    values = [value for value in as_list(codes.get("values")) if type(value) is int]
    if not as_list(codes.get("values")):
        yield where + ("values",), "exit code rule lists no values"
    elif len(values) > 255:
        yield where + ("values",), f"exit code rule lists {len(values)} values; at most 255"
    seen: set[int] = set()
    for index, value in enumerate(values):
        if operator == "In" and value == 0:
            yield where + ("values", index), "exit code 0 (success) is refused with operator In"
        if value in seen:
            yield where + ("values", index), f"exit code {value} is listed twice"
        seen.add(value)
    if values != sorted(values):
        yield where + ("values",), "exit codes must be listed in increasing order"
