"""The loader notes whether a document's strings may hold a placeholder's mark (`<`, `${`, `{{`), so that
placeholder-value walks only those that may. A mark the text does not spell must still count: a backslash
escape writes one, and a !!binary value decodes to one. (The !!binary case is tested here rather than as a
rule fixture: the API-server comparisons send fixtures as PyYAML reads them, and PyYAML reads !!binary as
bytes.)"""

from __future__ import annotations

import base64

import pytest

from dgdlint.engine import check_texts
from dgdlint.load import load_text

PVC = """apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: model-cache
spec:
  accessModes: [ReadWriteMany]
  storageClassName: {value}
  resources:
    requests:
      storage: 200Gi
"""
BINARY = "!!binary " + base64.b64encode(b"<STORAGE_CLASS>").decode()


@pytest.mark.parametrize(("value", "marks"), [
    ("fast-nvme", False),
    ('"\\x3cSTORAGE_CLASS>"', True),
    ('"\\x24{CLASS}"', True),
    (BINARY, True),
    ("'<STORAGE_CLASS>'", True),
    ("'{{ .Values.storageClass }}'", True),
])
def test_a_document_says_whether_its_strings_may_hold_a_mark(value, marks):
    [document] = load_text("pvc.yaml", PVC.format(value=value)).documents
    assert document.marks is marks


@pytest.mark.parametrize("value", ['"\\x3cSTORAGE_CLASS>"', BINARY])
def test_a_placeholder_the_text_does_not_spell_is_found(value):
    findings = check_texts({"pvc.yaml": PVC.format(value=value)}).findings
    assert [(f.rule, f.line, f.path) for f in findings if f.rule == "placeholder-value"] == \
        [("placeholder-value", 7, "spec.storageClassName")]


def test_a_file_with_no_mark_gives_no_placeholder_finding():
    findings = check_texts({"pvc.yaml": PVC.format(value="fast-nvme")}).findings
    assert [f for f in findings if f.rule == "placeholder-value"] == []
