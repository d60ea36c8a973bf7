"""What a team decides about findings: rule selection and severities (configuration file), reasoned
suppressions on objects (`dgdlint/ignore-<rule>: "<reason>"`), and a baseline of accepted findings.

Applied after the stages, so every stage and format sees the same decisions."""

from __future__ import annotations

import fnmatch
import json
import os
from pathlib import Path

from dgdlint.findings import SEVERITIES, Finding
from dgdlint.load import format_path

IGNORE_PREFIX = "dgdlint/ignore-"
CONFIG_NAMES = (".dgdlint.yaml", ".dgdlint.yml")


class ConfigError(Exception):
    """A configuration or baseline file that cannot be used (a usage error, exit 2)."""


class Config:
    """A configuration file's settings. (A plain class, as findings.Finding is: read before the reading workers
    start.)"""

    def __init__(self, select: list[str] | None = None, ignore: list[str] | None = None,
                 severity: dict[str, str] | None = None, exclude: list[str] | None = None, fail_on: str = "error",
                 dynamo_version: str | None = None, service_node_port_range: str | None = None, source: str = ""):
        self.select = [] if select is None else select  # empty: every rule
        self.ignore = [] if ignore is None else ignore
        self.severity = {} if severity is None else severity
        self.exclude = [] if exclude is None else exclude  # glob patterns of paths not to read
        self.fail_on = fail_on
        self.dynamo_version = dynamo_version  # the bundled release of the schemas (default: the newest)
        self.service_node_port_range = service_node_port_range  # the kube-apiserver flag (default: 30000-32767)
        self.source = source

    def __repr__(self) -> str:
        return f"Config({vars(self)!r})"

    def excluded(self, path: str) -> bool:
        normalized = path.replace(os.sep, "/")
        return any(fnmatch.fnmatch(normalized, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern)
                   or normalized.startswith(pattern.rstrip("/") + "/") for pattern in self.exclude)


_KEYS = {"select", "ignore", "severity", "exclude", "fail-on", "dynamo-version", "service-node-port-range"}


def _from_mapping(data: object, source: str) -> Config:
    if data is None:
        return Config(source=source)
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the configuration must be a mapping")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ConfigError(f"{source}: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(_KEYS))})")
    config = Config(source=source)
    for key in ("select", "ignore", "exclude"):
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{source}: {key} must be a list of strings")
        setattr(config, key, value)
    severity = data.get("severity", {})
    if not isinstance(severity, dict):
        raise ConfigError(f"{source}: severity must map rule names to error, warning, info or off")
    for rule, level in list(severity.items()):
        if level is False:  # YAML 1.1 reads an unquoted `off` as false
            severity[rule] = level = "off"
        if level not in (*SEVERITIES, "off"):
            raise ConfigError(f"{source}: severity of {rule}: {level!r} is not error, warning, info or off")
    config.severity = dict(severity)
    fail_on = data.get("fail-on", "error")
    if fail_on not in ("error", "warning"):
        raise ConfigError(f"{source}: fail-on must be error or warning")
    config.fail_on = fail_on
    dynamo_version = data.get("dynamo-version")
    if dynamo_version is not None and not isinstance(dynamo_version, (str, int, float)):
        raise ConfigError(f"{source}: dynamo-version must be a release name such as 1.1.0")
    config.dynamo_version = None if dynamo_version is None else str(dynamo_version)
    ports = data.get("service-node-port-range")
    if ports is not None:
        from dgdlint.release import parse_node_port_range

        if not isinstance(ports, (str, int)) or isinstance(ports, bool):
            raise ConfigError(f"{source}: service-node-port-range must be a range such as 30000-32767")
        try:
            parse_node_port_range(str(ports))
        except ValueError as error:
            raise ConfigError(f"{source}: service-node-port-range {error}") from None
        config.service_node_port_range = str(ports)
    return config


def load_config(explicit: str | None = None, start: str | None = None) -> Config:
    """The configuration: `--config FILE`, else `.dgdlint.yaml` or `[tool.dgdlint]` in pyproject.toml in the
    working directory or the nearest parent that has one (up to the repository root)."""
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise ConfigError(f"{explicit}: no such configuration file")
        return _read(path)
    directory = Path(start or os.getcwd()).resolve()
    for folder in [directory, *directory.parents]:
        for name in CONFIG_NAMES:
            if (folder / name).is_file():
                return _read(folder / name)
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            import tomllib

            try:
                data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
                raise ConfigError(f"{pyproject}: {error}") from None
            if "dgdlint" in data.get("tool", {}):
                return _from_mapping(data["tool"]["dgdlint"], f"{pyproject} [tool.dgdlint]")
        if (folder / ".git").exists():
            break
    return Config()


