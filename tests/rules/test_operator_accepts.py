"""What the Dynamo operator accepts passes dgdlint, and what dgdlint says follows the operator release
the check is for: the admission rules add no noise of their own."""

from __future__ import annotations

import pytest

from dgdlint.engine import check_texts
from dgdlint.release import Release, release_of
from dgdlint.rules.webhook_grove import pcs_name
from dgdlint.schema import SchemaStage


def loud(text: str, stage=None) -> list[tuple[str, int, str]]:
    result = check_texts({"dgd.yaml": text}, stage)
    return [(f.rule, f.line, f.path) for f in result.findings if f.severity in ("error", "warning")]


def component(name: str, image: str = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0", extra: str = "") -> str:
    return (f"    - name: {name}\n      type: worker\n{extra}      podTemplate:\n        spec:\n          containers:\n"
            f"            - name: main\n              image: {image}\n"
            f"              command: [\"python3\", \"-m\", \"dynamo.vllm\"]\n"
            f"              args: [\"--model\", \"Qwen/Qwen3-0.6B\"]\n"
            f"              resources:\n                limits: {{nvidia.com/gpu: \"1\"}}\n")


def graph(name: str, components: str, annotations: str = "") -> str:
    return (f"apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata:\n  name: {name}\n{annotations}"
            f"spec:\n  backendFramework: vllm\n  components:\n{components}")


def test_a_v1beta1_graph_with_a_63_character_name_passes_admission():
    """The webhook takes it (Grove's PodCliqueSet name is shortened), and no admission rule speaks; but the labels
    the operator derives from the name, `nvidia.com/selector: <graph>-<component>` and
    `nvidia.com/dynamo-namespace: <namespace>-<graph>`, are over 63 characters, refused when it makes the graph's
    objects: operator-derived-name-invalid, a hygiene rule."""
    name = "qwen3-vl-8b-instruct-video-understanding-eu-west-1-production-a"
    assert len(name) == 63
    assert loud(graph(name, component("VllmDecodeWorker"))) == [
        ("operator-derived-name-invalid", 4, "metadata.name"),
        ("operator-derived-name-invalid", 8, "spec.components[0].name")]


def test_the_operator_shortens_a_long_graph_name_with_a_hash_of_the_whole_name():
    views = []  # no components: the whole budget is the graph's
    assert pcs_name("short", views) == "short"
    shortened = pcs_name("x" * 50, views)
    assert len(shortened) == 45 and shortened.startswith("x" * 40 + "-")
    assert pcs_name("x" * 50, views) != pcs_name("x" * 49 + "y", views)


def test_25_components_pass():
    components = "".join(component(f"Worker{index:02d}") for index in range(25))
    assert loud(graph("qwen3-fleet", components)) == []


def test_a_non_semver_tag_with_an_override_passes():
    override = '      runtimeVersionOverride: "1.6.0"\n'
    text = graph("qwen3-agg", component("VllmWorker", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:my-tag", override))
    assert loud(text) == []


def test_a_non_semver_tag_without_an_override_is_the_runtime_version_rule():
    text = graph("qwen3-agg", component("VllmWorker", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6"))
    assert loud(text) == [("runtime-version-required", 14, "spec.components[0].podTemplate.spec.containers[0].image")]


def test_grove_off_takes_the_name_budget_away():
    name = "VllmDecodeWorkerForQwen3VlVideoFrames1"
    assert [r for r, _, _ in loud(graph("qwen3-agg", component(name)))] == ["grove-name-budget"]
    off = '  annotations:\n    nvidia.com/enable-grove: "false"\n'
    assert loud(graph("qwen3-agg", component(name), off)) == []


def test_a_graph_level_duplicate_env_is_reported_as_the_graphs():
    text = graph("qwen3-agg", component("VllmWorker")).replace(
        "  components:\n", "  env:\n    - {name: DYN_LOG, value: info}\n    - {name: DYN_LOG, value: debug}\n"
                           "  components:\n")
    findings = [f for f in check_texts({"dgd.yaml": text}).findings if f.rule == "duplicate-env"]
    assert [(f.line, f.path) for f in findings] == [(9, "spec.env[1].name")]
    assert findings[0].message.startswith("DynamoGraphDeployment qwen3-agg graph-level env DYN_LOG appears twice")


# A release whose DGD schema has no runtimeVersionOverride (as 1.1.0's has none).
NO_OVERRIDE = Release("without runtimeVersionOverride", {"v1beta1": {
    "type": "object", "additionalProperties": False,
    "properties": {"spec": {"type": "object", "additionalProperties": False, "properties": {"components": {
        "type": "array", "items": {"type": "object", "additionalProperties": False,
                                   "properties": {"name": {"type": "string"}}}}}}}}})


def test_release_has_field_reads_the_schema():
    assert NO_OVERRIDE.has_field("v1beta1", ("spec", "components", "*", "name"))
    assert not NO_OVERRIDE.has_field("v1beta1", ("spec", "components", "*", "runtimeVersionOverride"))
    assert not NO_OVERRIDE.has_field("v1alpha1", ("spec",))
    assert Release("newest").has_field("v1beta1", ("spec", "components", "*", "anything"))


def test_no_runtime_version_rule_fires_for_a_release_without_the_field():
    from dgdlint.load import LoadResult, load_text
    from dgdlint.model import build_model
    from dgdlint.rules import REGISTRY, run_rules

    loaded = LoadResult()
    load_text("dgd.yaml", graph("cosmos3", component("Worker", "nvcr.io/nim/nvidia/cosmos3:2.1.0")) +
              "---\n" + graph("vllm", component("Worker", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:my-tag")), loaded)
    model = build_model(loaded)
    rules = [REGISTRY["runtime-version-required"], REGISTRY["runtime-version-advised"]]
    assert {f.rule for f in run_rules(model, rules)} == {"runtime-version-required", "runtime-version-advised"}
    model.release = NO_OVERRIDE
    assert run_rules(model, rules) == []


def test_the_bundled_1_1_0_release_has_no_runtime_version_override_and_no_rule_asks_for_it():
    stage = SchemaStage(dynamo_version="1.1.0")
    release = release_of(stage)
    assert release.name == "Dynamo 1.1.0"
    assert not release.has_field("v1alpha1", ("spec", "services", "*", "runtimeVersionOverride"))
    text = ("apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata:\n  name: qwen3\nspec:\n"
            "  services:\n    Worker:\n      componentType: worker\n      extraPodSpec:\n        mainContainer:\n"
            "          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:my-tag\n")
    assert loud(text, stage) == []
    assert [rule for rule, _, _ in loud(text)] == ["runtime-version-required"]  # the newest release asks


def test_a_grove_only_field_the_release_lacks_is_the_schemas_finding_not_a_rules():
    text = ("apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata:\n  name: qwen3\n"
            "  annotations:\n    nvidia.com/enable-grove: \"false\"\nspec:\n  priorityClassName: high\n"
            "  services:\n    Worker:\n      componentType: worker\n      extraPodSpec:\n        mainContainer:\n"
            "          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0\n")
    assert [rule for rule, _, _ in loud(text, SchemaStage(dynamo_version="1.1.0"))] == ["crd-schema"]
    assert [rule for rule, _, _ in loud(text)] == ["grove-pathway-required"]


@pytest.mark.parametrize("stage", [None, "bundled", "crd"])
def test_the_newest_release_has_runtime_version_override(stage, dynamo_crds):
    schema_stage = {None: None, "bundled": SchemaStage(),
                    "crd": SchemaStage([str(dynamo_crds.dgd)]) if stage == "crd" else None}[stage]
    release = release_of(schema_stage)
    assert release.has_field("v1beta1", ("spec", "components", "*", "runtimeVersionOverride"))


def test_no_remediation_advises_runtime_version_override_to_a_release_without_it():
    from dgdlint.docs import examples
    from dgdlint.engine import apply_policy

    text = examples("vp-codec-runtime-too-old")[0]
    newest = check_texts({"dgd.yaml": text}).findings
    assert {"runtimeVersionOverride" in f.remediation for f in newest if f.rule == "vp-codec-runtime-too-old"} == {True}
    result = check_texts({"dgd.yaml": text}, SchemaStage(dynamo_version="1.1.0"))
    apply_policy(result)
    old = [f for f in result.findings if f.rule == "vp-codec-runtime-too-old"]
    assert len(old) == 2 and not any("runtimeVersionOverride" in f.remediation for f in old)
    assert not any("runtimeVersionOverride" in f.remediation for f in result.findings)


def test_a_release_from_before_the_shortening_counts_the_graph_name_whole():
    text = ("apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata:\n"
            "  name: cosmos3-reasoner-nano-fp8-eu-west\nspec:\n  backendFramework: vllm\n  services:\n"
            "    ReasonerWorker:\n      componentType: worker\n      extraPodSpec:\n        mainContainer:\n"
            "          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.1.0\n")
    assert loud(text) == []  # 33 + 14 = 47: the newest operator shortens the graph name
    assert loud(text, SchemaStage(dynamo_version="1.1.0")) == [("grove-name-budget", 8, "spec.services.ReasonerWorker")]
    assert Release("r", date="2026-05-04").at_least("2026-05-11") is False
    assert Release("r").at_least("2026-05-11") and Release("r", date="2026-08-21").at_least("2026-05-11")
