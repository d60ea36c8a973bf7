"""`dgdlint fix` of the admission and streaming rules whose answer is read from the file or dgdlint's data:
metadata values quoted as written, asynchronous scheduling off, the runtime a known NIM image bundles, the
operator's conversion records that can go."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from edit_support import comments, run

from dgdlint.engine import check_paths

RULES = Path(__file__).resolve().parents[1] / "rules"
CHART_VALUES = Path(__file__).resolve().parents[2] / "charts" / "cosmos3-reasoner" / "values.yaml"


def _changed(diff: str) -> list[str]:
    """The removed and added lines of a diff, without its headers."""
    return [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]


def _rules_found(path: Path) -> set[str]:
    return {f.rule for f in check_paths([str(path)]).findings if f.severity in ("error", "warning")}


GRAPH = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: qwen3-agg
  # written by hand
  labels:
    team: 42  # the team's number
  annotations:
{annotations}spec:
  backendFramework: vllm
  components:
    - name: VllmWorker
      type: worker
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0
              command: ["python3", "-m", "dynamo.vllm"]
              args: ["--model", "Qwen/Qwen3-0.6B"]
              resources:
                limits: {{nvidia.com/gpu: "1"}}
"""


def test_metadata_values_are_quoted_as_written_not_as_the_value_made_text(capsys, tmp_path):
    """`1.0` is the integer 1 to the API server and `0x1F` is 31: the fix writes the text, with each line's
    comment kept and no other line touched."""
    written = {"example.com/ratio": "1.0", "example.com/mask": "0x1F", "example.com/flag": "yes",
               "example.com/big": "1e3", "example.com/signed": "+1", "example.com/octal": "017",
               "example.com/short": "y", "example.com/huge": "18446744073709551615"}
    text = GRAPH.format(annotations="".join(f"    {key}: {value}  # as {value}\n" for key, value in written.items()))
    target = tmp_path / "graph.yaml"
    target.write_text(text)
    assert "metadata-value-not-string" in _rules_found(target)

    code, _, err = run(capsys, "fix", str(target))

    assert code == 0 and err.count("[metadata-value-not-string] [fixed]") == len(written) + 1, err
    expected = text.replace("    team: 42  #", '    team: "42"  #')
    for key, value in written.items():
        expected = expected.replace(f"    {key}: {value}  #", f'    {key}: "{value}"  #')
    assert target.read_text() == expected
    assert comments(target.read_text()) == comments(text)
    assert "metadata-value-not-string" not in _rules_found(target)
    annotations = yaml.safe_load(target.read_text())["metadata"]["annotations"]
    assert annotations == written  # every value the text the user wrote
    assert 'annotation example.com/ratio: 1.0 quoted as written, "1.0"' in err


def test_the_diff_of_a_quoted_annotation(capsys, tmp_path):
    case = RULES / "metadata-value-not-string" / "fail" / "boolean-annotation-v1alpha1.yaml"
    target = tmp_path / "grove.yaml"
    shutil.copy(case, target)
    code, out, err = run(capsys, "fix", "--diff", str(target))
    assert code == 1 and target.read_text() == case.read_text()
    assert out == f"""\
--- a/{target}
+++ b/{target}
@@ -5,7 +5,7 @@
 metadata:
   name: qwen3-agg
   annotations:
-    nvidia.com/enable-grove: false
+    nvidia.com/enable-grove: "false"
 spec:
   backendFramework: vllm
   services:
"""
    assert f'{target}:8: info: DynamoGraphDeployment qwen3-agg: annotation nvidia.com/enable-grove: false quoted as ' \
           'written, "false" (a string, as the API server needs) [metadata-value-not-string] [would-fix]' in err