def _read(path: Path) -> Config:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise ConfigError(f"{path}: cannot read the configuration: {' '.join(str(error).split())}") from None
    return _from_mapping(data, str(path))


def check_rule_names(config: Config, known: set[str]) -> None:
    named = set(config.select) | set(config.ignore) | set(config.severity)
    unknown = sorted(named - known)
    if unknown:
        raise ConfigError(f"{config.source}: unknown rule(s) {', '.join(unknown)} (see `dgdlint rules`)")


def apply_config(findings: list[Finding], config: Config) -> list[Finding]:
    out = []
    for finding in findings:
        if config.select and finding.rule not in config.select and finding.stage == "rule":
            continue
        if finding.rule in config.ignore:
            continue
        level = config.severity.get(finding.rule)
        if level == "off":
            continue
        if level:
            finding.severity = level
        out.append(finding)
    return out


# ---------------------------------------------------------------------------------------------
# Suppressions on objects


class Suppressed:
    """A finding its object's annotation suppresses, and the reason given."""

    def __init__(self, finding: Finding, reason: str):
        self.finding = finding
        self.reason = reason


def apply_suppressions(findings: list[Finding], objects,
                       known_rules: set[str]) -> tuple[list[Finding], list[Suppressed]]:
    """Drop findings whose object carries `dgdlint/ignore-<rule>` with a reason; report empty reasons and
    annotations that name no rule."""
    by_ref = {}
    problems: list[Finding] = []
    for obj in objects:
        annotations = obj.annotations
        entries = {}
        for key, value in annotations.items():
            if not isinstance(key, str) or not key.startswith(IGNORE_PREFIX):
                continue
            rule = key[len(IGNORE_PREFIX):]
            reason = value.strip() if isinstance(value, str) else ""
            path = ("metadata", "annotations", key)
            line, column = obj.position(path)
            if rule not in known_rules:
                problems.append(Finding(
                    rule="ignore-annotation-unknown-rule", severity="warning", stage="rule", file=obj.file,
                    line=line, column=column, path=format_path(path), object_ref=obj.ref,
                    message=f"{obj.label}: annotation {key} names no dgdlint rule",
                    remediation="Use `dgdlint/ignore-<rule>` with a rule name from `dgdlint rules`."))
                continue
            if not reason:
                problems.append(Finding(
                    rule="ignore-annotation-without-reason", severity="warning", stage="rule", file=obj.file,
                    line=line, column=column, path=format_path(path), object_ref=obj.ref,
                    message=f"{obj.label}: {key} has no reason, so it suppresses nothing",
                    remediation="Say why the finding does not apply, e.g. `dgdlint/ignore-" + rule
                                + ": \"pinned by digest in the release pipeline\"`."))
                continue
            entries[rule] = reason
        if entries:
            by_ref[obj.ref] = entries
    kept, suppressed = [], []
    for finding in findings:
        reason = by_ref.get(finding.object_ref, {}).get(finding.rule)
        if reason:
            suppressed.append(Suppressed(finding, reason))
        else:
            kept.append(finding)
    return kept + problems, suppressed


# ---------------------------------------------------------------------------------------------
# Baseline


def fingerprint(finding: Finding) -> str:
    """Stable across edits that move lines: rule, file, object and field path."""
    import hashlib  # here: it loads OpenSSL, which a check without a baseline does not need

    text = "\x1f".join((finding.rule, finding.file.replace(os.sep, "/"), finding.object_ref, finding.path))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def write_baseline(path: str, findings: list[Finding]) -> int:
    entries = sorted({fingerprint(f): {"rule": f.rule, "file": f.file, "object": f.object_ref, "path": f.path}
                      for f in findings}.items())
    document = {"version": 1, "findings": [{"fingerprint": key, **value} for key, value in entries]}
    try:
        Path(path).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot write the baseline: {error.strerror}") from None
    return len(entries)


def load_baseline(path: str) -> set[str]:
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        return {entry["fingerprint"] for entry in document["findings"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ConfigError(f"{path}: not a dgdlint baseline ({error})") from None


def apply_baseline(findings: list[Finding], known: set[str]) -> tuple[list[Finding], int]:
    kept = [f for f in findings if fingerprint(f) not in known]
    return kept, len(findings) - len(kept)
