"""The markdown form of `plan` (for pull requests): tables per graph, Jobs, claims and totals, the GPU fit
findings, and a Mermaid flowchart of frontend, workers, cache claim and download Job."""

from __future__ import annotations

import re

REFERENCE = ("--chart", "charts/cosmos3-reasoner", "-f", "values/reference-2.1.0.yaml", "--format", "markdown")
NODE = re.compile(r"^\s+(n\d+)(\[\[|\[\(|\[)\"(.*)\"(\]\]|\)\]|\])$")
EDGE = re.compile(r"^\s+(n\d+) (-->|-\.->)\|\"([^\"]*)\"\| (n\d+)$")
JOB_NAME = re.compile(r"cosmos3-reasoner-download\b")  # the hook Job keeps one name (Helm re-creates it)


def mermaid_block(markdown: str) -> list[str]:
    [block] = re.findall(r"```mermaid\n(.*?)```", markdown, re.DOTALL)
    return block.splitlines()


def diagram(markdown: str) -> tuple[dict[str, str], list[tuple[str, str, str, str]]]:
    """({node id: label}, [(from label, arrow, edge label, to label)]), checking every line is well formed."""
    lines = mermaid_block(markdown)
    assert lines[0] == "flowchart LR"
    nodes, raw_edges = {}, []
    for line in lines[1:]:
        if line.strip() == "end" or line.lstrip().startswith("subgraph "):
            continue
        node, edge = NODE.match(line), EDGE.match(line)
        assert node or edge, f"not a node or an edge: {line!r}"
        if node:
            nodes[node.group(1)] = node.group(3)
        else:
            raw_edges.append(edge.groups())
    edges = []
    for source, arrow, label, target in raw_edges:
        assert source in nodes and target in nodes, "every edge joins declared nodes"
        edges.append((nodes[source].split("<br/>")[0], arrow, label, nodes[target].split("<br/>")[0]))
    return nodes, edges


def test_reference_markdown_has_tables_for_components_jobs_claims_and_totals(run_plan):
    code, out = run_plan(*REFERENCE)
    assert code == 0
    assert "#### DynamoGraphDeployment `cosmos3-reasoner` (namespace `default`, `nvidia.com/v1alpha1`)" in out
    assert ("| ReasonerWorker (decode) | 2 replicas | 1 x `nvidia.com/gpu` | any product | 16 (limit 16) | "
            "96Gi (limit 96Gi) | 64Gi | `nvcr.io/nim/nvidia/cosmos3:2.1.0` | - | "
            "`nim-model-cache` 200Gi at `/opt/nim/.cache` |") in out
    job = JOB_NAME.search(out).group(0)
    assert f"| Job `{job}` | 1 pod at once | 1 x `nvidia.com/gpu` |" in out
    assert "| `nim-model-cache` | 200Gi | ReadWriteMany | cluster default | PersistentVolumeClaim |" in out
    assert ("| every pod, Jobs included | 3 (`nvidia.com/gpu`) | 38 (limit 44) | 208Gi (limit 224Gi) |\n"
            "| first install, hooks run first | 2 (`nvidia.com/gpu`) | 36 (limit 40) | "
            "200Gi (limit 208Gi) |\n"
            "| once the Jobs have finished | 2 (`nvidia.com/gpu`) | 36 (limit 40) | 200Gi (limit 208Gi) |") in out
    assert "#### GPU fit\n\nNothing to check: no NIM worker or download Job names its GPU product" in out


def test_reference_mermaid_shows_frontend_workers_cache_claim_and_download_job(run_plan):
    _code, out = run_plan(*REFERENCE)
    job = "Job " + JOB_NAME.search(out).group(0)
    assert 'subgraph g1["DynamoGraphDeployment cosmos3-reasoner"]' in mermaid_block(out)[1]
    nodes, edges = diagram(out)
    assert sorted(label.split("<br/>")[0] for label in nodes.values()) == [
        "Frontend (frontend)", job, "ReasonerWorker (decode)",
        "claim nim-model-cache"]
    assert "ReasonerWorker (decode)<br/>2 replicas<br/>1 x nvidia.com/gpu per pod" in nodes.values()
    assert "claim nim-model-cache<br/>200Gi<br/>ReadWriteMany" in nodes.values()
    assert sorted(edges) == sorted([
        ("Frontend (frontend)", "-->", "requests", "ReasonerWorker (decode)"),
        (job, "-.->", "completes before", "ReasonerWorker (decode)"),
        ("ReasonerWorker (decode)", "-->", "/opt/nim/.cache", "claim nim-model-cache"),
        (job, "-->", "/opt/nim/.cache", "claim nim-model-cache"),
    ])


def test_the_mermaid_shapes_tell_components_jobs_and_claims_apart(run_plan):
    lines = mermaid_block(run_plan(*REFERENCE)[1])
    assert any(line.strip().startswith(tuple(f"n{i}[[" for i in range(9))) and "Job " in line for line in lines)
    assert any('[("claim nim-model-cache' in line for line in lines)  # a cylinder for storage


def test_a_streaming_graph_labels_the_frontend_edge_with_its_endpoint(run_plan):
    _code, out = run_plan("--chart", "charts/cosmos3-reasoner", "-f", "values/nano-fp8-streaming.yaml",
                          "--format", "markdown")
    _nodes, edges = diagram(out)
    assert ("Frontend (frontend)", "-->", "streaming cosmos3-reasoner.backend.streaming",
            "ReasonerWorker (decode)") in edges


def test_without_the_download_job_there_is_no_job_in_the_diagram(run_plan):
    _code, out = run_plan("--chart", "charts/cosmos3-reasoner", "-f", "values/nano-fp8.yaml", "--set",
                          "download.enabled=false", "--format", "markdown")
    nodes, edges = diagram(out)
    assert not any(label.startswith("Job ") for label in nodes.values())
    assert "#### Jobs and other workloads" not in out


def test_labels_escape_what_would_break_the_diagram(tmp_path, run_plan):
    path = tmp_path / "odd.yaml"
    path.write_text('apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: odd\nspec:\n  template:\n    spec:\n'
                    '      containers:\n        - name: c\n          image: "<registry>/x:1"\n'
                    '          volumeMounts: [{name: v, mountPath: "/a\\"b#c"}]\n'
                    '      volumes: [{name: v, persistentVolumeClaim: {claimName: data}}]\n')
    _code, out = run_plan(str(path), "--format", "markdown")
    nodes, edges = diagram(out)
    assert ("Job odd", "-->", "/a#quot;b#35;c", "claim data") in edges


def test_fit_findings_are_listed_under_the_totals(run_plan):
    code, out = run_plan("tests/rules/gpu-memory-floor/fail/super-bf16-one-gpu-on-h100.yaml", "--format", "markdown")
    assert code == 1
    fit = out.split("#### GPU fit\n\n", 1)[1]
    assert fit.startswith("Checked the GPU products of 2 NIM workers and download Jobs against the product table "
                          "and the support matrix's floors. Findings: 2 errors, 0 warnings, 0 info.\n\n"
                          "- **error** `gpu-memory-floor` tests/rules/gpu-memory-floor/fail/"
                          "super-bf16-one-gpu-on-h100.yaml:27: Job cosmos3-reasoner-download runs super bf16 on "
                          "1 GPU(s), which needs 135 GiB per GPU")
    assert "| ReasonerWorker (decode) | 2 replicas | 1 x `nvidia.com/gpu` | `NVIDIA-H100-80GB-HBM3` |" in out
