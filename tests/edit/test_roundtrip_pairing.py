"""The round trip never writes a whole document anew: each line it writes pairs with the file's own text, so
that what the edit does not change stays as written, or the edit is refused and the file left untouched.

Each graph here spaces `metadata.name` its own way, which a document written anew by ruamel would respell
(`name: g`): the line stays as written in every result."""

from __future__ import annotations

import pytest
from edit_support import run

HEAD = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name:   g   # spaced its own way
spec:
  services:
"""
HEAD_AFTER = HEAD.replace("v1alpha1", "v1beta1").replace("  services:\n", "  components:\n")

# (the services of a v1alpha1 graph, the components its conversion writes), each a layout the round trip once
# paired wrongly or not at all, and so wrote the whole document anew.
KEPT = {
    # `args` indented another way than the file's usual lists: the lines the conversion adds after them took
    # their indentation and did not read back as the graph.
    "a-list-indented-its-own-way": ("""\
    decode:
      envFromSecret: hf-token-secret
      componentType: worker
      extraPodSpec:
        mainContainer:
          image: registry.example/vllm:1.0.0
          command:
          - python3
          args:
            - --model
            - Qwen/Qwen3-0.6B
""", """\
  - name: decode
    type: worker
    podTemplate:
      spec:
        containers:
        - name: main
          image: registry.example/vllm:1.0.0
          command:
          - python3
          args:
            - --model
            - Qwen/Qwen3-0.6B
          envFrom:
          - secretRef:
              name: hf-token-secret
"""),
    # Every line of the services moves (the file's lists are indented), and `command` is not: it stays as the
    # file writes it, where it was written in ruamel's way.
    "a-moved-list-indented-its-own-way": ("""\
    decode:
      componentType: worker
      envs:
        - name: A
          value: "1"
      extraPodSpec:
        mainContainer:
          image: registry.example/vllm:1.0.0
          command:
          - python3
          args:
            - --model
            - Qwen/Qwen3-0.6B
""", """\
    - name: decode
      type: worker
      podTemplate:
        spec:
          containers:
            - name: main
              image: registry.example/vllm:1.0.0
              command:
              - python3
              args:
                - --model
                - Qwen/Qwen3-0.6B
              env:
                - name: A
                  value: "1"
"""),
    # `mainContainer` indented deeper than the file's usual: its fields stay where they are, and the container
    # `main` the conversion writes around them goes where they are.
    "a-new-parent-of-lines-kept-as-written": ("""\
    Frontend:
      componentType: frontend
      extraPodSpec:
              mainContainer:
                image: registry.example/frontend:1.0.0
                command: ["python3", "-m", "dynamo.frontend"]
""", """\
  - name: Frontend
    type: frontend
    podTemplate:
      spec:
        containers:
              - name: main
                image: registry.example/frontend:1.0.0
                command: ["python3", "-m", "dynamo.frontend"]
"""),
    # A service indented deeper than the rest of the file: its lines move with the conversion's new levels,
    # each as far from its parent as the file has it.
    "a-service-indented-deeper": ("""\
        worker:
          componentType: worker
          extraPodSpec:
            volumes:
                  - name: cache
                    emptyDir: {}
            mainContainer:
              image: registry.example/vllm:1.0.0
              volumeMounts:
              - name: cache
                mountPath: /cache
""", """\
        - name: worker
          type: worker
          podTemplate:
            spec:
              volumes:
                    - name: cache
                      emptyDir: {}
              containers:
                    - name: main
                      image: registry.example/vllm:1.0.0
                      volumeMounts:
                      - name: cache
                        mountPath: /cache
"""),
    # The pod's metadata indented deeper than the rest: the pod spec the conversion writes beside it lines up
    # with it, and the container's fields, which the conversion keeps, move with their new parents (their own
    # text, each as far from its parent as the file has it). They were refused.
    "kept-lines-move-with-their-new-parents": ("""\
    VllmWorker:
      componentType: worker
      extraPodMetadata:
          labels:
            gpu-pool: h100
      extraPodSpec:
        mainContainer:
          image: registry.example/vllm:1.0.0
          args:
          - --model
