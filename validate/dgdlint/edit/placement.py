"""Where the lines an edit writes go: the indentation delta each line of the dump after the edit is written
with, so that it lines up with the original's own indentation around it, and the runs of lines kept as
written that must move with a parent the edit moves."""

from __future__ import annotations

from dgdlint.edit.pairing import indentation


def new_deltas(opcodes, mapping: dict[int, tuple[int, int, int]], moved: dict[int, int], base_lines: list[str],
               new_lines: list[str]) -> tuple[list[int], dict[int, int]]:
    """The indentation delta each line of `new` is written with: a line the edit keeps, or changes in place,
    its own; another line that of the nearest line above it in the same block (a sibling, else its parent),
    so that it lines up with what is around it where the original indents a list or a mapping its own way. A
    line the edit moves keeps its place relative to that line as the original has it (a list indented its
    own way stays so)."""
    deltas: list[int | None] = [None] * len(new_lines)
    origin: dict[int, int] = {}  # new line -> the base line it is
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for k in range(j2 - j1):
                if tag == "replace" and not _same_place(base_lines[i1 + k], new_lines[j1 + k]):
                    continue  # another line in its place (a key renamed, a level added): placed as a new one
                origin[j1 + k] = i1 + k
                found = mapping.get(i1 + k)
                deltas[j1 + k] = found[2] if found else None
    for j, delta in enumerate(deltas):
        if delta is not None:
            continue
        above = _line_above(new_lines, deltas, j)
        below = _kept_child(new_lines, deltas, j, above)
        if below is not None:  # a new parent of lines kept as written: as far from them as the dump has it
            deltas[j] = deltas[below]
            continue
        deltas[j] = 0 if above is None else deltas[above]
        own, theirs = mapping.get(moved.get(j, -1)), mapping.get(origin.get(above, moved.get(above, -1)))
        if own is not None and theirs is not None:
            deltas[j] += own[2] - theirs[2]
        if own is not None:
            origin[j] = moved[j]
    _fit(new_lines, deltas)
    return deltas, {j: mapping[i][2] for j, i in origin.items() if i in mapping}


def with_shifts(opcodes, deltas: list[int], own: dict[int, int]) -> list[tuple]:
    """The opcodes with each run of kept lines that must move (`_fit`) as a "shift" of its own."""
    out = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag != "equal":
            out.append((tag, i1, i2, j1, j2))
            continue
        start = 0
        for k in range(i2 - i1 + 1):
            if k < i2 - i1 and (deltas[j1 + k] != own.get(j1 + k, deltas[j1 + k])) == \
                    (deltas[j1 + start] != own.get(j1 + start, deltas[j1 + start])):
                continue
            if k > start:
                moves = deltas[j1 + start] != own.get(j1 + start, deltas[j1 + start])
                out.append(("shift" if moves else "equal", i1 + start, i1 + k, j1 + start, j1 + k))
            start = k
    return out


def _fit(lines: list[str], deltas: list[int]) -> None:
    """Move a line that, as placed, would not sit inside its parent or in line with its sibling above (a kept
    line whose parent the edit writes anew elsewhere): to its sibling's column, else as far from its parent as
    the dump has it. From the top down, so that what a moved line holds follows it."""
    for j, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        column, dash = indentation(line), _is_item(line)
        for k in range(j - 1, -1, -1):
            text, above = lines[k].strip(), indentation(lines[k])
            if not text or text.startswith("#") or above > column or (above == column and dash != _is_item(
                    lines[k]) and not dash):
                continue
            here, there = column + deltas[j], above + deltas[k]
            if above == column and dash == _is_item(lines[k]):  # a sibling: in line with it
                deltas[j] = deltas[k] if here != there else deltas[j]
            elif here < there or (here == there and not (dash and not _is_item(lines[k]))):
                deltas[j] = deltas[k]  # not inside its parent: as the dump places it under that parent
            break


def _line_above(lines: list[str], deltas: list[int | None], j: int) -> int | None:
    """The nearest line above line `j` in its block: a sibling, else its parent (None: none)."""
    column, dash = indentation(lines[j]), _is_item(lines[j])
    for k in range(j - 1, -1, -1):
        text = lines[k].strip()
        if deltas[k] is None or not text or text.startswith("#"):
            continue
        above = indentation(lines[k])
        if above < column or (above == column and (dash or not _is_item(lines[k]))):
            return k  # its parent, or a sibling (an item's list key at its column, in the offset 0 style)
    return None


def _same_place(base: str, new: str) -> bool:
    """Whether `new` is `base` changed in place: the same indentation and key (or both a list's items)."""
    return indentation(base) == indentation(new) and _key(base) == _key(new)


def _key(line: str) -> str:
    text = line.strip()
    key, colon, _ = text.partition(":")
    return key + colon if colon and ("'" not in key and '"' not in key) else "-" if _is_item(line) else text


def _kept_child(lines: list[str], deltas: list[int | None], j: int, above: int | None) -> int | None:
    """The first line inside line `j` (the first key of its mapping, the first item of its list), when it has
    a delta of its own and line `j` has no sibling above to line up with, and that delta puts line `j` inside
    its parent still; else None."""
    column, dash = indentation(lines[j]), _is_item(lines[j])
    if above is not None and indentation(lines[above]) == column and _is_item(lines[above]) == dash:
        return None  # a sibling: the line goes at its column
    child = next((k for k in range(j + 1, len(lines)) if lines[k].strip() and not lines[k].lstrip().startswith("#")),
                 None)
    if child is None or deltas[child] is None or not (indentation(lines[child]) > column or (
            indentation(lines[child]) == column and _is_item(lines[child]) and not dash)):
        return None
    if above is not None:
        written, parent = column + deltas[child], indentation(lines[above]) + deltas[above]
        if written < parent or (written == parent and not (dash and not _is_item(lines[above]))):
            return None
    return child


def _is_item(line: str) -> bool:
    text = line.lstrip(" ")
    return text.startswith("- ") or text.rstrip("\r\n") == "-"
