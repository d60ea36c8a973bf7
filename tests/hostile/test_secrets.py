"""No output, log or finding ever contains the value of NGC_API_KEY, of another secret-looking env value,
or of Secret data, in any format, whichever stage or rule looks at it."""

from __future__ import annotations

import pytest

from dgdlint.cli import main

SECRET = "nvapi-TOPSECRET-0123456789abcdef"
MANIFEST = f"""\
apiVersion: v1
kind: Secret
metadata:
  name: ngc-api-secret
type: Opaque
stringData:
  NGC_API_KEY: {SECRET}
  extra: 12345
data:
  bad: {SECRET}!!
---
apiVersion: batch/v1
kind: Job
metadata:
  name: leaky
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: nvcr.io/nim/nvidia/cosmos3:2.1.0
          env:
            - name: NGC_API_KEY
              value: {SECRET}
            - name: HF_TOKEN
              value: 1234567890123456789
            - name: NIM_CACHE_PATH
              value: {{ "nested": "{SECRET}" }}
---
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: leaky
spec:
  envs:
    - name: NGC_API_KEY
      value: {SECRET}
  services:
    Worker:
      componentType: worker
      envs:
        - name: NGC_API_KEY
          value: ["{SECRET}"]
        - NGC_API_KEY={SECRET}
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nim/nvidia/cosmos3:2.1.0
          env:
            - name: NGC_API_KEY
              value: {SECRET}
"""


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github"])
def test_no_format_echoes_a_secret(capsys, tmp_path, fmt, dynamo_crds):
    target = tmp_path / "leaky.yaml"
    target.write_text(MANIFEST)
    args = ["check", "--format", fmt, "--show-fix", str(target)] if fmt == "text" else ["check", "--format", fmt,
                                                                                         str(target)]
    args[1:1] = ["--crd", str(dynamo_crds.newest)]
    code = main(args)
    captured = capsys.readouterr()
    assert code == 1
    everything = captured.out + captured.err
    assert "ngc-api-key-literal" in everything or "ngc-api-key-literal" in everything.replace("%2C", ",")
    assert SECRET not in everything
    assert "1234567890123456789" not in everything


def test_a_render_failure_never_repeats_an_ngc_key():
    from dgdlint.render import render_finding

    message = "values don't meet the specifications: at '/model/profile': 'nvapi-AbC_123-x y' does not match"
    finding = render_finding("charts/x", message)
    assert "AbC_123" not in finding.message and "nvapi-..." in finding.message


@pytest.mark.parametrize("command", [["fix", "--diff"], ["convert", "--to", "v1beta1"], ["convert", "--to", "v1alpha1"],
                                     ["plan"], ["plan", "--format", "json"], ["diff"], ["diff", "--format", "json"]])
def test_the_commands_that_write_or_compare_echo_no_secret(capsys, tmp_path, command):
    """fix --diff shows context lines around each change: the HF_TOKEN entry beside a fixed NGC key was
    printed as written. convert prints the file itself on stdout; its notes must hold no secret."""
    target = tmp_path / "leaky.yaml"
    target.write_text(MANIFEST)
    other = tmp_path / "other.yaml"
    other.write_text(MANIFEST.replace("TOPSECRET", "NEWSECRET").replace("1234567890123456789", "98765432109876543"))
    args = [*command, str(other), str(target)] if command[0] == "diff" else [*command, str(target)]
    code = main(args)
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err
    shown = captured.err + ("" if command[0] == "convert" else captured.out)
    for secret in (SECRET, SECRET.replace("TOPSECRET", "NEWSECRET"), "1234567890123456789", "98765432109876543"):
        assert secret not in shown, (secret, shown)
