"""The rule registry: a rule is data (name, severity, title, rationale, remediation, what it reads)
plus a small `check(model)` that yields hits; the registry turns hits into findings."""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from dgdlint.findings import Finding, Location
from dgdlint.load import format_path
from dgdlint.model import KObject, Model


@dataclass
class Hit:
    """Where a rule fired: the object and field path it is reported on, and what to say."""

    obj: KObject
    path: tuple
    message: str
    remediation: str | None = None
    related: list[Location] = field(default_factory=list)


@dataclass(frozen=True)
class Rule:
    """A check rule: its identity, what it says and why, and the function that finds its hits."""

    name: str  # stable kebab-case id, also used by suppression annotations
    code: str  # short code, e.g. DGD101
    severity: str
    family: str
    title: str
    rationale: str
    remediation: str
    reads: tuple[str, ...]
    check: Callable[[Model], Iterable[Hit]]
    fail_example: str = ""
    pass_example: str = ""
    fixable: str = ""  # what `dgdlint fix` does about it, when it has one right answer (empty: not fixable)


@dataclass(frozen=True)
class DiffRule:
    """A rule of `dgdlint diff`: the same fields as a check rule, but its comparison reads two models."""

    name: str
    code: str
    severity: str
    title: str
    rationale: str
    remediation: str
    reads: tuple[str, ...] = ("DynamoGraphDeployment",)
    family: str = "diff"
    fail_example: str = ""
    pass_example: str = ""
    fixable: str = ""


REGISTRY: dict[str, Rule] = {}


def rule(*, name: str, code: str, severity: str, family: str, title: str, rationale: str, remediation: str,
         reads: tuple[str, ...] = ("DynamoGraphDeployment",), fail_example: str = "", pass_example: str = "",
         fixable: str = ""):
    """Register the decorated `check(model)` as a rule; `fixable` says what `dgdlint fix` does about it."""

    def register(check: Callable[[Model], Iterable[Hit]]):
        if name in REGISTRY:
            raise ValueError(f"rule {name} registered twice")
        if any(existing.code == code for existing in REGISTRY.values()):
            raise ValueError(f"rule code {code} used twice")
        REGISTRY[name] = Rule(name, code, severity, family, title, " ".join(rationale.split()),
                              " ".join(remediation.split()), reads, check, fail_example.strip("\n"),
                              pass_example.strip("\n"), " ".join(fixable.split()))
        return check

    return register


def hit_to_finding(rule_: Rule, hit: Hit) -> Finding:
    line, column = hit.obj.position(hit.path)
    return Finding(
        rule=rule_.name, severity=rule_.severity, stage="rule", file=hit.obj.file, line=line, column=column,
        path=format_path(hit.path), message=hit.message, remediation=hit.remediation or rule_.remediation,
        related=list(hit.related), object_ref=hit.obj.ref,
    )


def run_rules(model: Model, rules: Iterable[Rule] | None = None) -> list[Finding]:
    """Every selected rule over the whole model. A rule that raises becomes one finding, never a crash."""
    findings: list[Finding] = []
    for rule_ in rules if rules is not None else REGISTRY.values():
        try:
            for hit in rule_.check(model):
                findings.append(hit_to_finding(rule_, hit))
        except Exception as error:  # a bug in a rule must not hide the other rules' findings
            frame = traceback.extract_tb(error.__traceback__)[-1]
            findings.append(Finding(
                rule="internal-error", severity="error", stage="rule", file=model.files[0] if model.files else "-",
                line=1, column=1, path="",
                message=f"rule {rule_.name} failed ({type(error).__name__} at {frame.name}:{frame.lineno}); "
                        "its findings are missing",
                remediation="Report this to the dgdlint maintainers with the input that triggers it."))
    return findings
