"""`dgdlint fix`: repairs with one right answer, in place; everything else is reported and left."""

from __future__ import annotations

import base64
import copy
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
import yaml
from edit_support import run

from dgdlint.edit.fixers import FIXERS
from dgdlint.engine import apply_policy, check_paths

RULES = Path(__file__).resolve().parents[1] / "rules"
FAILING = sorted(p for rule in FIXERS for p in (RULES / rule / "fail").glob("*.yaml"))
PASSING = sorted(p for rule in FIXERS for p in (RULES / rule / "pass").glob("*.yaml"))
# Failing fixtures with more than one possible answer: fix reports them and changes nothing.
AMBIGUOUS = {
    "streaming-endpoint-mismatch/fail/frontend-endpoint-differs.yaml",  # two endpoints
    "streaming-endpoint-mismatch/fail/worker-endpoint-differs.yaml",  # two endpoints
    "streaming-endpoint-mismatch/fail/no-endpoint-anywhere.yaml",  # a name only a person can pick
    "streaming-timeout-mismatch/fail/worker-timeout-differs.yaml",  # two timeouts
    "streaming-endpoint-mismatch/fail/worker-endpoint-differs-in-case.yaml",  # two endpoints
    "streaming-endpoint-mismatch/fail/worker-endpoint-extends-the-frontend-s.yaml",  # two endpoints
    "streaming-timeout-mismatch/fail/worker-one-second-longer.yaml",  # two timeouts
    "streaming-timeout-mismatch/fail/worker-one-second-shorter.yaml",  # two timeouts
    "streaming-timeout-mismatch/fail/worker-fraction-longer.yaml",  # two timeouts
    "ngc-api-key-literal/fail/no-secret-named-anywhere.yaml",  # a Secret only a person can name
    "ngc-api-key-literal/fail/two-secrets-named.yaml",  # two Secrets
    "image-pull-secret-missing/fail/no-pull-secret-anywhere.yaml",  # a Secret only a person can name
    "download-job-model-mismatch/fail/workers-disagree.yaml",  # two precisions for one Job
    "video-num-frames-mismatch/fail/frontend-differs-v1beta1.yaml",  # two frame counts
    "duplicate-env/fail/graph-level-env-twice.yaml",  # two values
    "duplicate-env/fail/name-three-times.yaml",  # three values
    "duplicate-env/fail/worker-precision-appended.yaml",  # two precisions
    "metadata-value-not-string/fail/off-annotation-v1alpha1.yaml",  # "Off" or "false": the operator reads them apart
    "runtime-version-advised/fail/mirrored-nim-image.yaml",  # a mirror: which build it holds is not known
    "runtime-version-advised/fail/prerelease-nim-tag.yaml",  # a tag whose runtime dgdlint's data does not know
    "runtime-version-advised/fail/v-prefixed-nim-tag.yaml",  # idem
    "operator-conversion-annotation/fail/spec-record-from-kubectl-get.yaml",  # drop its fields, or keep them
    "intra-pod-failover-discovery/fail/pod-discovery-v1beta1.yaml",  # container discovery, or inter-pod failover
    "intra-pod-failover-discovery/fail/intra-pod-spelled-out-pod-discovery-v1beta1.yaml",  # idem
    "operator-annotation-invalid/fail/every-operator-annotation-v1beta1.yaml",  # words the operator does not take
    "operator-annotation-invalid/fail/origin-version-empty.yaml",  # a version only a person can name
    "operator-annotation-invalid/fail/origin-version-of-four-parts.yaml",  # which three parts
    "operator-annotation-invalid/fail/service-executor-backend-v1alpha1.yaml",  # threads: mp or ray
}
# Failing fixtures with one finding answered and another left: the first is fixed, the second reported.
PARTLY = {
    "operator-conversion-annotation/fail/v1alpha1-records.yaml",  # dgd-status goes; dgd-spec restores fields
}


def _findings(path: Path) -> Counter:
    result = check_paths([str(path)])
    apply_policy(result)
    return Counter((f.rule, f.severity) for f in result.findings if f.severity in ("error", "warning"))


def _name(case: Path) -> str:
    return case.relative_to(RULES).as_posix()


