"""Each preset against its neighbours, rendered from the chart: what moving a release from one preset to
another does. Expectations come from the spec: a mode switch loses sessions (warning); a precision change
replaces workers (sessions lost only in streaming mode) but the chart renames the download Job with the
model, so the download runs; a change of API shape alone changes nothing; the 2.1.0 reference moves to
another cache claim."""

from __future__ import annotations

import functools
import io
import json
import sys

import pytest

from dgdlint.cli import main
from dgdlint.cosmos import support_matrix
from dgdlint.diff import compare
from dgdlint.engine import check_loaded
from dgdlint.load import LoadResult, load_text
from dgdlint.model import build_model
from dgdlint.render import RenderedTemplate, RenderRequest, as_stream, render_chart
from refdata import CHART, VALUES


@functools.cache
def rendered(*values_files: str) -> tuple:
    templates = render_chart(RenderRequest(CHART, values_files=list(values_files)), engine="sdk")
    return tuple((t.source, t.text) for t in templates)


def loaded(prefix: str, *values_files: str) -> LoadResult:
    result = LoadResult()
    for source, text in rendered(*values_files):
        load_text(prefix + source, text, result)
    return result


def move(old_values: tuple, new_values: tuple) -> tuple[list, list]:
    """(diff findings, error findings of the new side's check) of moving a release between values."""
    old = build_model(loaded("old/", *old_values))
    new = check_loaded(loaded("", *new_values))
    errors = [f for f in new.findings if f.severity == "error"]
    return compare(old, new.model), errors


def preset(name: str) -> str:
    return str(VALUES / f"{name}.yaml")


def neighbours() -> list[tuple[str, str, set[str]]]:
    """(old preset, new preset, diff rules expected): the mode twin, and the other precisions of the variant."""
    pairs = []
    for variant, data in support_matrix().variants.items():
        precisions = sorted(data.get("precisions", {}))
        for precision in precisions:
            regular = f"{variant}-{precision}"
            if not (VALUES / f"{regular}.yaml").exists():
                continue
            pairs.append((regular, f"{regular}-streaming", {"diff-sessions-lost"}))
            pairs.append((f"{regular}-streaming", regular, {"diff-sessions-lost"}))
            for other in precisions:
                if other > precision and (VALUES / f"{variant}-{other}.yaml").exists():
                    pairs.append((regular, f"{variant}-{other}", set()))
                    pairs.append((f"{regular}-streaming", f"{variant}-{other}-streaming", {"diff-sessions-lost"}))
    return pairs


NEIGHBOURS = neighbours()


def test_the_neighbour_matrix_covers_every_variant_and_mode():
    assert {old.split("-")[0] for old, _, _ in NEIGHBOURS} == set(support_matrix().variants)
    assert len(NEIGHBOURS) >= 20


@pytest.mark.parametrize("old, new, expected", NEIGHBOURS, ids=[f"{o}->{n}" for o, n, _ in NEIGHBOURS])
def test_moving_to_a_neighbour_preset(old, new, expected):
    findings, errors = move((preset(old),), (preset(new),))
    assert errors == []
    assert [f.rule for f in findings] == sorted(expected)
    assert all(f.severity == "warning" for f in findings)


def test_regular_to_streaming_is_a_mode_change_on_the_same_deployment():
    [lost], _ = move((preset("nano-fp8"),), (preset("nano-fp8-streaming"),))
    assert lost.rule == "diff-sessions-lost"
    assert "from regular to streaming mode" in lost.message and "its 1 worker pod is replaced" in lost.message
    assert lost.file == "cosmos3-reasoner/templates/dynamographdeployment.yaml"
    assert lost.path.startswith("spec.services.ReasonerWorker.envs[")
    assert lost.related[0].file == "old/cosmos3-reasoner/templates/dynamographdeployment.yaml"


def test_a_precision_change_re_runs_the_download_because_the_chart_renames_the_job():
    findings, errors = move((preset("nano-fp8"),), (preset("nano-bf16"),))
    assert findings == [] and errors == []
    old_job = [t for s, t in rendered(preset("nano-fp8")) if s.endswith("job.yaml")]
    new_job = [t for s, t in rendered(preset("nano-bf16")) if s.endswith("job.yaml")]
    assert old_job != new_job


def test_a_precision_change_in_streaming_mode_loses_the_sessions_but_not_the_download():
    [lost], _ = move((preset("nano-fp8-streaming"),), (preset("nano-bf16-streaming"),))
    assert lost.rule == "diff-sessions-lost" and "env NIM_PRECISION" in lost.message