def test_an_operator_switch_the_quoted_text_would_turn_the_other_way_is_left(capsys, tmp_path):
    """`Off` and `False` are false to YAML; quoted, the operator compares the text: "Off" is not "false" for
    Grove, "False" is not "false" for metrics. Which one is meant needs a person; `yes` and `true` mean what
    their text says, and are quoted."""
    text = GRAPH.format(annotations="    nvidia.com/enable-grove: Off\n    nvidia.com/enable-metrics: False\n"
                                    "    nvidia.com/disable-image-pull-secret-discovery: yes\n")
    target = tmp_path / "switches.yaml"
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0
    assert 'annotation nvidia.com/enable-grove is Off, which YAML reads as false, but the operator reads the text ' \
           '"Off" as on: quote it as "Off" or write "false", whichever is meant [metadata-value-not-string] ' \
           '[fix-ambiguous]' in err
    assert 'annotation nvidia.com/enable-metrics is False, which YAML reads as false, but the operator reads the ' \
           'text "False" as on' in err
    assert 'annotation nvidia.com/disable-image-pull-secret-discovery is yes, which YAML reads as true, but the ' \
           'operator reads the text "yes" as off' in err
    assert target.read_text() == text.replace("    team: 42  #", '    team: "42"  #')


def test_a_tagged_value_is_left_for_a_person(capsys, tmp_path):
    text = GRAPH.format(annotations="    example.com/count: !!int 5\n")
    target = tmp_path / "tagged.yaml"
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and "annotation example.com/count: its text could not be read as written; quote it by hand " \
                         "[metadata-value-not-string] [fix-ambiguous]" in err
    assert "example.com/count: !!int 5\n" in target.read_text()


ASYNC = RULES / "streaming-async-scheduling" / "fail"


def test_async_scheduling_is_turned_off_in_the_env_entry(capsys, tmp_path):
    target = tmp_path / "async.yaml"
    text = (ASYNC / "async-scheduling-env-yes.yaml").read_text()
    entry = '                - name: NIM_DYNAMO_ASYNC_SCHEDULING\n                  value: "Yes"\n'
    assert text.count(entry) == 1
    target.write_text(text)
    code, out, err = run(capsys, "fix", "--diff", str(target))
    assert code == 1 and _changed(out) == ['-                  value: "Yes"', '+                  value: "false"']
    assert "component ReasonerWorker: NIM_DYNAMO_ASYNC_SCHEDULING=false (streaming schedules synchronously) " \
           "[streaming-async-scheduling] [would-fix]" in err
    assert run(capsys, "fix", str(target))[0] == 0
    assert target.read_text() == text.replace(entry, entry.replace('"Yes"', '"false"'))
    assert "streaming-async-scheduling" not in _rules_found(target)


JSON_ENTRY = "          value: '{\"async_scheduling\":true,\"discovery_backend\":\"kubernetes\"," \
             "\"enable_multimodal\":true}'\n"


def test_the_json_form_has_only_its_async_scheduling_word_changed(capsys, tmp_path):
    """The one `true` of the key, in the text as written (its spacing, its key order, its quoting); an env entry
    that asks as well is turned off in the same run."""
    text = (ASYNC / "async-scheduling-in-discovery-json.yaml").read_text()
    assert text.count(JSON_ENTRY) == 1
    spaced = JSON_ENTRY.replace('"async_scheduling":true', '"async_scheduling" :  true')
    env = "        - name: NIM_DYNAMO_ASYNC_SCHEDULING\n          value: \"1\"\n"
    text = text.replace(JSON_ENTRY, spaced + env)
    target = tmp_path / "json.yaml"
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and err.count("[streaming-async-scheduling] [fixed]") == 2, err
    assert target.read_text() == text.replace(spaced + env, spaced.replace("true,", "false,", 1)
                                              + env.replace('"1"', '"false"'))
    assert "streaming-async-scheduling" not in _rules_found(target)


