"""Writes in place: a temporary file renamed over the original, all files or none."""

from __future__ import annotations

import io
import os
import stat
import sys
from pathlib import Path

import pytest
from edit_support import run

from dgdlint.edit.atomic import WriteError, write_all

# A v1alpha1 graph with findings to fix: fix and convert both change it.
DFLASH_ON = (Path(__file__).parent / "cases" / "commented-edge-streaming.v1alpha1.yaml").read_text()


def test_every_file_is_replaced_with_its_mode_kept(tmp_path):
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("a: 1\n")
    second.write_text("b: 1\n")
    os.chmod(second, 0o600)
    write_all({str(first): "a: 2\n", str(second): "b: 2\n"})
    assert (first.read_text(), second.read_text()) == ("a: 2\n", "b: 2\n")
    assert stat.S_IMODE(second.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml", "b.yaml"]


def test_when_one_file_cannot_be_staged_none_is_written_and_no_temporary_file_is_left(tmp_path):
    first = tmp_path / "a.yaml"
    first.write_text("a: 1\n")
    missing = tmp_path / "no-such-dir" / "b.yaml"
    with pytest.raises(WriteError):
        write_all({str(first): "a: 2\n", str(missing): "b: 2\n"})
    assert first.read_text() == "a: 1\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.yaml"]


def test_convert_reads_stdin_with_a_dash(capsys, monkeypatch):
    source = "apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata:\n  name: x\nspec:\n" \
             "  services:\n    Frontend:\n      componentType: frontend  # the only one\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(source.encode())))
    code, out, err = run(capsys, "convert", "--to", "v1beta1", "-")
    assert (code, err) == (0, "")
    assert out == "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata:\n  name: x\nspec:\n" \
                  "  components:\n  - name: Frontend\n    type: frontend  # the only one\n"


def test_stdin_cannot_be_written_in_place(capsys):
    assert run(capsys, "convert", "--to", "v1beta1", "--write", "-")[0] == 2


@pytest.mark.parametrize("command", [["fix"], ["convert", "--to", "v1beta1", "--write"]])
def test_a_symbolic_link_is_written_through_and_stays_a_link(capsys, tmp_path, command):
    """Renaming over the link's own path would replace the link by a copy and leave its file as it was."""
    target, link = tmp_path / "real.yaml", tmp_path / "link.yaml"
    target.write_text(DFLASH_ON)
    link.symlink_to("real.yaml")
    code, _out, err = run(capsys, *command, str(link), str(target))  # named twice: done once
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == "real.yaml"
    assert target.read_text() != DFLASH_ON and err.count("dgdlint: wrote") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.yaml", "real.yaml"]


def test_convert_prints_what_write_would_write_whatever_the_line_endings(capsys, tmp_path):
    """A file of old Mac (CR) lines ends in a line break already: stdout gets no LF added after it."""
    source = tmp_path / "graph.yaml"
    source.write_bytes(DFLASH_ON.replace("\n", "\r").encode())
    code, out, err = run(capsys, "convert", "--to", "v1beta1", str(source))
    assert code == 0, err
    assert run(capsys, "convert", "--to", "v1beta1", "--write", str(source))[0] == 0
    assert out.endswith("# end of the graph\r") and source.read_bytes() == out.encode()
