"""The text side of writing an edit back: the lines that changed between two dumps of a document (before and
after the edit) put in place of the matching lines of the original, re-indented to the original's own
indentation. No other line is touched, but for lines kept as written whose parent the edit moves: they move
with it, their own text re-indented."""

from __future__ import annotations

from difflib import SequenceMatcher
from itertools import zip_longest

from dgdlint.edit.quoted import Run, runs, squeezed


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _reindent(line: str, delta: int) -> str:
    if delta > 0 and line.strip("\r\n"):  # an empty line stays empty (in a string over lines, a block scalar)
        return " " * delta + line
    if delta < 0 and _indentation(line) >= -delta:
        return line[-delta:]
    return line


class Unkept(Exception):
    """An edit changes lines that pair with no line of the original (an explicit key `? "a\\<break> b"` that the
    dump writes as a plain key on one line): applying it there would rewrite what the edit does not touch."""

    def __init__(self, line: int):
        super().__init__(line)
        self.line = line  # 0-based line of the original


def transplant(original: str, base: str, new: str, within: bool = True) -> str:
    """`original` with the lines that changed from `base` to `new` replaced, and no other line touched. A
    changed line that the original spells its own way (spacing in a flow collection, `False`) gets the change
    made inside its own text, character by character, where both spellings agree around it (else the line is
    written anew). A line the dump writes as one and the original over several (a long quoted string folded,
    a double-quoted one with an escaped line break) pairs with all of them. Unkept names a changed line that
    matches no line of the original: the edit cannot be made without rewriting others. The caller checks that
    the result reads back as the edit."""
    unended = bool(original) and not original.endswith("\n")  # a last line without a break stays so
    original += "\n" if unended else ""
    orig_lines, base_lines, new_lines = (text.splitlines(keepends=True) for text in (original, base, new))
    # base line -> (first original line, past its last, indentation delta)
    mapping = _pair(base_lines, orig_lines, original)
    spelled = {k for k, (start, stop, _) in mapping.items()
               if stop - start == 1 and base_lines[k].strip() != orig_lines[start].strip()}
    out = list(orig_lines)
    opcodes = SequenceMatcher(None, base_lines, new_lines, autojunk=False).get_opcodes()
    moved = _moved(base_lines, new_lines)
    deltas, own = _new_deltas(opcodes, mapping, moved, base_lines, new_lines)
    blanks = _blanks(opcodes, mapping, moved, orig_lines)
    for tag, i1, i2, j1, j2 in reversed(_with_shifts(opcodes, deltas, own)):
        if tag == "equal":
            continue
        if tag == "shift":  # kept lines whose parent moved: the original's text, moved with it
            targets = [mapping.get(k) for k in range(i1, i2)]
            if None in targets:
                raise Unkept(_unpaired(mapping, i1 + targets.index(None)))
            start, stop = targets[0][0], targets[-1][1]
            shift = {line: deltas[j1 + k] - own[j1 + k] for k, target in enumerate(targets)
                     for line in range(target[0], target[1])}
            out[start:stop] = [_reindent(orig_lines[n], shift.get(n, 0)) for n in range(start, stop)]
            continue
        written = [_reindent(new_lines[j], deltas[j]) for j in range(j1, j2)]
        for j in range(j2 - 1, j1 - 1, -1):
            written[j - j1 + 1:j - j1 + 1] = blanks.get(j, [])
        if i2 > i1:
            targets = [mapping.get(k) for k in range(i1, i2)]
            if None in targets:
                raise Unkept(_unpaired(mapping, i1 + targets.index(None)))
            apart = next((k for k in range(1, len(targets)) if targets[k - 1][1] > targets[k][0] or any(
                line.strip() for line in orig_lines[targets[k - 1][1]:targets[k][0]])), None)
            if apart is not None:  # lines apart in the original, and not only by blank lines
                raise Unkept(_unpaired(mapping, i1 + apart))
            start, stop = targets[0][0], targets[-1][1]
            if i2 - i1 == j2 - j1:  # line for line: a line written its own way keeps its spelling where it can
                for k in spelled.intersection(range(i1, i2)) if within else ():
                    j = j1 + k - i1
                    kept = _edit_within(base_lines[k], new_lines[j], orig_lines[targets[k - i1][0]])
                    written[k - i1] = _reindent(kept, deltas[j] - own.get(j, deltas[j])) if kept else written[k - i1]
        elif i1 - 1 in mapping:
            start = stop = mapping[i1 - 1][1]
        elif i1 in mapping:
            start = stop = mapping[i1][0]
        else:
            raise Unkept(_unpaired(mapping, i1))
        out[start:stop] = written
    text = "".join(out)
    return text[:-1] if unended and text.endswith("\n") else text


