"""One smoke client: the chart's files/smoke.py runs on a bare Python (standard library only, as in the
test Pods), and `dgdlint smoke` loads that same file, from the wheel's copy or the source tree."""

from __future__ import annotations

import ast
import importlib.resources
import struct
import subprocess
import sys
import tomllib
import zlib
from pathlib import Path

from fake_nim import FakeNim

from dgdlint import smoke

REPO = Path(__file__).resolve().parents[2]
CLIENT = REPO / "charts" / "cosmos3-reasoner" / "files" / "smoke.py"


def test_the_client_imports_only_the_standard_library():
    imported = set()
    for node in ast.walk(ast.parse(CLIENT.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported and imported <= set(sys.stdlib_module_names) | {"__future__"}


def test_the_client_parses_as_python_3_8_for_older_images():
    ast.parse(CLIENT.read_text(encoding="utf-8"), feature_version=(3, 8))


def test_the_file_runs_as_the_test_pod_runs_it_without_site_packages(monkeypatch):
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    with FakeNim() as nim:
        # -I -B as in the Pod; -S also drops site-packages, so a third-party import would fail here.
        completed = subprocess.run([sys.executable, "-I", "-B", "-S", str(CLIENT), "--url", nim.url, "--streaming"],
                                   capture_output=True, text=True, timeout=60, check=False)
    assert (completed.returncode, completed.stderr) == (0, "")
    assert completed.stdout.splitlines()[-1] == "healthy: 6 checks passed"
    assert not nim.sessions and len(nim.deleted) == 1


def test_dgdlint_smoke_loads_the_charts_file_in_a_source_tree():
    text, path = smoke.client_source()
    assert Path(path) == CLIENT
    assert text == CLIENT.read_text(encoding="utf-8")
    assert smoke.client().__file__ == str(CLIENT)


def test_the_wheel_carries_the_charts_file_and_dgdlint_prefers_that_copy(tmp_path, monkeypatch):
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    force_include = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert force_include["charts/cosmos3-reasoner/files/smoke.py"] == "dgdlint/data/smoke.py"
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "smoke.py").write_text("# the packaged copy\n", encoding="utf-8")
    monkeypatch.setattr(importlib.resources, "files", lambda package: tmp_path)
    assert smoke.client_source() == ("# the packaged copy\n", str(tmp_path / "data" / "smoke.py"))


def _png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, offset = [], 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind, body = data[offset + 4:offset + 8], data[offset + 8:offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        chunks.append((kind, body))
        offset += 12 + length
    return chunks


def test_the_generated_frame_is_a_valid_small_rgb_png():
    png = smoke.client().generated_png()
    chunks = _png_chunks(png)
    assert [kind for kind, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, colour, _, _, _ = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (width, height, depth, colour) == (224, 224, 8, 2)
    pixels = zlib.decompress(chunks[1][1])
    assert len(pixels) == height * (1 + 3 * width)
    row = 1 + 3 * width
    assert pixels[1:4] == b"\xff\x00\x00" and pixels[row - 3:row] == b"\x00\xff\x00"  # red, green on top
    assert pixels[-row + 1:-row + 4] == b"\x00\x00\xff" and pixels[-3:] == b"\xff\xff\xff"  # blue, white below
    assert len(png) < 4096
