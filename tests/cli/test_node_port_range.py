"""--service-node-port-range (and the configuration's service-node-port-range): node ports are checked
against the cluster's own range, read as kube-apiserver reads its flag (apimachinery's PortRange.Set)."""

from __future__ import annotations

import pytest

from dgdlint.cli import main
from dgdlint.release import DEFAULT_NODE_PORTS, parse_node_port_range

SERVICE = """apiVersion: v1
kind: Service
metadata:
  name: frontend
spec:
  type: NodePort
  selector:
    app: frontend
  ports:
    - port: 8000
      nodePort: {port}
"""


@pytest.mark.parametrize("text, expected", [
    ("30000-32767", (30000, 32767)),  # LOW-HIGH
    ("20000+2767", (20000, 22767)),  # LOW+OFFSET: LOW to LOW+OFFSET, as the flag's plus notation reads
    ("", (30000, 32767)),  # no port: kube-apiserver falls back to its default (controlplane/instance.go)
    ("31000", (31000, 31000)),  # one port
    (" 30000-32767 ", (30000, 32767)),  # the flag is trimmed as a whole
    ("0-65535", (0, 65535)),
])
def test_a_range_is_read_as_kube_apiserver_reads_its_flag(text, expected):
    assert parse_node_port_range(text) == expected


@pytest.mark.parametrize("text", [
    "30000 - 32767",  # Atoi reads no spaces inside
    "30_000-32767",  # nor underscores (Python's int would)
    "30000-70000",  # beyond 65535
    "32767-30000",  # ends before it starts
    "30000+-5",  # a negative size ends it before it starts
    "30000-32767+1",  # both notations
    "-5",  # a hyphen first: an empty low port
    "+30000",  # a plus first: plus notation with an empty low port
    "+30000-+32767",  # a sign is a notation's symbol: both notations
    "ports",
])
def test_what_the_flag_refuses_is_refused(text):
    with pytest.raises(ValueError):
        parse_node_port_range(text)


def test_the_default_is_kube_apiserver_s():
    assert DEFAULT_NODE_PORTS == parse_node_port_range("30000-32767")


def _check(capsys, tmp_path, port: int, *options: str) -> tuple[int, str]:
    path = tmp_path / "service.yaml"
    path.write_text(SERVICE.format(port=port))
    code = main(["check", *options, str(path)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_a_node_port_outside_the_default_range_is_refused_and_the_message_names_the_flag(capsys, tmp_path):
    code, text = _check(capsys, tmp_path, 20001)
    assert code == 1 and "nodePort 20001 is outside the node port range 30000-32767" in text
    assert "--service-node-port-range" in text


def test_the_cluster_s_range_given_on_the_command_line_is_the_one_checked(capsys, tmp_path):
    assert _check(capsys, tmp_path, 20001, "--service-node-port-range", "20000-22767")[0] == 0
    code, text = _check(capsys, tmp_path, 30001, "--service-node-port-range", "20000-22767")
    assert code == 1 and "outside the node port range 20000-22767 (--service-node-port-range)" in text


def test_the_configuration_gives_the_range_and_the_command_line_wins(capsys, tmp_path):
    config = tmp_path / "dgdlint.yaml"
    config.write_text("service-node-port-range: 20000-22767\n")
    assert _check(capsys, tmp_path, 20001, "--config", str(config))[0] == 0
    code, _ = _check(capsys, tmp_path, 20001, "--config", str(config), "--service-node-port-range", "30000-32767")
    assert code == 1


@pytest.mark.parametrize("value", ["20000-70000", "[20000, 22767]", "true"])
def test_a_bad_range_in_the_configuration_is_a_usage_error_naming_the_file(capsys, tmp_path, value):
    config = tmp_path / "dgdlint.yaml"
    config.write_text(f"service-node-port-range: {value}\n")
    code, text = _check(capsys, tmp_path, 30001, "--config", str(config))
    assert code == 2 and str(config) in text and "service-node-port-range" in text and "Traceback" not in text


def test_a_bad_range_on_the_command_line_is_a_usage_error(capsys, tmp_path):
    code, text = _check(capsys, tmp_path, 30001, "--service-node-port-range", "30000-")
    assert code == 2 and "--service-node-port-range '30000-' is not a port range" in text
