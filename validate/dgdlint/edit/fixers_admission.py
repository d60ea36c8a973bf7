"""The fixes of admission rules: an annotation or label value YAML reads as a boolean or a number, quoted as
written; the runtime version of a NIM image whose runtime dgdlint's data knows; the operator's conversion
records where taking them out loses nothing the operator keeps. Imported by fixers.py, which holds the
registry."""

from __future__ import annotations

from dgdlint.defaulting import ENABLE_GROVE
from dgdlint.edit.plans import Ambiguous, DeleteKeys, QuoteScalar, SetField
from dgdlint.load.resolve import BOOL, resolve_plain
from dgdlint.model import Model, as_map
from dgdlint.rules.hygiene import DISABLE_DISCOVERY
from dgdlint.webhook_component import DISCOVERY_MODE, INTRA_POD
from dgdlint.webhook_model import graph_views

ENABLE_METRICS = "nvidia.com/enable-metrics"
# The operator's annotations it reads as a switch, by how it compares the text: whether the switch is on.
# Grove unless "false" in any case (the defaulting webhook); metrics unless exactly "false" (setMetricsLabels);
# pull-secret discovery off only for exactly "true" (graph.go).
_SWITCHES = {
    ENABLE_GROVE: lambda text: text.lower() != "false",
    ENABLE_METRICS: lambda text: text != "false",
    DISABLE_DISCOVERY: lambda text: text == "true",
}


def _switch_doubt(key: str, what: str):
    """For an operator switch: a YAML boolean whose text, quoted, the operator reads the other way (`Off`
    means false to YAML, but "Off" is not "false" to the operator) has two answers: the text or the meaning."""
    reads = _SWITCHES.get(key)
    if reads is None:
        return None

    def doubt(text: str) -> str | None:
        tag, meant = resolve_plain(text)
        if tag != BOOL or reads(text) == meant:
            return None
        word = "true" if meant else "false"
        return f"{what} is {text}, which YAML reads as {word}, but the operator reads the text \"{text}\" as " \
               f"{'on' if reads(text) else 'off'}: quote it as \"{text}\" or write \"{word}\", whichever is meant"

    return doubt


def fix_metadata_value(model: Model):
    """Each annotation and label value the rule reports, quoted as written (read from the file, not the value
    made text: `1.0` stays "1.0", `0x1F` "0x1F", `yes` "yes")."""
    from dgdlint.rules.webhook_annotations import metadata_value_not_string

    for hit in metadata_value_not_string(model):
        kind = "annotation" if hit.path[-2] == "annotations" else "label"
        key = hit.path[-1]
        what = f"{hit.obj.label}: {kind} {key}"
        yield QuoteScalar("metadata-value-not-string", hit.obj, hit.path, hit.obj.get(hit.path), what,
                          _switch_doubt(key, what) if kind == "annotation" else None)


def fix_runtime_version(model: Model):
    """runtimeVersionOverride with the runtime the NIM image bundles, where data/runtime-images.yaml knows it
    for the image's repository and tag; written after the component's type, as the chart writes it."""
    from dgdlint.rules.images import nim_components_without_override
    from dgdlint.runtime_images import bundled_runtime, nim_runtimes

    rule = "runtime-version-advised"
    for view, component_view, _tag in nim_components_without_override(model):
        component = component_view.component
        image = component.main.image
        known = bundled_runtime(image)
        if known is None:
            listed = " and ".join(f"{n.repository}:{n.tag} ({n.runtime})" for n in nim_runtimes())
            yield Ambiguous(rule, view.obj, component.main.image_path,
                            f"{component.label}: which Dynamo runtime {image!r} bundles is not in dgdlint's data "
                            f"(it knows {listed}, by tag, without a digest); set runtimeVersionOverride by hand")
            continue
        keys = list(as_map(view.obj.get(component_view.path)))
        kind = "componentType" if view.alpha else "type"
        after = keys.index(kind) + 1 if kind in keys else len(keys)
        yield SetField(rule, view.obj, component_view.path, "runtimeVersionOverride", known.runtime,
                       f"{component.label}: runtimeVersionOverride {known.runtime!r}, the Dynamo runtime "
                       f"{known.repository}:{known.tag} bundles", before=keys[after] if after < len(keys) else "")