@pytest.mark.parametrize("case", FAILING, ids=_name)
def test_a_failing_fixture_of_a_fixable_rule_is_repaired_or_reported_as_ambiguous(capsys, tmp_path, case):
    rule = case.parent.parent.name
    target = tmp_path / case.name
    shutil.copy(case, target)
    before = _findings(target)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0
    after = _findings(target)
    if _name(case) in AMBIGUOUS:
        assert target.read_text() == case.read_text()
        assert f"[{rule}] [fix-ambiguous]" in err
        return
    if _name(case) in PARTLY:
        assert f"[{rule}] [fix-ambiguous]" in err and f"[{rule}] [fixed]" in err
        assert after[(rule, "warning")] + after[(rule, "error")] < before[(rule, "warning")] + before[(rule, "error")]
    else:
        assert (rule, "error") not in after and (rule, "warning") not in after, err
    assert not after - before, "the fix made new findings"
    assert f"[{rule}]" in err and "info: " in err
    # A second run finds nothing to do and changes nothing.
    fixed = target.read_text()
    code, _, err = run(capsys, "fix", str(target))
    assert (code, target.read_text()) == (0, fixed) and ("nothing to fix" in err or _name(case) in PARTLY)


@pytest.mark.parametrize("case", PASSING, ids=_name)
def test_a_passing_fixture_of_a_fixable_rule_is_left_alone(capsys, tmp_path, case):
    target = tmp_path / case.name
    shutil.copy(case, target)
    code, out, err = run(capsys, "fix", "--diff", str(target))
    assert (code, out) == (0, "") and "nothing to fix" in err


EDGE = RULES / "edge-dflash-enabled" / "fail" / "edge-worker-dflash-on.yaml"


def test_edge_gets_dflash_off_by_replacing_the_entry_not_adding_a_second(capsys, tmp_path):
    target = tmp_path / "edge.yaml"
    shutil.copy(EDGE, target)
    code, out, err = run(capsys, "fix", "--diff", str(target))
    assert code == 1 and target.read_text() == EDGE.read_text()  # --diff writes nothing, and fails while a fix waits
    assert out == f"""\
--- a/{target}
+++ b/{target}
@@ -116,7 +116,7 @@
         - name: NIM_PRECISION
           value: fp8
         - name: NIM_USE_DFLASH
-          value: "1"
+          value: "0"
         - name: NIM_STREAMING_SPEC_METHOD
           value: none
         - name: NIM_DYNAMO_WORKER
"""
    assert f"{target}:118: info: DynamoGraphDeployment cosmos3-reasoner component ReasonerWorker: " \
           "NIM_USE_DFLASH=0 (variant edge has no DFlash draft) [edge-dflash-enabled] [would-fix]" in err
    assert "[fixed]" not in err and err.endswith("dgdlint: would fix 1 finding in 1 file; nothing written\n")


def test_an_ignore_annotation_with_a_reason_keeps_the_fix_away(capsys, tmp_path):
    target = tmp_path / "edge.yaml"
    target.write_text(EDGE.read_text().replace(
        "  name: cosmos3-reasoner\n",
        "  name: cosmos3-reasoner\n  annotations:\n    dgdlint/ignore-edge-dflash-enabled: \"testing a draft\"\n", 1))
    code, out, err = run(capsys, "fix", "--diff", str(target))
    assert (code, out) == (0, "") and "nothing to fix" in err


def test_an_ignore_annotation_without_a_reason_is_not_given_one(capsys, tmp_path):
    target = tmp_path / "edge.yaml"
    target.write_text(EDGE.read_text().replace(
        "  name: cosmos3-reasoner\n", "  name: cosmos3-reasoner\n  annotations:\n"
                                      "    dgdlint/ignore-edge-dflash-enabled: \"\"\n", 1))
    run(capsys, "fix", str(target))
    assert 'dgdlint/ignore-edge-dflash-enabled: ""' in target.read_text()
    assert _findings(target)[("ignore-annotation-without-reason", "warning")] == 1


def test_check_with_fix_is_fix_then_check(capsys, tmp_path):
    target = tmp_path / "edge.yaml"
    shutil.copy(EDGE, target)
    code, out, _ = run(capsys, "check", "--fix", str(target))
    assert code == 0 and "0 errors" in out
    assert 'value: "0"' in target.read_text()


