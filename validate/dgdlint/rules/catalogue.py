"""The catalogue of everything dgdlint reports: the check rules (the registry), the rules of `dgdlint diff`
(metadata here, their comparison in dgdlint.diff), and the findings of the parse and schema stages.

Every command, format and document that names a rule reads it from here: `rules`, `explain`, SARIF's
rule list, the configuration's and the annotations' rule names, the generated docs."""

from __future__ import annotations

import difflib

from dgdlint.rules import REGISTRY, Rule
from dgdlint.rules.registry import DiffRule
from dgdlint.rules.webhook_update import UPDATE_RULES

# ---------------------------------------------------------------------------------------------
# The diff rules, as data: the same fields as a rule of the registry, so the catalogue and
# `explain` can read them, but each compares two models instead of checking one.


def _text(paragraph: str) -> str:
    return " ".join(paragraph.split())


DIFF_RULES: dict[str, DiffRule] = {r.name: r for r in (
    DiffRule(
        name="diff-immutable-field", code="DGD901", severity="error",
        title="The change keeps what the operator will not change in place",
        rationale=_text("""The operator's admission webhook rejects an update that changes
        `backendFramework`, adds, removes or renames components, or switches a component between
        single-node and multinode. The apply fails and the running deployment stays as it was."""),
        remediation=_text("""Keep the field as it is, or delete the DynamoGraphDeployment and create it
        again (its pods, and any live sessions, go with it)."""),
    ),
    DiffRule(
        name="diff-sessions-lost", code="DGD902", severity="warning",
        title="The change keeps the live streaming sessions",
        rationale=_text("""Streaming sessions live in one worker and never migrate. Switching the same
        deployment between regular and streaming mode replaces every worker; changing a streaming
        worker's image, env (envFrom too), resources, probes, mounts, pod settings or pod labels and
        annotations replaces its pods; scaling streaming workers
        down removes pods. Sessions on the replaced or removed pods are lost."""),
        remediation=_text("""Apply the change in a quiet window and tell session clients to reconnect,
        or run the new version as a second deployment (its own name and streaming endpoint) and move
        clients over before removing the old one."""),
        reads=("DynamoGraphDeployment",),
    ),
    DiffRule(
        name="diff-download-not-rerun", code="DGD903", severity="error",
        title="A change of the workers' model runs a download for it",
        rationale=_text("""The download Job fills the cache for one image, variant, precision and tags
        selector. When the change moves the workers to another model but not the Job, or leaves the
        Job as an object Kubernetes will not run again (unchanged, or changed in place: a Job's
        template is immutable), nothing downloads what the new workers load."""),
        remediation=_text("""Change the download Job with the workers, and give it a new name whenever
        what it downloads changes (the chart adds a hash of the model to the name), or delete the old
        Job before applying."""),
        reads=("DynamoGraphDeployment", "Job"),
    ),
    DiffRule(
        name="diff-cache-changed", code="DGD904", severity="warning",
        title="The change keeps the model cache",
        rationale=_text("""Workers that mount another claim start on a cache without the downloaded
        model, and the old claim keeps its space. A claim the old set created and the new one no
        longer does is deleted with its cached model, or, kept by Helm's resource policy, left
        unmanaged."""),
        remediation=_text("""Keep the claim name, or let the download Job fill the new claim before
        the workers start and delete the old claim on purpose."""),
        reads=("DynamoGraphDeployment", "PersistentVolumeClaim"),
    ),
    DiffRule(
        name="diff-deleted", code="DGD905", severity="warning",
        title="The change deletes no deployment or claim by omission",
        rationale=_text("""An object missing from the new set is deleted by `helm upgrade` and by any
        pruning apply: a DynamoGraphDeployment takes its pods (and their sessions) with it, a
        PersistentVolumeClaim its data."""),
        remediation=_text("""Keep the object in the new set, or delete it on purpose in a separate
        step."""),
        reads=("DynamoGraphDeployment", "PersistentVolumeClaim"),
    ),
    *UPDATE_RULES,
)}


