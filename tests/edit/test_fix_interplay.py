"""`dgdlint fix` where fixes meet (review R4): two fixes on one env list, a fix that makes another possible,
a Job fixed for two graphs, credentials kubelet would not use, and what `--diff` may show. The cases are in
tests/edit/cases/review-r4/, each saying what it pins."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml
from edit_support import run

from dgdlint.edit.fixers_hygiene import credential_matches
from dgdlint.engine import apply_policy, check_paths

CASES = Path(__file__).with_name("cases") / "review-r4"
KEY = "nvapi-FixtureOnly-0000-not-a-real-key-9f8e7d6c5b4a"


def _errors(path: Path) -> set[str]:
    result = check_paths([str(path)])
    apply_policy(result)
    return {f.rule for f in result.findings if f.severity == "error"}


def _fix(capsys, tmp_path, name: str) -> tuple[int, str, Path]:
    target = tmp_path / name
    shutil.copy(CASES / name, target)
    code, _, err = run(capsys, "fix", str(target))
    return code, err, target


# (case, rules whose errors the run clears, rules whose errors it leaves for a person)
ONE_RUN = [
    ("env-repeated-then-set.yaml", {"duplicate-env", "download-job-model-mismatch"}, set()),
    ("key-beside-optional-secret.yaml", {"ngc-api-key-literal", "env-value-and-value-from"}, set()),
    ("two-frontends-with-gpus.yaml", {"frontend-requests-gpu"}, set()),
    ("frontend-gpu-written-twice.yaml", {"frontend-requests-gpu"}, set()),
    ("literal-key-then-secret-entry.yaml", {"ngc-api-key-literal", "duplicate-env"}, set()),
    ("shared-job-second-graph-ignored.yaml", {"download-job-model-mismatch"}, set()),
    ("pull-credential-for-another-path.yaml", set(), {"image-pull-secret-missing"}),
    ("key-secret-with-generate-name.yaml", set(), {"ngc-api-key-literal"}),
    ("tags-selector-for-other-gpu-count.yaml", set(), {"download-job-model-mismatch", "download-job-gpu-selectors"}),
    ("job-variant-from-config-map.yaml", set(), {"download-job-model-mismatch"}),
]


@pytest.mark.parametrize(("name", "cleared", "left"), ONE_RUN, ids=[case[0] for case in ONE_RUN])
def test_one_run_clears_what_it_can_and_a_second_changes_nothing(capsys, tmp_path, name, cleared, left):
    before = _errors(CASES / name)
    assert cleared | left <= before, before
    code, err, target = _fix(capsys, tmp_path, name)
    after = _errors(target)
    assert code == 0 and not after & cleared and left <= after and after <= before, (after, err)
    assert KEY not in err
    fixed = target.read_text()
    code, _, err = run(capsys, "fix", str(target))
    assert (code, target.read_text()) == (0, fixed) and "[fixed]" not in err


def test_the_set_goes_to_the_entry_that_stays(capsys, tmp_path):
    _, _, target = _fix(capsys, tmp_path, "env-repeated-then-set.yaml")
    job = next(d for d in yaml.safe_load_all(target.read_text()) if d["kind"] == "Job")
    env = job["spec"]["template"]["spec"]["containers"][0]["env"]
    assert [e for e in env if e["name"] == "NIM_PRECISION"] == [{"name": "NIM_PRECISION", "value": "fp8"}]
    assert [e["value"] for e in env if e["name"] == "NIM_TAGS_SELECTOR"] == ["n_gpus=1,nim_tp=1,nim_dp=1"]


def test_the_entry_s_own_secret_reference_is_kept_as_written(capsys, tmp_path):
    text = (CASES / "key-beside-optional-secret.yaml").read_text()
    _, _, target = _fix(capsys, tmp_path, "key-beside-optional-secret.yaml")
    assert target.read_text() == text.replace(f"          value: {KEY}\n", "")


def test_a_job_two_graphs_share_is_fixed_when_either_s_finding_is_reported(capsys, tmp_path):
    code, err, _ = _fix(capsys, tmp_path, "shared-job-second-graph-ignored.yaml")
    assert code == 0 and "NIM_PRECISION=fp8, as the workers of DynamoGraphDeployment graph-a and " \
        "DynamoGraphDeployment graph-b run [download-job-model-mismatch] [fixed]" in err


@pytest.mark.parametrize(("key", "matches"), [
    ("nvcr.io", True), ("https://nvcr.io", True), ("https://nvcr.io/v2/", True), ("nvcr.io/v1/", True),
    ("nvcr.io/nim", True), ("nvcr.io/ni", True),  # kubelet compares the path as a text prefix
    ("*.io", True), ("nvcr.io/nvidia", False), ("nvcr.io:443", False), ("NVCR.IO", False), ("*.nvcr.io", False),
    ("docker.io", False),
])
def test_a_docker_config_key_matches_a_nim_image_as_kubelet_s_keyring_does(key, matches):
    """pkg/credentialprovider/keyring.go (1.37): a leading /v1/ or /v2/ means no path; the port and the number
    of host parts must agree, each part a glob match (case counts), the key's path a prefix of the image's."""
    assert credential_matches(key, "nvcr.io/nim/nvidia/cosmos3:2.1.0") is matches
    assert credential_matches(key, "nvcr.io/nim/nvidia/cosmos3@sha256:" + "0" * 64) is matches


def test_an_edit_the_anchors_refuse_is_never_called_fixed(capsys, tmp_path):
    code, err, target = _fix(capsys, tmp_path, "fix-in-anchored-document.yaml")
    assert code == 1 and "[edit-refused]" in err and "[fixed]" not in err
    assert target.read_text() == (CASES / "fix-in-anchored-document.yaml").read_text()


def test_the_diff_never_shows_a_key_in_a_changed_or_a_context_line(capsys, tmp_path):
    target = tmp_path / "set.yaml"
    shutil.copy(CASES / "repeat-beside-unfixable-key.yaml", target)
    code, out, err = run(capsys, "fix", "--diff", str(target))
    assert code == 1 and "[duplicate-env] [would-fix]" in err and KEY not in out + err
    assert "           value: <not shown>\n" in out  # the context line of the literal key
    shutil.copy(Path(__file__).parents[1] / "rules" / "ngc-api-key-literal" / "fail" / "worker-key-literal.yaml",
                target)
    code, out, _ = run(capsys, "fix", "--diff", str(target))
    assert code == 1 and KEY not in out and "-          value: <not shown>\n" in out
    short = target.read_text().replace(KEY, "hunter22")  # a key that does not look like one is known all the same
    target.write_text(short)
    code, out, _ = run(capsys, "fix", "--diff", str(target))
    assert code == 1 and "hunter22" not in out and "-          value: <not shown>\n" in out


def test_a_key_in_the_driver_capabilities_is_not_quoted_by_the_note_that_adds_video(capsys, tmp_path):
    """Found by the edit fuzzer: an NGC key pasted as NVIDIA_DRIVER_CAPABILITIES was quoted by the note of the
    fix that appends `video` to it, in --diff and in place alike."""
    text = (Path(__file__).parents[1] / "rules" / "video-driver-capability-missing" / "fail").glob("*.yaml")
    source = next(path for path in sorted(text) if "NVIDIA_DRIVER_CAPABILITIES" in path.read_text())
    target = tmp_path / "set.yaml"
    key = "nvapi-" + "Q" * 40
    original = source.read_text()
    target.write_text(re.sub(r"(NVIDIA_DRIVER_CAPABILITIES\n\s+value: )\S+", r"\g<1>" + key, original, count=1))
    assert key in target.read_text()
    for argv in (["fix", "--diff", str(target)], ["fix", str(target)]):
        code, out, err = run(capsys, *argv)
        assert "[video-driver-capability-missing]" in err and key not in out + err, (code, err)
        assert "its value looks like a credential: not shown" in err
    assert key + ",video" in target.read_text()  # the file written keeps its value