@pytest.mark.parametrize("diff", [False, True], ids=["in-place", "diff"])
def test_fix_of_a_file_that_does_not_parse_changes_nothing_and_names_it(capsys, tmp_path, diff):
    """The parse error is the answer (exit 1): fix does not go on to say there is nothing to fix, which would
    read as a clean file."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: [\n")
    code, out, err = run(capsys, "fix", *(["--diff"] if diff else []), str(bad))
    assert (code, out) == (1, "") and bad.read_text() == "kind: [\n"
    assert err.startswith(f"{bad}:2: error: YAML syntax error")
    assert "nothing to fix" not in err


def test_the_catalogue_marks_as_fixable_exactly_the_rules_fix_repairs():
    from dgdlint.rules import REGISTRY

    assert sorted(r.name for r in REGISTRY.values() if r.fixable) == sorted(FIXERS)


def test_the_readme_s_table_of_fixes_has_a_row_for_each_fixable_rule():
    import re

    readme = (RULES.parents[1] / "README.md").read_text()
    table = readme[readme.index("| rule | the fix |"):]
    table = table[:table.index("\n\n")]
    assert sorted(re.findall(r"^\| `([a-z0-9-]+)` \|", table, re.MULTILINE)) == sorted(FIXERS)


def test_rules_and_explain_show_whether_a_rule_is_fixable(capsys):
    _, out, _ = run(capsys, "rules")
    assert [line.split()[1] for line in out.splitlines() if line.endswith("[fixable]")] == [
        name for name in (line.split()[1] for line in out.splitlines() if line) if name in FIXERS]
    _, out, _ = run(capsys, "explain", "edge-dflash-enabled")
    assert "dgdlint fix: Sets NIM_USE_DFLASH=0 and NIM_STREAMING_SPEC_METHOD=none" in out
    _, out, _ = run(capsys, "explain", "streaming-frontend-adapter")
    assert "dgdlint fix: not fixable" in out
    _, out, _ = run(capsys, "explain", "ignore-annotation-without-reason")
    assert "`dgdlint fix` never writes one" in out


def test_a_rule_the_configuration_turns_off_is_not_fixed(capsys, tmp_path):
    target = tmp_path / "edge.yaml"
    shutil.copy(EDGE, target)
    config = tmp_path / "dgdlint.yaml"
    config.write_text("ignore: [edge-dflash-enabled]\n")
    code, out, err = run(capsys, "fix", "--diff", "--config", str(config), str(target))
    assert (code, out) == (0, "") and "nothing to fix" in err


SCRIPTED = RULES / "multimodal-flag-missing" / "fail" / "frontend-decoding-only-v1alpha1.yaml"


def test_the_multimodal_flag_goes_after_the_module_inside_a_script(capsys, tmp_path):
    target = tmp_path / "scripted.yaml"
    shutil.copy(SCRIPTED, target)
    assert run(capsys, "fix", str(target))[0] == 0
    assert "              exec python3 -m dynamo.vllm --enable-multimodal \\\n" in target.read_text()


def test_a_script_that_starts_the_module_twice_is_left_and_reported(capsys, tmp_path):
    target = tmp_path / "twice.yaml"
    target.write_text(SCRIPTED.read_text().replace(
        "              exec python3 -m dynamo.vllm \\\n",
        "              python3 -m dynamo.vllm --version\n              exec python3 -m dynamo.vllm \\\n"))
    code, out, err = run(capsys, "fix", "--diff", str(target))
    assert (code, out) == (0, "")
    assert "dynamo.vllm appears 2 times in one command string; add --enable-multimodal by hand " \
           "[multimodal-flag-missing] [fix-ambiguous]" in err


TIMEOUT_CASE = RULES / "streaming-timeout-mismatch" / "fail" / "frontend-timeout-worker-default.yaml"


def test_a_timeout_spelled_two_ways_is_one_value_and_is_copied_where_it_is_missing(capsys, tmp_path):
    """Frontend 300, a second worker 300.0 (the same timeout), the first worker unset: the one answer is
    300, copied as the frontend spells it; the worker that says 300.0 is left as it is."""
    import yaml

    documents = list(yaml.safe_load_all(TIMEOUT_CASE.read_text()))
    services = documents[-1]["spec"]["services"]
    second = copy.deepcopy(services["ReasonerWorker"])
    second["envs"].append({"name": "NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S", "value": "300.0"})
    services["SecondWorker"] = second
    target = tmp_path / "timeouts.yaml"
    target.write_text(yaml.safe_dump_all(documents, sort_keys=False))

    code, _, err = run(capsys, "fix", str(target))

    assert code == 0 and "fix-ambiguous" not in err, err
    fixed = list(yaml.safe_load_all(target.read_text()))[-1]["spec"]["services"]
    timeouts = {name: [e["value"] for e in service["envs"] if e["name"] == "NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S"]
                for name, service in fixed.items()}
    assert timeouts == {"Frontend": ["300"], "ReasonerWorker": ["300"], "SecondWorker": ["300.0"]}
    assert ("streaming-timeout-mismatch", "warning") not in _findings(target)


def test_capability_names_in_capitals_are_written_in_lower_case_and_video_added_once(capsys, tmp_path):
    case = RULES / "video-driver-capability-missing" / "fail" / "video-in-capitals-v1beta1.yaml"
    target = tmp_path / case.name
    shutil.copy(case, target)
    assert "value: COMPUTE,UTILITY,VIDEO" in case.read_text()

    code, _, err = run(capsys, "fix", str(target))

    assert code == 0, err
    assert "value: compute,utility,video\n" in target.read_text()
    assert "COMPUTE,UTILITY,VIDEO" not in target.read_text()


CLAIM = RULES / "claim-volume-default-class" / "fail" / "no-class-anywhere.yaml"


def test_a_claim_gets_its_volume_s_class_before_its_volume_name_with_the_comments_kept(capsys, tmp_path):
    target = tmp_path / "claim.yaml"
    text = CLAIM.read_text().replace("  volumeName: model-cache-nfs\n",
                                     "  # the NFS export\n  volumeName: model-cache-nfs  # written by hand\n")
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and 'storageClassName "" (PersistentVolume model-cache-nfs has no class)' in err
    expected = text.replace("  # the NFS export\n", '  storageClassName: ""\n  # the NFS export\n')
    assert target.read_text() == expected


KEY = RULES / "ngc-api-key-literal" / "fail"
SECRET_VALUE = "nvapi-FixtureOnly-0000-not-a-real-key-9f8e7d6c5b4a"


def test_a_literal_key_is_taken_from_the_secret_the_set_ships_and_never_shown(capsys, tmp_path):
    """No entry names a Secret for the key, but the set ships one holding it: that is the one answer."""
    target = tmp_path / "key.yaml"
    text = (KEY / "no-secret-named-anywhere.yaml").read_text().replace(
        "          value: nvapi-FixtureOnly-0000-not-a-real-key-9f8e7d6c5b4a\n",
        "          value: nvapi-FixtureOnly-0000-not-a-real-key-9f8e7d6c5b4a  # pasted from NGC\n")
    target.write_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: nim-keys\ntype: Opaque\n"
                      "data:\n  NGC_API_KEY: bm90LWEta2V5\n---\n" + text)
    code, out, err = run(capsys, "fix", "--diff", str(target))
    assert code == 1 and SECRET_VALUE not in err and "NGC_API_KEY from Secret nim-keys, key NGC_API_KEY, its literal " \
        "value removed from the file (rotate the key: it stays in the file's history)" in err
    added = [line[1:] for line in out.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert added == ["          valueFrom:", "            secretKeyRef:", "              name: nim-keys",
                     "              key: NGC_API_KEY"]
    original = target.read_text()
    code, _, err = run(capsys, "fix", str(target))
    # Only the entry changes: the literal (and the comment on its line) gives way to the reference.
    assert code == 0 and target.read_text() == original.replace(
        f"          value: {SECRET_VALUE}  # pasted from NGC\n",
        "          valueFrom:\n            secretKeyRef:\n              name: nim-keys\n"
        "              key: NGC_API_KEY\n")
    assert not [f for f in check_paths([str(target)]).findings if f.rule == "ngc-api-key-literal"]


def test_a_literal_beside_the_entry_s_own_secret_keeps_that_secret(capsys, tmp_path):
    target = tmp_path / "key.yaml"
    shutil.copy(KEY / "literal-beside-secret-key-ref.yaml", target)
    code, _, err = run(capsys, "fix", str(target))
    fixed = target.read_text()
    assert code == 0 and "from Secret ngc-worker-secret, key api-key" in err and SECRET_VALUE not in fixed + err
    assert "          valueFrom:\n            secretKeyRef:\n              name: ngc-worker-secret\n" \
           "              key: api-key\n" in fixed


def test_an_ambiguous_key_is_left_and_its_value_never_shown(capsys, tmp_path):
    target = tmp_path / "key.yaml"
    shutil.copy(KEY / "two-secrets-named.yaml", target)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and SECRET_VALUE not in err and target.read_text() == (KEY / "two-secrets-named.yaml").read_text()
    assert "which Secret holds NGC_API_KEY is yours to choose: the set names ngc-api-secret (key NGC_API_KEY) and " \
           "ngc-download-secret (key NGC_API_KEY) [ngc-api-key-literal] [fix-ambiguous]" in err


def test_a_key_written_as_a_string_item_is_left_for_a_person(capsys, tmp_path):
    """`- NGC_API_KEY=...` is no entry with a name and a value to rewrite (the schema refuses it too)."""
    target = tmp_path / "key.yaml"
    text = (KEY / "worker-key-literal.yaml").read_text().replace(
        f"        - name: NGC_API_KEY\n          value: {SECRET_VALUE}\n", f"        - NGC_API_KEY={SECRET_VALUE}\n")
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and target.read_text() == text and SECRET_VALUE not in err
    assert "NGC_API_KEY is written as a string item; replace it by an entry with valueFrom.secretKeyRef by hand " \
           "[ngc-api-key-literal] [fix-ambiguous]" in err


PULL = RULES / "image-pull-secret-missing" / "fail" / "no-pull-secret-anywhere.yaml"


def _pull_secret(name: str, host: str, encoded: bool) -> str:
    config = json.dumps({"auths": {host: {"auth": base64.b64encode(b"$oauthtoken:x").decode()}}})
    data = f"data:\n  .dockerconfigjson: {base64.b64encode(config.encode()).decode()}\n" if encoded else \
        f"stringData:\n  .dockerconfigjson: '{config}'\n"
    return f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: {name}\ntype: kubernetes.io/dockerconfigjson\n{data}---\n"


@pytest.mark.parametrize("encoded", [True, False], ids=["data", "stringData"])
def test_a_job_gets_the_pull_secret_for_nvcr_the_set_ships(capsys, tmp_path, encoded):
    """A pull Secret for another registry is no candidate; the one whose docker config names nvcr.io is."""
    target = tmp_path / "pull.yaml"
    target.write_text(_pull_secret("hub-pull", "https://index.docker.io/v1/", encoded)
                      + _pull_secret("ngc-pull", "https://nvcr.io", encoded) + PULL.read_text())
    code, out, err = run(capsys, "fix", "--diff", str(target))
    assert code == 1 and "Job cosmos3-reasoner-download: imagePullSecrets [ngc-pull], the pull secret for nvcr.io " \
        "the set uses [image-pull-secret-missing] [would-fix]" in err
    added = [line[1:] for line in out.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert added == ["      imagePullSecrets:", "        - name: ngc-pull"]


def test_two_pull_secrets_for_nvcr_are_a_choice_left_to_a_person(capsys, tmp_path):
    target = tmp_path / "pull.yaml"
    text = _pull_secret("ngc-a", "nvcr.io", True) + _pull_secret("ngc-b", "nvcr.io/nim", False) + PULL.read_text()
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and target.read_text() == text
    assert "which pull secret for nvcr.io it needs is yours to choose: the set names ngc-a and ngc-b" in err



def test_a_repeated_entry_goes_with_its_comments_and_the_others_keep_theirs(capsys, tmp_path):
    """The last entry of the name stays (the one env_var reads, and other fixes edit); the earlier one goes,
    its comments reported as dropped at their lines; the comments of the items after it follow them."""
    case = RULES / "duplicate-env" / "fail" / "job-env-twice.yaml"
    text = case.read_text()
    first = "            - name: NIM_MODEL_TYPE\n              value: reasoner\n            - name: NIM_MODEL_VARIANT\n"
    assert text.count(first) == 1
    commented = text.replace(first, "            # pasted twice\n            - name: NIM_MODEL_TYPE\n"
                                    "              value: reasoner  # again\n            # the variant\n"
                                    "            - name: NIM_MODEL_VARIANT\n")
    target = tmp_path / "job.yaml"
    target.write_text(commented)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and "the repeated NIM_MODEL_TYPE entries removed (each the same as the last, which " \
        "stays)" in err
    assert err.count("[edit-comment-dropped]") == 2 and ":44: warning" in err and ":45: warning" in err, err
    assert target.read_text() == text.replace(first, "            # the variant\n"
                                                     "            - name: NIM_MODEL_VARIANT\n")
    assert not [f for f in check_paths([str(target)]).findings if f.rule == "duplicate-env"]


def test_a_repeated_entry_another_fix_edits_is_edited_once_and_kept(capsys, tmp_path):
    """From review R4: the download Job's precision appended twice and different from the workers'. The
    last entry takes the workers' value and the first goes; no other entry is touched."""
    case = RULES / "download-job-model-mismatch" / "fail" / "job-precision-differs.yaml"
    text = case.read_text()
    entry = "            - name: NIM_PRECISION\n              value: bf16\n"
    assert text.count(entry) == 1
    target = tmp_path / "job.yaml"
    target.write_text(text.replace(entry, entry + entry))
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and "[duplicate-env] [fixed]" in err and "NIM_PRECISION=fp8" in err
    assert target.read_text() == text.replace(entry, entry.replace("bf16", "fp8"))
    assert not _findings(target)