def _with_shifts(opcodes, deltas: list[int], own: dict[int, int]) -> list[tuple]:
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


def _moved(base_lines: list[str], new_lines: list[str]) -> dict[int, int]:
    """Lines of the dump before the edit found again after it, the same text indented anew: new -> base line."""
    stripped = [line.strip() for line in base_lines], [line.strip() for line in new_lines]
    return {j1 + k: i1 + k for tag, i1, i2, j1, _j2 in
            SequenceMatcher(None, *stripped, autojunk=False).get_opcodes() if tag == "equal" for k in range(i2 - i1)}


def _blanks(opcodes, mapping: dict[int, tuple[int, int, int]], moved: dict[int, int],
            orig_lines: list[str]) -> dict[int, list[str]]:
    """Blank lines of the original the dump leaves out (after a block scalar) between two lines an edit
    changes: new line -> the blank lines that follow it, after the same text wherever the edit moved it."""
    found = {i: j for j, i in moved.items()}
    blanks: dict[int, list[str]] = {}
    for tag, i1, i2, j1, j2 in opcodes:
        for k in range(i1, i2 - 1) if tag != "equal" else ():
            one, two = mapping.get(k), mapping.get(k + 1)
            gap = orig_lines[one[1]:two[0]] if one and two else []
            where = j1 + k - i1 if i2 - i1 == j2 - j1 else found.get(k)
            if gap and where is not None and not any(line.strip() for line in gap):
                blanks.setdefault(where, []).extend(gap)
    return blanks


def _pair(base_lines: list[str], orig_lines: list[str], original: str) -> dict[int, tuple[int, int, int]]:
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
                delta = _indentation(orig_lines[run.start]) - _indentation(base_lines[i1 + k])
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
        paired[i] = (start, found[j - 1].stop, _indentation(orig_lines[start]) - _indentation(base_lines[i]))
    return paired if j == stop else {}


