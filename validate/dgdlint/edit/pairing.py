"""Which lines of the original write each line of ruamel's dump of a document: paired by their text without
spacing, a line the dump writes as one and the original over several (a string folded or written over lines)
with all of them. And, between the dumps before and after an edit, the lines the edit only moved."""

from __future__ import annotations

from difflib import SequenceMatcher

from dgdlint.edit.quoted import Run, runs, squeezed


def indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def pair(base_lines: list[str], orig_lines: list[str], original: str) -> dict[int, tuple[int, int, int]]:
    """Each line of the dump paired with the original lines that write it: by their text without spacing, so
    that a line spaced its own way still lines up with its dump, and one dumped line with the several lines
    the original folds it over (a double-quoted string over several lines taken as the dump spells it)."""
    mapping: dict[int, tuple[int, int, int]] = {}
    found = runs(original, orig_lines)
    squeezed_base = [squeezed(line) for line in base_lines]
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, squeezed_base, [run.text for run in found],
                                               autojunk=False).get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for k in range(i2 - i1):
                run = found[j1 + k]
                delta = indentation(orig_lines[run.start]) - indentation(base_lines[i1 + k])
                mapping[i1 + k] = (run.start, run.stop, delta)
        elif tag == "replace":  # a dumped line may be several of the original's, its text folded over them
            mapping.update(_folded(squeezed_base, found, base_lines, orig_lines, (i1, i2), (j1, j2)))
    return mapping


def _folded(base: list[str], found: list[Run], base_lines: list[str], orig_lines: list[str],
            base_range: tuple[int, int], orig_range: tuple[int, int]) -> dict[int, tuple[int, int, int]]:
    """Base lines of `base_range` each paired with the runs of original lines (`orig_range` of `found`) whose
    text, joined without spacing, is the base line's; nothing when a base line finds no such runs."""
    paired: dict[int, tuple[int, int, int]] = {}
    j, stop = orig_range
    for i in range(*base_range):
        if not base[i]:  # a blank line pairs with a blank line
            if j == stop or found[j].text:
                return {}
            paired[i], j = (found[j].start, found[j].stop, 0), j + 1
            continue
        first, text = j, ""
        while j < stop and len(text) < len(base[i]):
            text += found[j].text
            j += 1
        if text != base[i]:
            return {}
        start = found[first].start
        paired[i] = (start, found[j - 1].stop, indentation(orig_lines[start]) - indentation(base_lines[i]))
    return paired if j == stop else {}


def moved(base_lines: list[str], new_lines: list[str]) -> dict[int, int]:
    """Lines of the dump before the edit found again after it, the same text indented anew: new -> base line."""
    stripped = [line.strip() for line in base_lines], [line.strip() for line in new_lines]
    return {j1 + k: i1 + k for tag, i1, i2, j1, _j2 in
            SequenceMatcher(None, *stripped, autojunk=False).get_opcodes() if tag == "equal" for k in range(i2 - i1)}


def blanks(opcodes, mapping: dict[int, tuple[int, int, int]], moved: dict[int, int],
           orig_lines: list[str]) -> dict[int, list[str]]:
    """Blank lines of the original the dump leaves out (after a block scalar) between two lines an edit
    changes: new line -> the blank lines that follow it, after the same text wherever the edit moved it."""
    found = {i: j for j, i in moved.items()}
    out: dict[int, list[str]] = {}
    for tag, i1, i2, j1, j2 in opcodes:
        for k in range(i1, i2 - 1) if tag != "equal" else ():
            one, two = mapping.get(k), mapping.get(k + 1)
            gap = orig_lines[one[1]:two[0]] if one and two else []
            where = j1 + k - i1 if i2 - i1 == j2 - j1 else found.get(k)
            if gap and where is not None and not any(line.strip() for line in gap):
                out.setdefault(where, []).extend(gap)
    return out


def unpaired(mapping: dict[int, tuple[int, int, int]], line: int) -> int:
    """The original line after the last one paired before base line `line` (for a message): where the lines
    the round trip could not pair start."""
    known = [k for k in mapping if k < line]
    return mapping[max(known)][1] if known else 0