def test_the_frontend_s_gpus_go_with_the_tables_they_leave_empty_and_nothing_else(capsys, tmp_path):
    case = RULES / "frontend-requests-gpu" / "fail" / "frontend-gpu-v1alpha1.yaml"
    text = case.read_text()
    target = tmp_path / "graph.yaml"
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and "component Frontend: its nvidia.com/gpu requests and limits removed (it only routes " \
        "HTTP)" in err
    # v1alpha1: the component-level table keeps its cpu and memory.
    expected = text.replace("          memory: 8Gi\n          gpu: \"1\"\n", "          memory: 8Gi\n").replace(
        "          memory: 16Gi\n          gpu: \"1\"\n", "          memory: 16Gi\n")
    assert expected != text and target.read_text() == expected

    v1beta1 = RULES / "frontend-requests-gpu" / "fail" / "frontend-eight-gpus-v1beta1.yaml"
    text = v1beta1.read_text()
    table = "              resources:\n                limits:\n                  nvidia.com/gpu: \"8\"\n"
    assert text.count(table) == 1
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and target.read_text() == text.replace(table, "")


def test_an_edge_switch_that_forgot_the_job_is_whole_in_one_run(capsys, tmp_path):
    """The Job takes Edge from the workers, and with it DFlash off: no second run, no edge-dflash-enabled."""
    target = tmp_path / "edge.yaml"
    shutil.copy(RULES / "download-job-model-mismatch" / "fail" / "edge-switch-forgot-job.yaml", target)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and "Job cosmos3-reasoner-download: NIM_MODEL_VARIANT=edge, as the workers of " \
        "DynamoGraphDeployment cosmos3-reasoner run [download-job-model-mismatch] [fixed]" in err
    assert "NIM_USE_DFLASH=0 (variant edge has no DFlash draft) [download-job-model-mismatch]" in err
    assert not _findings(target)


