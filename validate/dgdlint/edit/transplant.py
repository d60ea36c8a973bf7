"""The text side of writing an edit back: the lines that changed between two dumps of a document (before and
after the edit) put in place of the matching lines of the original, re-indented to the original's own
indentation, and no other line touched."""

from __future__ import annotations

from difflib import SequenceMatcher


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _reindent(line: str, delta: int) -> str:
    if delta > 0:
        return " " * delta + line
    if delta < 0 and _indentation(line) >= -delta:
        return line[-delta:]
    return line


class Unkept(Exception):
    """An edit changes a line that the round trip writes differently from the original (`{a: 1,   b: 2}`, a
    flow list over several lines): applying it there would rewrite what the edit does not touch."""

    def __init__(self, line: int):
        super().__init__(line)
        self.line = line  # 0-based line of the original


def transplant(original: str, base: str, new: str, within: bool = True) -> str:
    """`original` with the lines that changed from `base` to `new` replaced, and no other line touched. A
    changed line that the original spells its own way (spacing in a flow collection, `False`) gets the change
    made inside its own text, character by character, where both spellings agree around it (else the line is
    written anew). Unkept names a changed line that matches no line of the original (a flow collection over
    several lines): the edit cannot be made without rewriting others."""
    orig_lines, base_lines, new_lines = (text.splitlines(keepends=True) for text in (original, base, new))
    mapping: dict[int, tuple[int, int]] = {}  # base line -> (original line, indentation delta)
    spelled: set[int] = set()  # base lines whose original line is the same line written another way
    # Paired by their text without spacing: a line spaced its own way still lines up with its dump.
    squeezed = ["".join(line.split()) for line in base_lines], ["".join(line.split()) for line in orig_lines]
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, *squeezed, autojunk=False).get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for k in range(i2 - i1):
                ours, theirs = base_lines[i1 + k], orig_lines[j1 + k]
                mapping[i1 + k] = (j1 + k, _indentation(theirs) - _indentation(ours))
                if ours.strip() != theirs.strip():
                    spelled.add(i1 + k)
    out = list(orig_lines)
    hunks = [op for op in SequenceMatcher(None, base_lines, new_lines, autojunk=False).get_opcodes()
             if op[0] != "equal"]
    for _tag, i1, i2, j1, j2 in reversed(hunks):
        if i2 > i1:
            targets = [mapping.get(k) for k in range(i1, i2)]
            if None in targets or [t[0] for t in targets] != list(range(targets[0][0], targets[0][0] + i2 - i1)):
                raise Unkept(_near(mapping, i1))
            start, stop, delta = targets[0][0], targets[-1][0] + 1, targets[0][1]
            if i2 - i1 == j2 - j1 and spelled.intersection(range(i1, i2)):
                # Line for line: a line written its own way keeps its spelling around the change where it can.
                out[start:stop] = [
                    (_edit_within(base_lines[i1 + k], new_lines[j1 + k], orig_lines[start + k])
                     if within and i1 + k in spelled else None) or _reindent(new_lines[j1 + k], targets[k][1])
                    for k in range(i2 - i1)]
                continue
        elif i1 - 1 in mapping:
            start = stop = mapping[i1 - 1][0] + 1
            delta = mapping[i1 - 1][1]
        elif i1 in mapping:
            start = stop = mapping[i1][0]
            delta = mapping[i1][1]
        else:
            raise Unkept(_near(mapping, i1))
        out[start:stop] = [_reindent(line, delta) for line in new_lines[j1:j2]]
    return "".join(out)


def _near(mapping: dict[int, tuple[int, int]], line: int) -> int:
    """The original line nearest before base line `line` that is known (for a message)."""
    known = [k for k in mapping if k <= line]
    return mapping[max(known)][0] if known else 0


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