# Findings that do not come from a rule of the registry, documented with it.
STAGE_FINDINGS = {
    "yaml-syntax": ("parse", "error", "The file is not valid YAML (the message names the problem and position)."),
    "yaml-duplicate-key": ("parse", "error", "A mapping repeats a key; the API server rejects it."),
    "yaml-encoding": ("parse", "error", "The file is not UTF-8 text (binary, or invalid bytes)."),
    "yaml-limits": ("parse", "error", "The document exceeds a safety bound (size, depth, alias expansion)."),
    "file-unreadable": ("parse", "error", "The file cannot be read."),
    "not-an-object": ("parse", "error", "A document is not a Kubernetes object (a list, a scalar, or no kind)."),
    "helm-render": ("parse", "error", "The chart did not render with the given values."),
    "helm-template": ("parse", "error", "A file is a Helm chart template, not a manifest: render the chart with "
                                        "--chart."),
    "no-objects": ("parse", "error", "The input holds no Kubernetes object (empty files, comments only, an empty "
                                     "folder, a failed render on stdin); --allow-empty accepts it."),
    "crd-schema": ("schema", "error", "A custom resource violates the schema of its CRD version."),
    "kubernetes-schema": ("schema", "error", "A built-in object violates Kubernetes' schema."),
    "crd-version-unknown": ("schema", "error",
                            "The apiVersion is not a version of the CRD or bundled release in use."),
    "crd-version-not-served": ("schema", "error", "The CRD does not serve this apiVersion."),
    "crd-cel-rule": ("schema", "error", "A CEL validation rule of the CRD (x-kubernetes-validations) fails; the "
                     "message is the CRD's."),
    "crd-cel-uncompiled": ("schema", "info", "A CEL rule of the CRD could not be compiled offline: not checked "
                           "(reported once per rule)."),
    "crd-list-duplicate": ("schema", "error", "Two entries of a list-map have the same keys, or a set repeats a "
                           "value (x-kubernetes-list-type)."),
    "kubernetes-list-duplicate": ("schema", "error", "A built-in object's list repeats a key (containers, volumes, "
                                  "volumeMounts...; ports and imagePullSecrets: a warning, as the API server warns), "
                                  "or has an entry with none of its keys (a ServiceAccount's secrets entry without "
                                  "a name) or a null entry, which server-side apply refuses."),
    "kubernetes-field-dropped": ("schema", "warning", "A field the API server drops as it stores the object, its "
                                 "feature gate being off by default (a container's lifecycle.stopSignal, a volume's "
                                 "defaultUser): it is taken without a word and has no effect. Also in a "
                                 "DynamoGraphDeployment's pod templates, whose pods the server makes the same."),
    "schema-skipped": ("schema", "info",
                       "No CRD given and no bundled schemas: custom resources were not schema-checked."),
    "schema-unavailable": ("schema", "info", "No schema is at hand for this kind: skipped."),
    "internal-error": ("rule", "error", "A rule failed on this input (a dgdlint bug); its findings are missing."),
    "ignore-annotation-without-reason": ("rule", "warning",
                                         "An ignore annotation without a reason: it suppresses nothing. "
                                         "`dgdlint fix` never writes one: a reason needs a person."),
    "ignore-annotation-unknown-rule": ("rule", "warning", "A `dgdlint/ignore-<rule>` annotation names no rule."),
}


def all_rules() -> list[Rule | DiffRule]:
    """The check rules of the registry, then the rules of `dgdlint diff` (same fields)."""
    return [*REGISTRY.values(), *DIFF_RULES.values()]


def known_names() -> set[str]:
    """Every name a configuration or an ignore annotation may use: rules and stage findings."""
    return {rule_.name for rule_ in all_rules()} | set(STAGE_FINDINGS)


def find_rule(name: str) -> Rule | DiffRule | None:
    """A rule by name or code, in any case (`DGD101`, `dgd101`, `Streaming-Endpoint-Mismatch`)."""
    wanted = name.strip().lower()
    for rule_ in all_rules():
        if wanted in (rule_.name.lower(), rule_.code.lower()):
            return rule_
    return None


def find_stage_finding(name: str) -> str | None:
    """The name of a parse or schema stage finding, in any case."""
    wanted = name.strip().lower()
    return next((known for known in STAGE_FINDINGS if known == wanted), None)


def close_names(name: str) -> list[str]:
    """Names and codes that look like `name`, for a "did you mean"."""
    candidates = {}
    for rule_ in all_rules():
        candidates[rule_.name] = rule_.name
        candidates[rule_.code.lower()] = rule_.code
    for stage_name in STAGE_FINDINGS:
        candidates[stage_name] = stage_name
    matches = difflib.get_close_matches(name.strip().lower(), list(candidates), n=3, cutoff=0.6)
    return [candidates[match] for match in matches]
