"""The rules, registered by importing their modules here (an explicit list, in catalogue order)."""

from dgdlint.rules import (  # noqa: F401  (imported for their registrations)
    admission,
    cache,
    gpu_fit,
    hygiene,
    images,
    model_selection,
    streaming,
    video,
)
from dgdlint.rules.registry import REGISTRY, Hit, Rule, run_rules

__all__ = ["REGISTRY", "Hit", "Rule", "run_rules"]
