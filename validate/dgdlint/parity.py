"""The parity table: each rule of the Dynamo operator's validating webhook for DynamoGraphDeployment, and
the dgdlint rule that checks it or why only a live cluster can. The data is package data
(data/webhook-parity.yaml); docs/parity.md is generated from it by `make docs`."""

from __future__ import annotations


def parity_data() -> dict:
    from dgdlint.datafiles import data_file

    return data_file("webhook-parity.yaml")


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _checked_by(entry: dict) -> str:
    if entry.get("rule"):
        return f"`{entry['rule']}`"
    return f"needs a live cluster: {_cell(entry['live'])}"


def parity_page() -> str:
    data = parity_data()
    source = data["source"]
    entries = data["webhook"]
    checked = sum(1 for e in entries if e.get("rule"))
    parts = [
        "# Parity with the Dynamo operator's admission webhook", "",
        "Generated from `validate/dgdlint/data/webhook-parity.yaml` by `make docs`; do not edit by hand.", "",
        f"Every rule the operator's validating webhook applies to a DynamoGraphDeployment, read from "
        f"{source['repository']} at `{source['commit'][:12]}` (`{source['root']}`), and the dgdlint rule that "
        f"checks it before the apply. {checked} of {len(entries)} are checked from the manifest alone; the rest "
        "need the cluster (its configuration, its objects, or the requester's identity). Create rules are "
        "`dgdlint check` rules; update rules are `dgdlint diff` rules. On an update the webhook runs the create "
        "rules again on the new object, runtime version excepted, and `dgdlint diff` checks the new side the same "
        "way.", "",
    ]
    for when, title in (("create", "When a graph is created"), ("update", "When a graph is updated")):
        parts += [f"## {title}", "", "| the webhook refuses unless | in the operator | checked by |", "|---|---|---|"]
        for entry in entries:
            if entry["when"] == when:
                parts.append(f"| {_cell(entry['what'])} | `{_cell(entry['source'])}` | {_checked_by(entry)} |")
        parts.append("")
    parts += ["## dgdlint admission rules that are not webhook rules", "",
              "| rule | enforced by |", "|---|---|"]
    for entry in data["extra"]:
        parts.append(f"| `{entry['rule']}` | {_cell(entry['enforced_by'])} |")
    return "\n".join(parts).rstrip() + "\n"