def test_a_json_form_that_writes_the_key_twice_or_escaped_is_left(capsys, tmp_path):
    text = (ASYNC / "async-scheduling-in-discovery-json.yaml").read_text()
    for written in ('{"async_scheduling":true,"async_scheduling":true}', '{"async\\u005fscheduling":true}'):
        changed = text.replace(JSON_ENTRY, f"          value: '{written}'\n")
        target = tmp_path / "json.yaml"
        target.write_text(changed)
        code, _, err = run(capsys, "fix", str(target))
        assert (code, target.read_text()) == (0, changed)
        assert "component ReasonerWorker: async_scheduling is not written once as `\"async_scheduling\": true` in " \
               "NIM_DISCOVERY_BACKEND's JSON; set it to false by hand [streaming-async-scheduling] " \
               "[fix-ambiguous]" in err


RUNTIME = RULES / "runtime-version-advised" / "fail"


def test_the_runtime_of_a_known_nim_tag_goes_after_the_component_s_type(capsys, tmp_path):
    for case, type_line in (("nim-worker-without-override.yaml", "      componentType: decode\n"),
                            ("streaming-frontend-without-override.yaml", "      type: frontend\n")):
        text = (RUNTIME / case).read_text()
        assert text.count(type_line) == 1
        target = tmp_path / case
        target.write_text(text)
        code, out, _ = run(capsys, "fix", "--diff", str(target))
        assert code == 1 and _changed(out) == ['+      runtimeVersionOverride: "1.5.0"']
        code, _, err = run(capsys, "fix", str(target))
        assert code == 0 and "runtimeVersionOverride '1.5.0', the Dynamo runtime nvcr.io/nim/nvidia/cosmos3:2.1.0 " \
                             "bundles [runtime-version-advised] [fixed]" in err
        assert target.read_text() == text.replace(type_line, type_line + '      runtimeVersionOverride: "1.5.0"\n')
        assert "runtime-version-advised" not in _rules_found(target)


def test_an_image_pinned_by_digest_is_left_for_a_person(capsys, tmp_path):
    text = (RUNTIME / "nim-worker-without-override.yaml").read_text()
    image = "          image: nvcr.io/nim/nvidia/cosmos3:2.1.0\n"
    pinned = image.replace("2.1.0", "2.1.0@sha256:" + "0" * 64)
    text = text.replace(image, pinned)
    target = tmp_path / "digest.yaml"
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert (code, target.read_text()) == (0, text)
    assert "bundles is not in dgdlint's data (it knows nvcr.io/nim/nvidia/cosmos3:2.1.0 (1.5.0), by tag, without a " \
           "digest); set runtimeVersionOverride by hand [runtime-version-advised] [fix-ambiguous]" in err


def test_the_known_runtime_is_the_chart_s_for_the_chart_s_image():
    """The data the fix writes from and the chart's defaults say the same of the image the chart runs."""
    from dgdlint.runtime_images import bundled_runtime

    values = yaml.safe_load(CHART_VALUES.read_text())
    image = f"{values['image']['repository']}:{values['image']['tag']}"
    known = bundled_runtime(image)
    assert known is not None and known.runtime == values["operator"]["runtimeVersionOverride"]


RECORDS = RULES / "operator-conversion-annotation" / "fail"


def test_a_status_record_goes_and_an_annotation_map_it_leaves_empty_goes_with_it(capsys, tmp_path):
    case = RECORDS / "status-record-not-json.yaml"
    text = case.read_text()
    record = "  annotations:\n    nvidia.com/dgd-status: not json\n"
    assert text.count(record) == 1
    target = tmp_path / "status.yaml"
    target.write_text(text)
    code, out, _ = run(capsys, "fix", "--diff", str(target))
    assert code == 1 and _changed(out) == ["-  annotations:", "-    nvidia.com/dgd-status: not json"]
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and "DynamoGraphDeployment qwen3-agg: annotation nvidia.com/dgd-status removed (it does not " \
                         "decode as the v1alpha1 status (it is not JSON)) [operator-conversion-annotation] " \
                         "[fixed]" in err
    assert target.read_text() == text.replace(record, "")
    assert not _rules_found(target) & {"operator-conversion-annotation", "operator-conversion-record-refused"}