""", """\
  - name: VllmWorker
    type: worker
    podTemplate:
        metadata:
          labels:
            gpu-pool: h100
        spec:
          containers:
          - name: main
            image: registry.example/vllm:1.0.0
            args:
            - --model
"""),
    # A quoted string folded over two lines, which ruamel writes on one: the two lines pair with that one.
    "a-quoted-string-over-two-lines": ("""\
    prefill:
      envFromSecret: hf-token-secret
      componentType: worker
      extraPodSpec:
        mainContainer:
          image: registry.example/vllm:1.0.0
          args:
          - --kv-transfer-config
          - '{"kv_connector": "NixlConnector", "engine_id":
            "prefill-0"}'
""", """\
  - name: prefill
    type: worker
    podTemplate:
      spec:
        containers:
        - name: main
          image: registry.example/vllm:1.0.0
          args:
          - --kv-transfer-config
          - '{"kv_connector": "NixlConnector", "engine_id":
            "prefill-0"}'
          envFrom:
          - secretRef:
              name: hf-token-secret
"""),
    # Every line of the services moves (lists indented, as the file writes them); the blank line after a
    # block scalar, which ruamel leaves out, stays after it.
    "a-blank-line-after-a-block-scalar-that-moves": ("""\
    Frontend:
      componentType: frontend
      extraPodSpec:
        mainContainer:
          image: registry.example/vllm:1.0.0
          args:
            - >-
              exec python3 -m dynamo.frontend
              --http-port 8000

    Worker:
      componentType: worker
      extraPodSpec:
        mainContainer:
          image: registry.example/vllm:1.0.0
""", """\
    - name: Frontend
      type: frontend
      podTemplate:
        spec:
          containers:
            - name: main
              image: registry.example/vllm:1.0.0
              args:
                - >-
                  exec python3 -m dynamo.frontend
                  --http-port 8000

    - name: Worker
      type: worker
      podTemplate:
        spec:
          containers:
            - name: main
              image: registry.example/vllm:1.0.0
"""),
    # The last line has no line break: what the conversion adds after it went onto that line.
    "no-line-break-at-the-end": ("""\
    decode:
      envFromSecret: hf-token-secret
      componentType: worker
      extraPodSpec:
        mainContainer:
          image: registry.example/vllm:1.0.0
          args:
          - --tp
          - "1\"""", """\
  - name: decode
    type: worker
    podTemplate:
      spec:
        containers:
        - name: main
          image: registry.example/vllm:1.0.0
          args:
          - --tp
          - "1"
          envFrom:
          - secretRef:
              name: hf-token-secret"""),
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_a_conversion_keeps_the_file_s_own_text_where_ruamel_writes_it_another_way(capsys, tmp_path, case):
    services, components = KEPT[case]
    path = tmp_path / "graph.yaml"
    path.write_text(HEAD + services)
    code, _out, err = run(capsys, "convert", "--to", "v1beta1", "--write", str(path))
    assert code == 0, err
    assert path.read_text() == HEAD_AFTER + components


# A key the round trip cannot pair with its own writing of it (a double-quoted key over two lines after `?`,
# which ruamel writes as `"gpu-pool": h100` on one line), in the part the conversion moves (every line of the
# services is indented anew: lists are indented). A double-quoted string with an escaped line break, once
# refused here, is kept: test_roundtrip_strings.py.
EXPLICIT_KEY = HEAD + """\
    Frontend:
      componentType: frontend
      extraPodMetadata:
        labels:
          ? "gpu-\\
            pool"
          : h100
      extraPodSpec:
        mainContainer:
          image: registry.example/vllm:1.0.0
          command:
            - python3
"""


