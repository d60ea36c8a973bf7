"""`dgdlint convert` against the operator's own conversion (deploy/operator/api/v1alpha1 of the reference
commit). Each case is a manifest a reviewer converted both with dgdlint and with a Go harness calling the
operator's ConvertTo/ConvertFrom (/work/notes/review-R2.md); the expected result is what the Go code gives,
reasoned out in each test from the Go function named there. Where dgdlint writes a different shape on
purpose, the test says why the two are the same object for the operator."""

from __future__ import annotations

from edit_support import comments, run
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


ALPHA_BOTH_LEVELS = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: e5
spec:
  services:
    W:
      componentType: worker
      envFromSecret: s1
      envs:
        - {name: A, value: svc}
      readinessProbe:
        httpGet: {path: /r, port: 1}
        periodSeconds: 5
      resources:
        limits: {gpu: "1", cpu: "2"}
        requests: {gpu: "1"}
      extraPodSpec:
        mainContainer:
          name: foo
          image: img:1.1.0
          envFrom:
            - configMapRef: {name: c1}
          env:
            - {name: Z, value: main}
            - {name: A, value: main}
          readinessProbe:
            timeoutSeconds: 3
          resources:
            limits: {nvidia.com/gpu: "2"}
            requests: {}
"""


def test_service_fields_and_main_container_merge_as_the_operator_merges_them(capsys, tmp_path):
    """buildSharedPodTemplateFromAlpha (shared_spec_conversion.go) builds the main container from the service's
    fields (buildMainContainerFromDedicated: envFrom [secretRef s1], env [A=svc], the readiness probe, the
    resources), then mergeExtraPodSpecMainContainer merges mainContainer over it with mergo.Merge WithOverride
    (imdario/mergo v0.3.16, deepMerge):
    - a non-empty slice replaces the other: mainContainer's envFrom [configMapRef c1] replaces [secretRef s1],
      so the secret is not in the result (review D14; dgdlint kept both);
    - env is merged by name afterwards (mergeEnvs: service order, mainContainer's value wins, its new names
      appended): A=main, Z=main;
    - two probe pointers are merged field by field, a non-empty field of mainContainer winning: {httpGet /r,
      periodSeconds 5} + {timeoutSeconds 3} is one probe with all three (review D15; dgdlint kept only
      mainContainer's handler-less probe and said the operator uses it);
    - resource maps are merged key by key: limits cpu 2 from the service, nvidia.com/gpu 2 from mainContainer;
      the empty requests map adds nothing, so requests keep nvidia.com/gpu 1;
    - the container is named main whatever mainContainer's name was."""
    code, out, err = _convert(capsys, tmp_path, ALPHA_BOTH_LEVELS, "v1beta1")
    assert code == 0
    assert _main(out) == {
        "name": "main", "image": "img:1.1.0",
        "envFrom": [{"configMapRef": {"name": "c1"}}],
        "env": [{"name": "A", "value": "main"}, {"name": "Z", "value": "main"}],
        "readinessProbe": {"timeoutSeconds": 3, "httpGet": {"path": "/r", "port": 1}, "periodSeconds": 5},
        "resources": {"limits": {"cpu": "2", "nvidia.com/gpu": "2"}, "requests": {"nvidia.com/gpu": "1"}},
    }
    assert "envFromSecret 's1' is not used: mainContainer.envFrom replaces it" in err
    assert "readinessProbe is set on the service and on mainContainer: merged field by field" in err


def test_an_empty_main_container_env_from_keeps_the_secret(capsys, tmp_path):
    """mergo does not let an empty slice override (isEmptyValue: length 0), so `envFrom: []` in mainContainer
    leaves the service's [secretRef s1] in place."""
    text = ALPHA_BOTH_LEVELS.replace("envFrom:\n            - configMapRef: {name: c1}", "envFrom: []")
    code, out, err = _convert(capsys, tmp_path, text, "v1beta1")
    assert code == 0
    assert _main(out)["envFrom"] == [{"secretRef": {"name": "s1"}}]
    assert "envFromSecret" not in err


ALPHA_PROBES = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: e1
spec:
  services:
    Frontend:
      componentType: frontend
      livenessProbe:
        httpGet: {path: /live, port: 8000}
      readinessProbe:
        httpGet: {path: /ready, port: http, scheme: HTTP}
        periodSeconds: 5
        failureThreshold: 3
      extraPodSpec:
        mainContainer:
          image: img:1.1.0
          livenessProbe:
            exec: {command: ["true"]}
          readinessProbe:
            httpGet: {path: /health, port: 9000}
            periodSeconds: 0
            failureThreshold: 6
"""


def test_probes_at_both_levels_merge_field_by_field_even_into_two_handlers(capsys, tmp_path):
    """The same merge (mergeExtraPodSpecMainContainer, mergo WithOverride), field by field down to the leaves:
    - liveness {httpGet /live} + mainContainer's {exec}: one probe with both handlers; the harness printed
      exactly that for this pair (review C9, e1.go.yaml). The API server refuses a probe with two handlers, so
      dgdlint warns;
    - readiness: httpGet is merged too (path /health from mainContainer, scheme HTTP from the service);
      periodSeconds 0 is empty to mergo and does not override 5; failureThreshold 6 does;
    - the port is an IntOrString, a struct mergo merges field by field: mainContainer's 9000 sets IntVal, but
      its Type (Int, 0) is empty and does not override the service's Type String, so the result is still
      the named port `http`."""
    code, out, err = _convert(capsys, tmp_path, ALPHA_PROBES, "v1beta1")
    assert code == 0
    main = _main(out)
    assert main["livenessProbe"] == {"exec": {"command": ["true"]}, "httpGet": {"path": "/live", "port": 8000}}
    assert main["readinessProbe"] == {"httpGet": {"path": "/health", "port": "http", "scheme": "HTTP"},
                                      "periodSeconds": 5, "failureThreshold": 6}
    assert ("livenessProbe is set on the service and on mainContainer: the operator merges them field by field "
            "into one probe with exec and httpGet, which the API server refuses (a probe has one handler)") in err
    assert "warning: Frontend: livenessProbe" in err and "info: Frontend: readinessProbe" in err


def test_the_comments_of_merged_probe_fields_survive(capsys, tmp_path):
    """A field the merge takes from mainContainer leaves the service's value out; its comments join the kept
    key (an end-of-line one as a line above it), so no comment is lost."""
    text = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: e1
spec:
  services:
    Frontend:
      componentType: frontend
      # service probe
      livenessProbe:  # on the key
        httpGet: {path: /live, port: 8000}  # the handler
        periodSeconds: 7  # seven
      extraPodSpec:
        mainContainer:
          image: img:1.1.0
          livenessProbe:
            periodSeconds: 3  # three
"""
    source = tmp_path / "graph.yaml"
    source.write_text(text)
    code, out, _ = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0
    assert sorted(comments(out)) == sorted(comments(text))
    assert YAML(typ="safe").load(out)["spec"]["components"][0]["podTemplate"]["spec"]["containers"][0][
        "livenessProbe"] == {"periodSeconds": 3, "httpGet": {"path": "/live", "port": 8000}}


ALPHA_VIEW_WITH_RECORD = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  annotations:
    # written by the operator
    nvidia.com/dgd-spec: >-
      {"version":1,"spec":{"components":[{"name":"decode",
      "experimental":{"grove":{"forceScalingGroup":true}}}]}}
    nvidia.com/dgd-status: '{}'
  name: e2
spec:
  services:
    decode:
      componentType: worker
      subComponentType: decode
      extraPodSpec:
        mainContainer:
          image: img:1.1.0
"""


def test_the_operators_private_records_are_left_out_with_a_warning(capsys, tmp_path):
    """A graph read with kubectl carries the operator's nvidia.com/dgd-spec (the fields of the other version
    this one cannot hold; here the v1beta1-only forceScalingGroup, as in the operator's own v1alpha1 view of a
    v1beta1 graph, review D17) and nvidia.com/dgd-status. ConvertTo (dynamographdeployment_conversion.go)
    restores the saved fields and then scrubDGDInternalAnnotations removes both, so no converted object keeps
    them (a v1alpha1 record on a v1beta1 object would be read back as the wrong version's fields). dgdlint
    cannot restore the fields: it removes the records as the operator does and warns that fields may be
    missing (it copied the record through, and lost forceScalingGroup without a word). An annotations
    mapping left empty goes too. The comment right above the record is the record's: it goes with it, and a
    warning says so (it was moved onto metadata.name, which it says nothing of)."""
    code, out, err = _convert(capsys, tmp_path, ALPHA_VIEW_WITH_RECORD, "v1beta1")
    assert code == 0
    assert out["metadata"] == {"name": "e2"}
    assert "experimental" not in out["spec"]["components"][0]
    assert ("warning: metadata.annotations nvidia.com/dgd-spec is the operator's private record of the v1beta1 "
            "fields this graph cannot hold") in err
    assert "info: metadata.annotations nvidia.com/dgd-status is the operator's private record of status" in err
    _, text, err = run(capsys, "convert", "--to", "v1beta1", str(tmp_path / "graph.yaml"))
    assert comments(text) == []
    line = ALPHA_VIEW_WITH_RECORD.splitlines().index("    nvidia.com/dgd-spec: >-") + 1
    assert f"graph.yaml:{line}: warning: this comment belonged to something the edit left out" in err, err


def test_going_back_the_private_records_are_left_out_too_and_other_annotations_stay(capsys, tmp_path):
    """ConvertFrom scrubs the same two annotations (scrubDGDInternalAnnotations) before it writes its own
    record; an ordinary annotation is the user's and stays."""
    text = BETA_ZERO_SHM.format(size="1Gi").replace(
        "  name: e4\n", "  name: e4\n  annotations:\n    team: video\n    nvidia.com/dgd-spec: '{}'\n")
    code, out, err = _convert(capsys, tmp_path, text, "v1alpha1")
    assert code == 0
    assert out["metadata"] == {"name": "e4", "annotations": {"team": "video"}}
    assert "nvidia.com/dgd-spec is the operator's private record of the v1alpha1 fields" in err


BETA_SIDECAR_WITH_PORTS = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: e6
spec:
  components:
    - name: w
      type: worker
      frontendSidecar: sidecar-frontend
      podTemplate:
        spec:
          containers:
            - name: main
              image: img:1.1.0
            - name: sidecar-frontend
              image: fe:1.1.0
              ports:
                - containerPort: 8000
              resources:
                limits: {cpu: "1"}
"""


def test_a_frontend_sidecar_v1alpha1_cannot_hold_stays_a_plain_container(capsys, tmp_path):
    """decomposePodTemplateFromHub leaves every container but main in extraPodSpec.containers, and
    restoreFrontendSidecarFromPodTemplate turns the sidecar back into a v1alpha1 frontendSidecar only when the
    operator's own record says it came from one (restoredDefaultFrontendSidecar); otherwise it stays as
    written and the reference goes to the record. The harness kept this sidecar, ports and resources, as a
    container (review C10); dgdlint refused the component (exit 1). Now it converts it the operator's way,
    with a warning that the component no longer names its frontend sidecar (a file has no record to keep the
    name in)."""
    code, out, err = _convert(capsys, tmp_path, BETA_SIDECAR_WITH_PORTS, "v1alpha1")
    assert code == 0
    assert _service(out, "w") == {"componentType": "worker", "extraPodSpec": {
        "mainContainer": {"image": "img:1.1.0"},
        "containers": [{"name": "sidecar-frontend", "image": "fe:1.1.0", "ports": [{"containerPort": 8000}],
                        "resources": {"limits": {"cpu": "1"}}}]}}
    assert "warning: w: the frontend sidecar sets ports, resources, which v1alpha1's frontendSidecar cannot hold" \
        in err and "[convert-frontend-sidecar]" in err


def test_a_frontend_sidecar_with_a_prefixed_secret_stays_a_plain_container(capsys, tmp_path):
    """envFromSecret is one whole secret; frontendSidecarEnvFromSecret (shared_spec_conversion.go) reads an
    envFrom as one only without a prefix and config map. A prefixed one would lose its prefix in
    frontendSidecar, so it stays a container, as the operator keeps it."""
    text = BETA_SIDECAR_WITH_PORTS.replace(
        "              ports:\n                - containerPort: 8000\n              resources:\n"
        "                limits: {cpu: \"1\"}\n",
        "              envFrom:\n                - {prefix: FE_, secretRef: {name: s1}}\n")
    code, out, err = _convert(capsys, tmp_path, text, "v1alpha1")
    assert code == 0
    assert "frontendSidecar" not in _service(out, "w")
    assert _service(out, "w")["extraPodSpec"]["containers"][0]["envFrom"] == [
        {"prefix": "FE_", "secretRef": {"name": "s1"}}]
    text = text.replace("{prefix: FE_, secretRef: {name: s1}}", "{secretRef: {name: s1}}")
    code, out, err = _convert(capsys, tmp_path, text, "v1alpha1")
    assert _service(out, "w")["frontendSidecar"] == {"image": "fe:1.1.0", "envFromSecret": "s1"}


def test_a_dropped_records_own_comments_go_with_it_and_a_comment_about_the_block_above_stays(capsys, tmp_path):
    """Of the comments around a removed record, those on its line and right above it are about it: they go
    with it (a warning names the line). Lines that a blank line parts from it are about what comes before
    (the team annotation): they stay where they were, byte for byte, and no comment lands on metadata.name."""
    text = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  annotations:
    team: video  # the team
    # about the team block above

    # the operator's record of v1beta1 fields
    nvidia.com/dgd-spec: '{}'  # written by the operator
  name: e2  # the graph's name
spec:
  services:
    decode:
      componentType: worker
      extraPodSpec:
        mainContainer:
          image: img:1.1.0
"""
    source = tmp_path / "graph.yaml"
    source.write_text(text)
    code, out, err = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0, err
    assert out.startswith("""\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  annotations:
    team: video  # the team
    # about the team block above

  name: e2  # the graph's name
spec:
""")
    assert f"{source}:9: warning: this comment belonged to something the edit left out" in err, err
    assert "# written by the operator" not in out and "record of v1beta1 fields" not in out
