"""A Job's own spec as the API server validates it on create (written from Kubernetes' batch validation, its
defaulting and the Job strategy, v1.37): the selector the server generates unless `manualSelector: true` (a
selector of one's own that does not match what it generates, or a job-name label of another name, is
refused; either way the selector must be valid and select the pod template's labels), the completion mode
and what needs Indexed (completions; backoffLimitPerIndex, maxFailedIndexes and a successPolicy only with
it, their limits above 100000 completions; an Indexed Job's name with its last index as a pod hostname),
the pod failure policy (its actions, exit code and pod condition rules, restartPolicy Never), the pod
replacement policy and managedBy; a Job's name, which the server writes as its pods' job-name label (63
characters at most), and a CronJob's (52). A CronJob's job template takes the same, less what names the Job.
Counts and the pod template are pods.py's. Each function yields (path, problem)."""

from __future__ import annotations

import re

from dgdlint.model import Workload, as_list, as_map, as_str
from dgdlint.rules.selectors import selector_problems, selects
from dgdlint.rules.syntax import as_int, dns1123_label_problem, dns1123_subdomain_problem, qualified_name_problem

ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
EXIT_OPERATORS = ("In", "NotIn")
CONDITION_STATUSES = ("False", "True", "Unknown")
REPLACEMENT_POLICIES = ("Failed", "TerminatingOrFailed")
COMPLETION_MODES = ("NonIndexed", "Indexed")
_JOB_NAME_LABELS = ("batch.kubernetes.io/job-name", "job-name")
_UID_LABELS = ("batch.kubernetes.io/controller-uid", "controller-uid")
_UID = "\0uid"  # the uid the server gives the Job on create, which no manifest can write
_HTTP_PATH = re.compile(r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+")
_SOFT_LIMIT = 100_000  # completions above which per-index backoff has limits of its own
_CRON_NAME_LIMIT = 52  # 63 less the 11 characters the CronJob controller adds to name a Job


def job_spec_problems(workload: Workload):
    kind = workload.obj.kind
    if kind not in ("Job", "CronJob"):
        return
    base = ("spec",) if kind == "Job" else ("spec", "jobTemplate", "spec")
    spec = as_map(workload.obj.get(base))
    written = as_str(as_map(workload.obj.value.get("metadata")).get("name"))  # not a generateName
    if kind == "Job":
        yield from _selector_problems(workload.obj.name, spec)
        yield from _name_label_problems(written, spec)
    else:
        yield from _cron_name_problems(workload.obj.value.get("metadata"))
    yield from _mode_problems(workload.obj.name if kind == "Job" else None, spec, base)
    yield from _failure_policy_problems(spec, workload.pod.spec, base)
    managed = as_str(spec.get("managedBy"))
    if managed is not None and _managed_by_problem(managed):
        yield base + ("managedBy",), f"managedBy {managed!r} is not a domain-prefixed path of at most 63 " \
                                     "characters (such as kueue.x-k8s.io/multikueue)"


def _managed_by_problem(text: str) -> bool:
    """apimachinery's domain-prefixed path (a DNS subdomain, '/', an HTTP path), at most 63 characters."""
    host, slash, path = text.partition("/")
    return len(text) > 63 or not slash or not host or not path or dns1123_subdomain_problem(host) is not None \
        or not _HTTP_PATH.fullmatch(path)


def _selector_problems(name: str, spec: dict):
    labels_path = ("spec", "template", "metadata", "labels")
    template_labels = as_map(as_map(as_map(spec.get("template")).get("metadata")).get("labels"))
    selector = spec.get("selector")
    if isinstance(selector, dict):
        yield from selector_problems(selector, ("spec", "selector"))
    if spec.get("manualSelector") is True:
        if not isinstance(selector, dict):  # the server also finds that no selector selects the template
            yield ("spec",), "has manualSelector: true but no selector"
        elif selects(selector, template_labels) is False:
            yield labels_path, "has a selector that does not select its pod template's labels"
        return
    # The server generates the selector (the Job's uid) and the template's job-name and controller-uid labels,
    # keeping any written; its selector must match what it generates, and select the template.
    for key in _JOB_NAME_LABELS:
        written = template_labels.get(key)
        if written is not None and as_str(written) != name:
            yield labels_path + (key,), f"labels its pods {key}={as_str(written)!r}, not its own name {name!r}; " \
                                        "leave the label to the server"
    for key in _UID_LABELS:
        if key in template_labels:
            yield labels_path + (key,), f"labels its pods {key}, which only the server can write (the Job's " \
                                        "uid); remove it"
    if not isinstance(selector, dict) or not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return
    generated = {**{key: name for key in _JOB_NAME_LABELS}, **{key: _UID for key in _UID_LABELS}}
    if selects(selector, generated) is False:
        yield ("spec", "selector"), "sets a selector of its own without manualSelector: true (the server " \
                                    "generates it from the Job's uid); remove the selector, or set manualSelector: true"
    if selects(selector, {**generated, **template_labels}) is False:
        yield labels_path, "has a selector that does not select its pod template's labels"


def _name_label_problems(name: str | None, spec: dict):
    """Unless manualSelector is true, the server labels the pod template job-name=<the Job's name> (both
    spellings, where not written) before it validates the labels: a name above 63 characters is no label
    value. A written job-name label is the template labels' check (or the selector's)."""
    if not name or len(name) <= 63 or spec.get("manualSelector") is True:
        return
    labels = as_map(as_map(as_map(spec.get("template")).get("metadata")).get("labels"))
    if not any(key in labels for key in _JOB_NAME_LABELS):
        yield ("metadata", "name"), f"has a name of {len(name)} characters; the server labels its pods " \
                                    "job-name=<name>, and a label value takes 63 at most"


def _cron_name_problems(metadata: object):
    """A CronJob's name takes at most 52 characters: its Jobs are named <name>-<11 characters>, at most 63. A
    name the server generates (the first 58 characters of generateName and 5 more) is held to it too."""
    name, generate = as_str(as_map(metadata).get("name")), as_str(as_map(metadata).get("generateName"))
    if name and len(name) > _CRON_NAME_LIMIT:
        yield ("metadata", "name"), f"has a name of {len(name)} characters; its Jobs are named " \
                                    f"<name>-<11 characters> (63 at most), so a CronJob's takes {_CRON_NAME_LIMIT}"
    elif not name and generate and min(len(generate), 58) + 5 > _CRON_NAME_LIMIT:
        yield ("metadata", "generateName"), f"has a generateName of {len(generate)} characters; the server adds 5 " \
                                            f"to name it, and a CronJob's name takes {_CRON_NAME_LIMIT} at most"


def _mode_problems(name: str | None, spec: dict, base: tuple):
    mode = as_str(spec.get("completionMode"))
    indexed = mode == "Indexed"
    if mode is not None and mode not in COMPLETION_MODES:
        yield base + ("completionMode",), f"completionMode {mode!r} is not NonIndexed or Indexed"
        return
    completions = as_int(spec.get("completions"))
    if spec.get("completions") is None and spec.get("parallelism") is None:
        completions = 1  # the server makes both 1 when both are unset
    per_index, max_failed = as_int(spec.get("backoffLimitPerIndex")), as_int(spec.get("maxFailedIndexes"))
    if max_failed is not None and per_index is None:
        yield base + ("maxFailedIndexes",), "maxFailedIndexes needs backoffLimitPerIndex"
    if not indexed:
        for key, value in (("backoffLimitPerIndex", per_index), ("maxFailedIndexes", max_failed)):
            if value is not None:
                yield base + (key,), f"{key} needs completionMode: Indexed"
        if spec.get("successPolicy") is not None:
            yield base + ("successPolicy",), "successPolicy needs completionMode: Indexed"
        return
    if spec.get("completions") is None and spec.get("parallelism") is not None:
        yield base + ("completions",), "an Indexed Job with a parallelism needs completions"
    parallelism = as_int(spec.get("parallelism"))
    if parallelism is not None and parallelism > 100_000:
        yield base + ("parallelism",), f"parallelism {parallelism} is above 100000, the most an Indexed Job takes"
    if max_failed is not None and completions is not None and max_failed > completions:
        yield base + ("maxFailedIndexes",), f"maxFailedIndexes {max_failed} is above completions {completions}"
    if max_failed is not None and max_failed > 100_000:
        yield base + ("maxFailedIndexes",), f"maxFailedIndexes {max_failed} is above 100000"
    if completions is not None and completions > _SOFT_LIMIT and per_index is not None:
        if max_failed is None:
            yield base + ("maxFailedIndexes",), f"above {_SOFT_LIMIT} completions, backoffLimitPerIndex needs " \
                                                "maxFailedIndexes"
        for key, value in (("parallelism", parallelism), ("maxFailedIndexes", max_failed)):
            if value is not None and value > 10_000:
                yield base + (key,), f"{key} {value} is above 10000, the most with backoffLimitPerIndex above " \
                                     f"{_SOFT_LIMIT} completions"
    if isinstance(spec.get("successPolicy"), dict) and completions is not None:
        yield from _success_policy_problems(spec["successPolicy"], completions, base + ("successPolicy",))
    if name and completions is not None and completions > 0:
        hostname = f"{name}-{completions - 1}"  # the last pod's hostname
        if dns1123_label_problem(hostname):
            yield ("metadata", "name"), f"an Indexed Job's pods are named {name}-<index>, and {hostname!r} " \
                                        f"{dns1123_label_problem(hostname)}"


def _success_policy_problems(policy: dict, completions: int, where: tuple):
    rules = as_list(policy.get("rules"))
    if not rules:
        yield where + ("rules",), "successPolicy has no rules (one to 20)"
    elif len(rules) > 20:
        yield where + ("rules",), f"successPolicy has {len(rules)} rules; at most 20"
    for index, rule_ in enumerate(rules):
        rule_, at = as_map(rule_), where + ("rules", index)
        count, indexes = as_int(rule_.get("succeededCount")), as_str(rule_.get("succeededIndexes"))
        if rule_.get("succeededCount") is None and indexes is None:
            yield at, "success rule names neither succeededCount nor succeededIndexes"
        total = None
        if indexes is not None:
            total, problem = _indexes(indexes, completions)
            if problem or len(indexes) > 64 * 1024:
                yield at + ("succeededIndexes",), f"succeededIndexes {indexes[:40]!r} " + \
                    (problem or "is longer than 64 KiB")
        if count is not None:
            if count < 0:
                yield at + ("succeededCount",), f"succeededCount {count} is negative"
            elif count > completions:
                yield at + ("succeededCount",), f"succeededCount {count} is above completions {completions}"
            elif total is not None and count > total:
                yield at + ("succeededCount",), f"succeededCount {count} is above the {total} indexes listed"


def _indexes(text: str, completions: int) -> tuple[int, str | None]:
    """(how many indexes, problem) of an index list such as `0,2-4`: intervals below completions, in
    increasing order, as the Job validation reads them."""
    if not text:
        return 0, None
    total, last = 0, None
    for interval in text.split(","):
        parts = interval.split("-")
        if len(parts) > 2 or not all(re.fullmatch(r"[+-]?[0-9]+", part) for part in parts):
            return 0, f"has {interval!r}, which is no index or interval such as 2 or 3-5"
        low, high = int(parts[0]), int(parts[-1])
        if max(low, high) >= completions:
            return 0, f"names index {max(low, high)}, past the last of {completions} completions"
        if (len(parts) == 2 and low >= high) or (last is not None and last >= low):
            return 0, "lists indexes out of increasing order"
        total += high - low + 1
        last = high
    return total, None


def _failure_policy_problems(spec: dict, pod_spec: dict, base: tuple):
    policy = spec.get("podFailurePolicy")
    replacement = as_str(spec.get("podReplacementPolicy"))
    if replacement is not None:
        allowed = ("Failed",) if isinstance(policy, dict) else REPLACEMENT_POLICIES
        if replacement not in allowed:
            yield base + ("podReplacementPolicy",), f"podReplacementPolicy {replacement!r} is not " + \
                (" or ".join(allowed)) + (" (with a podFailurePolicy)" if isinstance(policy, dict) else "")
    if not isinstance(policy, dict):
        return
    if as_str(pod_spec.get("restartPolicy")) == "OnFailure":
        yield base + ("template", "spec", "restartPolicy"), "a Job with a podFailurePolicy takes restartPolicy " \
                                                            "Never only"
    rules = as_list(policy.get("rules"))
    if len(rules) > 20:
        yield base + ("podFailurePolicy", "rules"), f"has {len(rules)} pod failure rules; at most 20"
    names = {as_str(as_map(c).get("name")) for kind in ("containers", "initContainers")
             for c in as_list(pod_spec.get(kind))}
    per_index = spec.get("backoffLimitPerIndex") is not None
    for index, rule_ in enumerate(rules):
        yield from _rule_problems(as_map(rule_), base + ("podFailurePolicy", "rules", index), names, per_index)


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
        status = as_str(pattern.get("status")) or "True"  # the server's default for a missing or empty one
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
