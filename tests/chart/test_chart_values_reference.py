"""The values reference and the presets table are generated from the chart, cover every key, and the
chart README carries the current values table."""

from __future__ import annotations

import yaml
from chart_support import CHART, VALUES_DIR, preset_files

from dgdlint.tools.values_reference import (
    README_END,
    README_START,
    presets_table,
    replace_section,
    scan_values,
    values_table,
)


def _leaf_and_branch_keys(node: dict, prefix: str = "") -> list[str]:
    keys = []
    for key, value in node.items():
        dotted = f"{prefix}{key}"
        keys.append(dotted)
        if isinstance(value, dict) and value:
            keys += _leaf_and_branch_keys(value, dotted + ".")
    return keys


def test_every_key_of_values_yaml_has_a_doc_comment_directly_above_it():
    docs, undocumented = scan_values(CHART / "values.yaml")
    assert undocumented == []
    assert all(doc.description for doc in docs)


def test_values_table_lists_every_key_in_file_order_with_type_and_default():
    values = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))
    table = values_table(CHART)
    rows = table.splitlines()[2:]
    assert [row.split("|")[1].strip().strip("`") for row in rows] == _leaf_and_branch_keys(values)
    assert '| `model.variant` | string | `"nano"` | Model variant: `nano`, `super` or `edge`. |' in rows
    assert any(row.startswith("| `model.gpus` | int | `null` |") for row in rows)
    assert any(row.startswith('| `download.command` | list | `["download-to-cache"]` |') for row in rows)


def test_doc_comment_scan_skips_list_items_and_block_scalars(tmp_path):
    (tmp_path / "values.yaml").write_text(
        "# -- A list of maps.\nitems:\n  - name: a\n    value: b\n"
        "# -- A script.\nscript: |\n  key: not a value\n"
        "# -- (int) A count,\n# continued here.\ncount: null\n"
        "plain: 1\n",
        encoding="utf-8")
    docs, undocumented = scan_values(tmp_path / "values.yaml")
    assert [(d.key, d.type, d.default, d.description) for d in docs] == [
        ("items", "list", '[{"name": "a", "value": "b"}]', "A list of maps."),
        ("script", "string", '"key: not a value\\n"', "A script."),
        ("count", "int", "null", "A count, continued here."),
        ("plain", "int", "1", ""),
    ]
    assert undocumented == ["plain"]


def test_presets_table_has_one_row_per_preset_with_what_it_deploys():
    table = presets_table(VALUES_DIR)
    rows = table.splitlines()[2:]
    assert len(rows) == len(preset_files())
    assert ("| `super-bf16-streaming.yaml` | super | bf16 | streaming | 2 | 1 | v1alpha1 | "
            "Super BF16 on two GPUs per worker (TP2), compute capability 8.0 or newer; streaming mode "
            "(adds REST video sessions). |") in rows
    assert any(row.startswith("| `reference-2.1.0.yaml` | nano | fp8 | regular | 1 | 2 | v1alpha1 |") for row in rows)
    assert any(row.startswith("| `nano-fp8-v1beta1.yaml` | nano | fp8 | regular | 1 | 1 | v1beta1 |") for row in rows)


def test_tables_are_deterministic():
    assert values_table(CHART) == values_table(CHART)
    assert presets_table(VALUES_DIR) == presets_table(VALUES_DIR, CHART)


def test_chart_readme_carries_the_current_values_table():
    readme = (CHART / "README.md").read_text(encoding="utf-8")
    assert README_START in readme and README_END in readme
    assert replace_section(readme, values_table(CHART)) == readme, \
        "run: python -m dgdlint.tools.values_reference write-chart-readme"