def test_a_spec_record_whose_fields_are_restored_is_left_and_the_status_beside_it_goes(capsys, tmp_path):
    case = RECORDS / "v1alpha1-records.yaml"
    text = case.read_text()
    status = next(line for line in text.splitlines(keepends=True) if "nvidia.com/dgd-status:" in line)
    target = tmp_path / "records.yaml"
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and "annotation nvidia.com/dgd-spec: the conversion restores the v1beta1 fields it holds for " \
                         "Frontend" in err
    assert "remove it, or write the graph in v1beta1 with the fields it holds (dgdlint convert): which is meant is " \
           "yours to choose [operator-conversion-annotation] [fix-ambiguous]" in err
    assert target.read_text() == text.replace(status, "")


FAILOVER = RULES / "intra-pod-failover-discovery" / "fail"


def test_container_discovery_is_added_with_an_annotation_map_where_the_graph_has_none(capsys, tmp_path):
    case = FAILOVER / "enabled-intra-pod-v1alpha1.yaml"
    text = case.read_text()
    name = "metadata:\n  name: qwen3-agg\n"
    assert text.count(name) == 1 and "annotations" not in text
    target = tmp_path / "failover.yaml"
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and "DynamoGraphDeployment qwen3-agg: annotation nvidia.com/dynamo-kube-discovery-mode " \
                         "\"container\" (component VllmWorker fails over intra-pod) [intra-pod-failover-discovery] " \
                         "[fixed]" in err
    assert target.read_text() == text.replace(
        name, name + "  annotations:\n    nvidia.com/dynamo-kube-discovery-mode: container\n")
    assert not _rules_found(target)


def test_container_in_capitals_is_written_as_the_operator_compares_it_for_both_rules(capsys, tmp_path):
    case = FAILOVER / "container-discovery-in-capitals-v1beta1.yaml"
    text = case.read_text()
    target = tmp_path / "capitals.yaml"
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and "[intra-pod-failover-discovery] [fixed]" in err
    assert "[operator-annotation-invalid] [fixed]" in err
    assert target.read_text() == text.replace("discovery-mode: Container\n", "discovery-mode: container\n")
    assert not _rules_found(target)


def test_a_failover_mode_left_to_its_default_is_a_choice(capsys, tmp_path):
    """Failover enabled without a mode is intra-pod; without a discovery mode either, container discovery and
    inter-pod failover are both answers."""
    text = (FAILOVER / "enabled-intra-pod-v1alpha1.yaml").read_text()
    assert text.count("        mode: intraPod\n") == 1
    text = text.replace("        mode: intraPod\n", "")
    target = tmp_path / "default.yaml"
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert (code, target.read_text()) == (0, text)
    assert "component VllmWorker fails over intra-pod and nvidia.com/dynamo-kube-discovery-mode is not set: " \
           "container discovery, or failover mode InterPod, is yours to choose [intra-pod-failover-discovery] " \
           "[fix-ambiguous]" in err


def test_an_operator_annotation_spelled_otherwise_on_a_service_takes_the_operator_s_spelling(capsys, tmp_path):
    case = RULES / "operator-annotation-invalid" / "fail" / "service-executor-backend-v1alpha1.yaml"
    text = case.read_text()
    written = "nvidia.com/vllm-distributed-executor-backend: threads\n"
    assert text.count(written) == 1
    text = text.replace(written, 'nvidia.com/vllm-distributed-executor-backend: "MP "  # spaced\n')
    target = tmp_path / "service.yaml"
    target.write_text(text)
    code, out, err = run(capsys, "fix", "--diff", str(target))
    assert code == 1 and "component VllmWorker: annotation nvidia.com/vllm-distributed-executor-backend 'mp', the " \
                         "operator's spelling of 'MP ' [operator-annotation-invalid] [would-fix]" in err
    assert _changed(out) == [
        '-        nvidia.com/vllm-distributed-executor-backend: "MP "  # spaced',
        '+        nvidia.com/vllm-distributed-executor-backend: "mp"  # spaced']
