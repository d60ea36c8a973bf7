"""A literal NGC API key is reported, never repeated: the report names where the key is, not what it is.

Runs the CLI in-process on the ngc-api-key-literal fixtures, in every report format, and checks that
the literal value appears nowhere in what dgdlint writes (stdout, stderr, --output file)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dgdlint.cli import main

HERE = Path(__file__).parent
LITERAL = re.compile(r"^\s*value:\s*(nvapi-\S+)\s*$", re.MULTILINE)
CASES = sorted((HERE / "ngc-api-key-literal" / "fail").glob("*-literal.yaml"))


def secret_in(case: Path) -> str:
    found = LITERAL.findall(case.read_text(encoding="utf-8"))
    assert len(set(found)) == 1, f"{case}: expected one literal key in the fixture"
    return found[0]


def test_there_are_literal_key_fixtures():
    assert len(CASES) >= 2


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@pytest.mark.parametrize("extra", [["--format", "text"], ["--format", "text", "--show-fix"], ["--format", "json"]],
                         ids=["text", "text-show-fix", "json"])
def test_literal_key_is_reported_but_never_echoed(case: Path, extra: list[str], capsys):
    secret = secret_in(case)
    code = main(["check", str(case), *extra])
    out, err = capsys.readouterr()
    assert code == 1
    assert "ngc-api-key-literal" in out  # the finding is there ...
    assert secret not in out  # ... but not the key
    assert secret not in err
    if "json" in extra:
        findings = json.loads(out)["findings"]
        assert any(f["rule"] == "ngc-api-key-literal" for f in findings)
        assert secret not in json.dumps(findings)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_literal_key_not_in_output_file(case: Path, tmp_path: Path, capsys):
    secret = secret_in(case)
    report = tmp_path / "report.json"
    code = main(["check", str(case), "--format", "json", "--output", str(report)])
    out, err = capsys.readouterr()
    assert code == 1
    text = report.read_text(encoding="utf-8")
    assert "ngc-api-key-literal" in text
    assert secret not in text + out + err
