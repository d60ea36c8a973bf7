"""Writes in place: a temporary file renamed over the original, all files or none."""

from __future__ import annotations

import io
import os
import stat
import sys

import pytest
from edit_support import run

from dgdlint.edit.atomic import WriteError, write_all


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
