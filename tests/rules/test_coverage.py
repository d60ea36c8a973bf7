"""The kinds kind-validation-not-modelled treats as read are read: each has a failing fixture of an
admission rule (an error the API server's validation of that kind gives), so the note cannot go quiet for a
kind no rule checks."""

from __future__ import annotations

from pathlib import Path

import yaml

from dgdlint.rules import REGISTRY
from dgdlint.rules.coverage import MODELLED_KINDS

RULES = Path(__file__).parent


def _kinds_failed_by_admission_rules() -> set[str]:
    kinds = set()
    for name, rule_ in REGISTRY.items():
        if rule_.family != "admission" or rule_.severity != "error":
            continue
        for path in (RULES / name / "fail").glob("*.yaml"):
            for body in yaml.safe_load_all(path.read_text(encoding="utf-8")):
                if isinstance(body, dict) and isinstance(body.get("kind"), str):
                    kinds.add(body["kind"])
    return kinds


def test_every_kind_taken_as_modelled_is_failed_by_an_admission_rule():
    # a ServiceAccount's validation is its metadata alone (object-metadata-invalid's fixtures hold one)
    missing = sorted(MODELLED_KINDS - _kinds_failed_by_admission_rules())
    assert missing == [], f"no admission rule fails a fixture of {missing}"