def fix_conversion_records(model: Model):
    """A conversion record goes where the operator drops or ignores it, restores nothing from it, or it is a
    status; one whose fields the operator restores is a choice (lose them, or write the graph in the version
    that holds them)."""
    from dgdlint.rules.webhook_conversion import RECORDS, record_effect

    rule = "operator-conversion-annotation"
    for view in graph_views(model):
        for key in RECORDS:
            found = view.annotation(key)
            if found is None or not found.text:
                continue
            effect, idle = record_effect(view, key, found.text)
            if idle:
                yield DeleteKeys(rule, view.obj, (found.path,), f"{view.obj.label}: annotation {key} removed ("
                                                                f"{effect})")
            else:
                other = "v1alpha1" if not view.alpha else "v1beta1"
                yield Ambiguous(rule, view.obj, found.path, f"{view.obj.label}: annotation {key}: {effect}; remove "
                                f"it, or write the graph in {other} with the fields it holds (dgdlint convert): "
                                "which is meant is yours to choose")


def fix_failover_discovery(model: Model):
    """Container discovery for a graph whose failover is written as intra-pod: the annotation added, or a
    spelling of `container` the operator does not take (`Container`, "container ") written as it compares it.
    Another mode (`pod`), or a failover mode left to its intra-pod default, is a choice: container discovery,
    or inter-pod failover."""
    rule = "intra-pod-failover-discovery"
    for view in graph_views(model):
        intra = [c for c in view.components if c.failover_mode == INTRA_POD]
        mode = view.annotation(DISCOVERY_MODE)
        if not intra or (mode is not None and mode.text == "container"):
            continue
        label = view.obj.label
        written = mode is not None and (mode.text or "").strip().lower() == "container"
        chosen = all(as_map(c.failover.value).get("mode") for c in intra)
        if mode is not None and not written or mode is None and not chosen:
            shown = f"is {mode.text!r}" if mode is not None else "is not set"
            yield Ambiguous(rule, view.obj, mode.path if mode is not None else ("metadata",),
                            f"{intra[0].component.label} fails over intra-pod and {DISCOVERY_MODE} {shown}: "
                            "container discovery, or failover mode InterPod, is yours to choose")
            continue
        annotations = view.obj.get(("metadata", "annotations"))
        where, key, value = (("metadata", "annotations"), DISCOVERY_MODE, "container") if \
            isinstance(annotations, dict) else (("metadata",), "annotations", {DISCOVERY_MODE: "container"})
        yield SetField(rule, view.obj, where, key, value, f"{label}: annotation {DISCOVERY_MODE} \"container\" ("
                       f"component {intra[0].component.name} fails over intra-pod)")


def fix_operator_annotation(model: Model):
    """An annotation of the operator's with a fixed set of values, spelled in another case or with spaces:
    the value it spells. Another value (a word it does not take, a version that is none) is a person's."""
    from dgdlint.rules.webhook_annotations import (
        ORIGIN_VERSION,
        allowed_spelling,
        annotation_choices,
        choice_problem,
        is_loose_semver,
    )

    rule = "operator-annotation-invalid"
    for view in graph_views(model):
        origin = view.annotation(ORIGIN_VERSION)
        if origin is not None and not is_loose_semver(origin.text or ""):
            yield Ambiguous(rule, view.obj, origin.path, f"{view.obj.label}: annotation {ORIGIN_VERSION} is "
                            f"{origin.text!r}: which version is meant is yours to say (or remove it)")
    for view, key, text, path, label in annotation_choices(model):
        problem = choice_problem(key, text)
        if not problem:
            continue
        spelled = allowed_spelling(key, text)
        if spelled is None:
            yield Ambiguous(rule, view.obj, path, f"{label}: annotation {key} {problem}: which is meant is yours to "
                            "choose (or remove it for the operator's default)")
        else:
            yield SetField(rule, view.obj, path[:-1], key, spelled, f"{label}: annotation {key} {spelled!r}, the "
                           f"operator's spelling of {text!r}")
