"""The example video graphs under examples/ pass dgdlint (no error, no warning) and the CRD schema, cover
both API shapes of each graph, and the check shown in examples/README.md runs as written."""

from __future__ import annotations

import re
import shlex

from dgdlint.cli import main
from dgdlint.engine import check_paths
from dgdlint.video import video_graphs
from refdata import ROOT

EXAMPLES = ROOT / "examples"


def test_examples_have_no_error_or_warning_and_pass_the_crd(crd_schema_stage):
    result = check_paths([str(EXAMPLES)], crd_schema_stage)
    assert not result.schema_skipped
    assert [(f.file, f.line, f.rule, f.message) for f in result.findings if f.severity in ("error", "warning")] == []
    assert len(result.model.graphs) == 4


def test_examples_are_one_understanding_and_one_generation_graph_in_both_shapes():
    model = check_paths([str(EXAMPLES)]).model
    understanding = {g.obj.version for g in video_graphs(model) if g.media_workers}
    generation = {g.obj.version for g in video_graphs(model) if g.fastvideo_workers}
    assert understanding == {"v1alpha1", "v1beta1"}
    assert generation == {"v1alpha1", "v1beta1"}


def test_the_readme_check_runs_as_written(capsys, monkeypatch):
    monkeypatch.delenv("DGDLINT_CRD", raising=False)
    block = re.search(r"```console\n\$ (.*?)\n(.*?)```", (EXAMPLES / "README.md").read_text(), re.DOTALL)
    command, output = block.group(1), block.group(2).strip()
    words = shlex.split(command)
    assert words[0].endswith("dgdlint")
    monkeypatch.chdir(ROOT)
    assert main(words[1:]) == 0
    assert output in capsys.readouterr().out
