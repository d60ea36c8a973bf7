"""The pipeline: load -> model -> schema stage -> rule stage -> findings, for files or a chart render."""

from __future__ import annotations

from dataclasses import dataclass, field

from dgdlint.findings import Finding
from dgdlint.load import LoadResult, load_paths, load_text
from dgdlint.model import Model, build_model


@dataclass
class CheckResult:
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


def _schema_and_rules(model: Model, schema_stage, jobs: int | None) -> list[Finding]:
    """The rules' findings and the schema stage's: two tasks for dgdlint.parallel, which need nothing of each
    other (the schema stage reads the objects' values, the rules the model). A worker is a fork, so the
    model and the compiled schemas are its own already; only its findings travel back."""
    from dgdlint.parallel import share, worker_count
    from dgdlint.rules import run_rules

    def task(number: int) -> list[Finding]:
        if number == 0:
            return run_rules(model)
        return schema_stage.check(model.objects) if schema_stage is not None else []

    workers = worker_count(jobs) if schema_stage is not None and len(model.objects) >= MIN_OBJECTS_TO_SHARE else 0
    rules, schema = share(2, task, min(workers, 1))
    return schema + rules


def check_paths(paths, schema_stage=None, namespace: str = "default", stdin=None) -> CheckResult:
    return check_loaded(load_paths(paths, stdin=stdin), schema_stage, namespace)


def check_texts(texts: dict[str, str], schema_stage=None, namespace: str = "default") -> CheckResult:
    """Check in-memory manifests, {file name: YAML text}, as one set."""
    loaded = LoadResult()
    for name, text in texts.items():
        load_text(name, text, loaded)
    return check_loaded(loaded, schema_stage, namespace)
