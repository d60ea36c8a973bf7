"""The pipeline: load -> model -> schema stage -> rule stage -> findings, for files or a chart render."""

from __future__ import annotations

from dataclasses import dataclass, field

from dgdlint.findings import Finding
from dgdlint.load import LoadResult, load_paths, load_text
from dgdlint.model import Model, build_model


@dataclass
class CheckResult:
    """What a check found, on which model, and how the policy took it."""

    findings: list[Finding]
    model: Model
    files: list[str] = field(default_factory=list)
    schema_skipped: bool = False
    schema_source: str = ""  # the bundled release or the CRDs the custom resources were checked against
    suppressed: list = field(default_factory=list)  # policy.Suppressed: finding and the reason given
    baselined: int = 0
    fail_on: str = "error"

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def failed(self) -> bool:
        if self.fail_on == "warning":
            return self.count("error") + self.count("warning") > 0
        return self.count("error") > 0


def apply_policy(result: CheckResult, config=None, annotations: bool = True, baseline: set[str] | None = None) -> None:
    """Suppression annotations (which add findings of their own about bad annotations), then the configuration
    (selection, severities, fail-on: it can act on those too), then the baseline."""
    from dgdlint import policy
    from dgdlint.rules.catalogue import all_rules

    if annotations:
        known = {rule.name for rule in all_rules()}
        result.findings, result.suppressed = policy.apply_suppressions(result.findings, result.model.objects, known)
    if config is not None:
        result.findings = policy.apply_config(result.findings, config)
        result.fail_on = config.fail_on
    if baseline:
        result.findings, result.baselined = policy.apply_baseline(result.findings, baseline)
    result.findings.sort(key=Finding.sort_key)


def check_loaded(loaded: LoadResult, schema_stage=None, namespace: str = "default",
                 stored: dict | None = None, jobs: int | None = 1) -> CheckResult:
    """`stored`: on an update, the objects as they were (by ref), which some webhook rules read. `jobs` other
    than 1 lets a worker process run the schema stage of a large set while this one runs the rules."""
    from dgdlint.release import release_of

    model = build_model(loaded, namespace)
    model.release = release_of(schema_stage)
    model.stored = stored or {}
    findings = list(model.findings)
    findings.extend(_schema_and_rules(model, schema_stage, jobs))
    findings.sort(key=Finding.sort_key)
    skipped = schema_stage is None or not schema_stage.has_crds
    source = "" if schema_stage is None else schema_stage.description
    return CheckResult(findings, model, list(loaded.files), schema_skipped=skipped, schema_source=source)


# Fewer objects than this are checked in one process: a worker costs about what it saves.
MIN_OBJECTS_TO_SHARE = 32

# Rules whose work is their own: what they compute of the model is little used by other rules (measured on the
# presets' graphs: each costs about as much first as after every other rule). Where a worker runs the schema
# stage, these are tasks of their own, which the worker takes once the schema stage is done while dgdlint runs
# the other rules; a rule that reads what others compute would compute it again there. Largest first: the small
# ones last, taken by whichever process is free, so that both finish together.
PORTABLE_RULES = ("pod-spec-invalid", "env-source-invalid", "security-context-invalid", "scheduling-spec-invalid",
                  "resource-quantity-invalid", "node-affinity-unsatisfiable", "container-resources-invalid",
                  "volume-mount-unknown", "object-metadata-invalid", "duplicate-env", "compilation-cache-invalid",
                  "volume-mount-point-missing", "metadata-value-not-string", "image-tag-pinned",
                  "frontend-requests-gpu", "runtime-class-invalid")


def _schema_and_rules(model: Model, schema_stage, jobs: int | None) -> list[Finding]:
    """The schema stage's findings, then the rules' in catalogue order, as tasks for dgdlint.parallel, which
    need nothing of each other (the schema stage reads the objects' values, the rules the model): the rules
    but the portable ones, the schema stage, then each portable rule. A worker is a fork, so the model and the
    schemas are its own already; only its findings travel back."""
    from dgdlint.parallel import share, worker_count
    from dgdlint.rules import REGISTRY, run_rules

    rules = list(REGISTRY.values())
    portable = [REGISTRY[name] for name in PORTABLE_RULES]
    rest = [rule_ for rule_ in rules if rule_.name not in PORTABLE_RULES]

    def task(number: int) -> dict[str, list[Finding]]:
        if number == 0:
            return {rule_.name: run_rules(model, [rule_]) for rule_ in rest}
        if number == 1:
            return {"": schema_stage.check(model.objects) if schema_stage is not None else []}
        rule_ = portable[number - 2]
        return {rule_.name: run_rules(model, [rule_])}

    workers = worker_count(jobs) if len(model.objects) >= MIN_OBJECTS_TO_SHARE else 0
    found: dict[str, list[Finding]] = {}
    for part in share(2 + len(portable), task, workers):
        found.update(part)
    return found[""] + [finding for rule_ in rules for finding in found[rule_.name]]


def check_paths(paths, schema_stage=None, namespace: str = "default", stdin=None) -> CheckResult:
    return check_loaded(load_paths(paths, stdin=stdin), schema_stage, namespace)


def check_texts(texts: dict[str, str], schema_stage=None, namespace: str = "default") -> CheckResult:
    """Check in-memory manifests, {file name: YAML text}, as one set."""
    loaded = LoadResult()
    for name, text in texts.items():
        load_text(name, text, loaded)
    return check_loaded(loaded, schema_stage, namespace)
