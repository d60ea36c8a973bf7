"""`dgdlint convert` against the operator's own conversion (deploy/operator/api/v1alpha1 of the reference
commit). Each case is a manifest a reviewer converted both with dgdlint and with a Go harness calling the
operator's ConvertTo/ConvertFrom (/work/notes/review-R2.md); the expected result is what the Go code gives,
reasoned out in each test from the Go function named there. Where dgdlint writes a different shape on
purpose, the test says why the two are the same object for the operator."""

from __future__ import annotations

from edit_support import run
from ruamel.yaml import YAML


def _convert(capsys, tmp_path, text: str, to: str) -> tuple[int, dict, str]:
    source = tmp_path / "graph.yaml"
    source.write_text(text)
    code, out, err = run(capsys, "convert", "--to", to, str(source))
    return code, (YAML(typ="safe").load(out) if out else None), err


def _service(result: dict, name: str) -> dict:
    return result["spec"]["services"][name]


def _main(result: dict, index: int = 0) -> dict:
    containers = result["spec"]["components"][index]["podTemplate"]["spec"]["containers"]
    return next(c for c in containers if c["name"] == "main")


BETA_ZERO_SHM = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: e4
spec:
  components:
    - name: fe
      type: frontend
      sharedMemorySize: {size}
      podTemplate:
        spec:
          containers:
            - name: main
              image: img:1.1.0
"""


def test_a_zero_shared_memory_size_in_any_spelling_becomes_disabled(capsys, tmp_path):
    """ConvertToSharedMemorySpec (shared_spec_conversion.go) tests `src.Sign() == 0` on the parsed quantity, so
    `0Gi`, `0.0` and `0` all give `{Disabled: true, Size: <the zero>}`; the harness printed `{disabled: true,
    size: "0"}` for `0Gi` (review D11). dgdlint writes `{disabled: true}`: the operator keeps the zero size only
    so that re-applies compare equal, and ConvertFromSharedMemorySpec maps Disabled to "0" whatever the size.
    The old `{size: 0Gi}` was refused by v1alpha1's CEL rule (a size must be set and positive unless
    disabled). A negative or non-zero size stays a size."""
    for size in ("0Gi", "0", '"0.0"', "0Mi"):
        code, out, err = _convert(capsys, tmp_path, BETA_ZERO_SHM.format(size=size), "v1alpha1")
        assert (code, err) == (0, "")
        assert _service(out, "fe")["sharedMemory"] == {"disabled": True}, size
    code, out, _ = _convert(capsys, tmp_path, BETA_ZERO_SHM.format(size="1Gi"), "v1alpha1")
    assert _service(out, "fe")["sharedMemory"] == {"size": "1Gi"}


BETA_LONE_SERVER = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: e3
spec:
  components:
    - name: fe
      type: frontend
      podTemplate:
        spec:
          containers:
            - name: server
              image: img:1.1.0
"""


def test_a_lone_container_not_named_main_stays_a_container_going_back(capsys, tmp_path):
    """decomposePodTemplateFromHub (shared_spec_conversion.go) takes as main only the container whose name is
    `main`; every other one goes to extraPodSpec.containers, and restoreDedicatedFieldsFromMain gets nil. The
    harness gave `extraPodSpec: {containers: [{name: server, image: img:1.1.0}]}` and no mainContainer (review
    D10). dgdlint made `server` the mainContainer, which turned a graph both versions refuse (no main image)
    into one they accept. Now it converts as the operator does, with a warning."""
    code, out, err = _convert(capsys, tmp_path, BETA_LONE_SERVER, "v1alpha1")
    assert code == 0
    assert _service(out, "fe") == {"componentType": "frontend",
                                   "extraPodSpec": {"containers": [{"name": "server", "image": "img:1.1.0"}]}}
    assert err == (f"{tmp_path / 'graph.yaml'}:11: warning: fe: no container is named main, so the service gets no "
                   "mainContainer and its containers stay in extraPodSpec.containers, as the operator converts it; "
                   "both versions need a main container with an image: name yours main "
                   "[convert-main-container-missing]\n")