def _new_deltas(opcodes, mapping: dict[int, tuple[int, int, int]], moved: dict[int, int], base_lines: list[str],
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


def _fit(lines: list[str], deltas: list[int]) -> None:
    """Move a line that, as placed, would not sit inside its parent or in line with its sibling above (a kept
    line whose parent the edit writes anew elsewhere): to its sibling's column, else as far from its parent as
    the dump has it. From the top down, so that what a moved line holds follows it."""
    for j, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        column, dash = _indentation(line), _is_item(line)
        for k in range(j - 1, -1, -1):
            text, above = lines[k].strip(), _indentation(lines[k])
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
    column, dash = _indentation(lines[j]), _is_item(lines[j])
    for k in range(j - 1, -1, -1):
        text = lines[k].strip()
        if deltas[k] is None or not text or text.startswith("#"):
            continue
        above = _indentation(lines[k])
        if above < column or (above == column and (dash or not _is_item(lines[k]))):
            return k  # its parent, or a sibling (an item's list key at its column, in the offset 0 style)
    return None


def _same_place(base: str, new: str) -> bool:
    """Whether `new` is `base` changed in place: the same indentation and key (or both a list's items)."""
    return _indentation(base) == _indentation(new) and _key(base) == _key(new)


def _key(line: str) -> str:
    text = line.strip()
    key, colon, _ = text.partition(":")
    return key + colon if colon and ("'" not in key and '"' not in key) else "-" if _is_item(line) else text


def _kept_child(lines: list[str], deltas: list[int | None], j: int, above: int | None) -> int | None:
    """The first line inside line `j` (the first key of its mapping, the first item of its list), when it has
    a delta of its own and line `j` has no sibling above to line up with, and that delta puts line `j` inside
    its parent still; else None."""
    column, dash = _indentation(lines[j]), _is_item(lines[j])
    if above is not None and _indentation(lines[above]) == column and _is_item(lines[above]) == dash:
        return None  # a sibling: the line goes at its column
    child = next((k for k in range(j + 1, len(lines)) if lines[k].strip() and not lines[k].lstrip().startswith("#")),
                 None)
    if child is None or deltas[child] is None or not (_indentation(lines[child]) > column or (
            _indentation(lines[child]) == column and _is_item(lines[child]) and not dash)):
        return None
    if above is not None:
        written, parent = column + deltas[child], _indentation(lines[above]) + deltas[above]
        if written < parent or (written == parent and not (dash and not _is_item(lines[above]))):
            return None
    return child


def _is_item(line: str) -> bool:
    text = line.lstrip(" ")
    return text.startswith("- ") or text.rstrip("\r\n") == "-"


def _unpaired(mapping: dict[int, tuple[int, int, int]], line: int) -> int:
    """The original line after the last one paired before base line `line` (for a message): where the lines
    the round trip could not pair start."""
    known = [k for k in mapping if k < line]
    return mapping[max(known)][1] if known else 0


def original_line(original: str, written: str, at: int | None = None) -> int:
    """0-based line of `original` where written line `at` is, or the nearest kept line above it; with no `at`,
    the first line `written` changes."""
    orig_lines, lines = original.splitlines(), written.splitlines()
    if at is None:
        pairs = zip_longest(orig_lines, lines)
        return next((number for number, (one, two) in enumerate(pairs) if one != two), 0)
    found = 0
    for i1, j1, size in SequenceMatcher(None, orig_lines, lines, autojunk=False).get_matching_blocks():
        if j1 <= at:
            found = i1 + min(at - j1, size - 1) if size else found
    return found


def _edit_within(base: str, new: str, original: str) -> str | None:
    """`original` (the line `base` as the user wrote it) with the changes from `base` to `new` made in it, each
    where both spellings agree on the text around it (a change of spacing alone is the round trip's, not the
    edit's: the line keeps its own); None when a change falls where they differ."""
    blocks = [b for b in SequenceMatcher(None, base, original, autojunk=False).get_matching_blocks() if b.size]
    edits = []
    for tag, p, q, r, s in SequenceMatcher(None, base, new, autojunk=False).get_opcodes():
        if tag == "equal" or not (base[p:q] + new[r:s]).strip():
            continue  # the round trip's own spacing: the user's stays
        if not base[p:q].strip():  # spacing that becomes text: the text alone, before or after that spacing
            text = new[r:s]
            p = q = p if not text[0].isspace() else q
            s = r + len(text)
            new = new[:r] + "".join(text.split()) + new[r + len(text):]
            s = r + len("".join(text.split()))
        if p == q:  # an insertion: text on both of its sides is the same in both spellings
            found = next((b for b in blocks if b.a < p < b.a + b.size or p == b.a == b.b == 0), None)
        else:
            found = next((b for b in blocks if b.a <= p and q <= b.a + b.size), None)
        if found is None:
            return None
        edits.append((found.b + p - found.a, found.b + q - found.a, new[r:s]))
    for start, stop, text in reversed(edits):
        original = original[:start] + text + original[stop:]
    return original
