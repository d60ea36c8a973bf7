"""docs/plan.md cannot drift: every example's output is exactly what its command prints today."""

from __future__ import annotations

from plan_doc import DOC, examples, run


def test_the_doc_shows_plan_on_the_reference_preset_as_text_and_as_markdown():
    found = examples(DOC.read_text(encoding="utf-8"))
    reference = ".venv/bin/dgdlint plan --chart charts/cosmos3-reasoner -f values/reference-2.1.0.yaml"
    assert [(e.command, e.rendered) for e in found][:2] == [(reference, False),
                                                            (f"{reference} --format markdown", True)]


def test_every_example_output_equals_what_the_command_prints():
    for example in examples(DOC.read_text(encoding="utf-8")):
        code, printed = run(example.command)
        assert code == 0, example.command
        assert example.shown == printed, (f"docs/plan.md is out of date for `{example.command}`; refresh it with "
                                          ".venv/bin/python tests/plan/plan_doc.py")