def test_the_v1beta1_shape_alone_replaces_no_worker(tmp_path):
    assert move((preset("nano-fp8"),), (preset("nano-fp8-v1beta1"),)) == ([], [])
    beta = tmp_path / "beta.yaml"
    beta.write_text("operator:\n  apiVersion: v1beta1\n")
    for streaming in ("nano-fp8-streaming", "super-bf16-streaming", "edge-fp8-streaming"):
        assert move((preset(streaming),), (preset(streaming), str(beta))) == ([], []), streaming


def test_the_reference_release_moves_to_another_cache_claim_and_drops_its_own():
    findings, errors = move((preset("reference-2.1.0"),), (preset("nano-fp8"),))
    assert errors == []
    assert [f.rule for f in findings] == ["diff-cache-changed", "diff-cache-changed"]  # replicas 2 -> 1: regular
    mount, dropped = sorted(findings, key=lambda f: f.file)
    assert (mount.file, mount.path) == ("cosmos3-reasoner/templates/dynamographdeployment.yaml",
                                        "spec.services.ReasonerWorker.volumeMounts[0]")
    new_dgd = dict(rendered(preset("nano-fp8")))[mount.file].splitlines()
    assert [line.strip() for line in new_dgd[mount.line - 1:mount.line + 1]] == [
        "- mountPoint: /opt/nim/.cache", "name: cosmos3-reasoner-model-cache"]
    assert "from claim nim-model-cache to cosmos3-reasoner-model-cache" in mount.message
    assert mount.related[0].path == "spec.services.ReasonerWorker.volumeMounts[0]"
    assert dropped.file == "old/cosmos3-reasoner/templates/persistentvolumeclaim.yaml"
    assert (dropped.path, dropped.object_ref) == ("metadata.name", "PersistentVolumeClaim/default/nim-model-cache")
    assert "Helm keeps it" in dropped.message


def test_reusing_an_existing_claim_drops_the_chart_s_own():
    findings, _ = move((preset("nano-fp8"),), (preset("nano-fp8-existing-cache"),))
    assert sorted((f.rule, f.object_ref) for f in findings) == [
        ("diff-cache-changed", "DynamoGraphDeployment/default/cosmos3-reasoner"),
        ("diff-cache-changed", "PersistentVolumeClaim/default/cosmos3-reasoner-model-cache"),
    ]


def test_the_chart_options_render_both_sides(capsys):
    code = main(["diff", "--chart", str(CHART), "--old-values", preset("nano-fp8"), "--new-values",
                 preset("nano-fp8-streaming"), "--engine", "sdk", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [f["rule"] for f in report["findings"] if f["severity"] != "info"] == ["diff-sessions-lost"]
    assert report["summary"]["objects"] == len(build_model(loaded("", preset("nano-fp8-streaming"))).objects)


def release_manifest(values: str) -> str:
    """What `helm get manifest` prints for a release installed with these values: `---`, `# Source:` lines."""
    return as_stream([RenderedTemplate(source, text) for source, text in rendered(values)])


def test_the_old_side_can_be_a_helm_get_manifest_stream(capsys, tmp_path):
    stream = release_manifest(preset("reference-2.1.0"))
    assert stream.startswith("---\n# Source: cosmos3-reasoner/templates/")
    release = tmp_path / "release.yaml"
    release.write_text(stream)
    code = main(["diff", str(release), "--chart", str(CHART), "--new-values", preset("nano-fp8"), "--engine", "sdk",
                 "--format", "json"])
    findings = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["severity"] != "info"]
    assert code == 0
    assert {(f["rule"], f["file"]) for f in findings} == {
        ("diff-cache-changed", "cosmos3-reasoner/templates/dynamographdeployment.yaml"),  # the workers' mount
        ("diff-cache-changed", str(release)),  # the release's own claim, dropped
    }


def test_the_release_manifest_can_come_from_stdin(capsys, monkeypatch):
    stream = release_manifest(preset("nano-fp8"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stream.encode())))
    code = main(["diff", "-", "--chart", str(CHART), "--new-values", preset("nano-fp8-streaming"), "--engine", "sdk",
                 "--format", "json"])
    findings = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["severity"] != "info"]
    assert code == 0
    [lost] = findings
    assert lost["rule"] == "diff-sessions-lost" and lost["related"][0]["file"] == "<stdin>"


def test_the_new_side_can_be_a_file_against_a_rendered_old_side(capsys, tmp_path):
    edited = tmp_path / "edited.yaml"
    stream = release_manifest(preset("nano-fp8"))
    edited.write_text(stream.replace("backendFramework: vllm", "backendFramework: sglang"))
    code = main(["diff", str(edited), "--chart", str(CHART), "--old-values", preset("nano-fp8"), "--engine", "sdk",
                 "--format", "json"])
    findings = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["severity"] != "info"]
    assert code == 1
    assert [(f["rule"], f["path"]) for f in findings] == [("diff-immutable-field", "spec.backendFramework")]