@pytest.mark.parametrize("mode", ["--write", "--diff", "stdout"])
def test_a_part_the_round_trip_cannot_pair_refuses_the_edit_and_leaves_the_file_as_it_was(capsys, tmp_path, mode):
    path = tmp_path / "graph.yaml"
    path.write_bytes(EXPLICIT_KEY.encode())
    code, out, err = run(capsys, "convert", "--to", "v1beta1", *([mode] if mode != "stdout" else []), str(path))
    assert code == 1
    assert path.read_bytes() == EXPLICIT_KEY.encode()
    assert out == ""
    line = EXPLICIT_KEY.splitlines().index('          ? "gpu-\\') + 1
    assert f"{path}:{line}: error: the edit changes lines here that the round trip cannot pair with the file's own " \
           "writing of them (a key or a value over several lines that it writes another way, such as a key after `?` " \
           "over several lines); the document written anew would reformat lines the edit does not change (write it " \
           "on one line); the file is left untouched [edit-refused]" in err


def test_a_fix_to_a_flow_list_folded_over_two_lines_writes_that_list_on_one_and_nothing_else(capsys, tmp_path):
    """The flag goes into a command written as a flow list over two lines: that list is written anew, on one line
    (the change cannot be made inside the user's folding); every other line stays as it was. The whole document
    was written anew."""
    from refdata import ROOT

    fixture = ROOT / "tests" / "rules" / "multimodal-flag-missing" / "fail" / "decode-worker-missing-v1alpha1.yaml"
    one_line = '          command: ["python3", "-m", "dynamo.vllm"]\n          args: ["--model", "Qwen/Qwen3-VL-8B-' \
               'Instruct", "--disaggregation-mode", "decode"]\n'
    folded = one_line.replace('"-m", "dynamo.vllm"]', '"-m",\n                    "dynamo.vllm"]')
    text = fixture.read_text().replace("  name: vlm-video\n", "  name:   vlm-video   # spaced its own way\n")
    assert text.count(one_line) == 1 and "name:   vlm-video" in text
    path = tmp_path / "graph.yaml"
    path.write_text(text.replace(one_line, folded))
    code, _out, err = run(capsys, "fix", str(path))
    assert code == 0, err
    assert path.read_text() == text.replace(one_line, one_line.replace('"dynamo.vllm"]', '"dynamo.vllm", '
                                                                                         '"--enable-multimodal"]'))


# A service indented deeper than the rest of the file, whose compilation cache the conversion moves out of its
# mounts: the container's own mount of the claim, written as the file writes it, pairs with the service's
# mount of the same name, and the container's lines would not read back as the converted graph.
DEEPER = HEAD.replace("  services:\n", "  pvcs:\n    - {name: cache, create: false}\n  services:\n") + """\
        worker:
          componentType: worker
          volumeMounts:
            - name: cache
              useAsCompilationCache: true
          extraPodSpec:
            volumes:
                  - name: cache
                    persistentVolumeClaim:
                      claimName: cache
            mainContainer:
              image: registry.example/vllm:1.0.0
              volumeMounts:
              - name: cache
                mountPath: /root/.cache/vllm
"""


def test_lines_that_would_not_read_back_as_the_edit_refuse_it_and_leave_the_file_as_it_was(capsys, tmp_path):
    path = tmp_path / "graph.yaml"
    path.write_bytes(DEEPER.encode())
    code, out, err = run(capsys, "convert", "--to", "v1beta1", "--write", str(path))
    assert code == 1 and out == ""
    assert path.read_bytes() == DEEPER.encode()
    line = DEEPER.splitlines().index("              - name: cache") + 1
    assert err.endswith(f"{path}:{line}: error: the edit's lines here, fitted into the file's own indentation, do "
                        "not read back as the edit; the document written anew would reformat lines the edit does not "
                        "change (indent this part as the rest of the file is); the file is left untouched "
                        "[edit-refused]\ndgdlint: nothing written: fix the errors above first (all files or none)\n")