def test_a_finding_suppressed_on_the_graph_keeps_the_fix_off_the_job(capsys, tmp_path):
    """The finding is reported on the graph and the fix edits the Job: the graph's ignore annotation rules."""
    target = tmp_path / "job.yaml"
    text = (RULES / "download-job-model-mismatch" / "fail" / "job-precision-differs.yaml").read_text()
    marker = "kind: DynamoGraphDeployment\nmetadata:\n  name: cosmos3-reasoner\n"
    assert text.count(marker) == 1
    text = text.replace(marker, marker + "  annotations:\n    dgdlint/ignore-download-job-model-mismatch: "
                                         "\"bf16 cache warmed by hand\"\n")
    target.write_text(text)
    code, _, err = run(capsys, "fix", str(target))
    assert (code, target.read_text()) == (0, text) and "nothing to fix" in err


def test_a_frame_count_set_on_the_worker_only_reaches_the_frontend(capsys, tmp_path):
    """Unset on the frontend is 32 there: the one value written anywhere (512) is the one meant."""
    case = RULES / "video-num-frames-mismatch" / "fail" / "worker-only-v1alpha1.yaml"
    target = tmp_path / "video.yaml"
    shutil.copy(case, target)
    code, _, err = run(capsys, "fix", str(target))
    assert code == 0 and "component Frontend: DYN_MM_VIDEO_NUM_FRAMES=512, as the rest of the graph sets it" in err
    frontend = [d for d in yaml.safe_load_all(target.read_text()) if d][0]["spec"]["services"]["Frontend"]
    assert frontend["envs"] == [{"name": "DYN_MM_VIDEO_NUM_FRAMES", "value": "512"}]
