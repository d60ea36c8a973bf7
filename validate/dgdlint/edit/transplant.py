"""The text side of writing an edit back: the lines that changed between two dumps of a document (before and
after the edit) put in place of the matching lines of the original, re-indented to the original's own
indentation. No other line is touched, but for lines kept as written whose parent the edit moves: they move
with it, their own text re-indented."""

from __future__ import annotations

from difflib import SequenceMatcher
from itertools import zip_longest

from dgdlint.edit import pairing, placement


def _reindent(line: str, delta: int) -> str:
    if delta > 0 and line.strip("\r\n"):  # an empty line stays empty (in a string over lines, a block scalar)
        return " " * delta + line
    if delta < 0 and pairing.indentation(line) >= -delta:
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
    mapping = pairing.pair(base_lines, orig_lines, original)
    spelled = {k for k, (start, stop, _) in mapping.items()
               if stop - start == 1 and base_lines[k].strip() != orig_lines[start].strip()}
    out = list(orig_lines)
    opcodes = SequenceMatcher(None, base_lines, new_lines, autojunk=False).get_opcodes()
    moved = pairing.moved(base_lines, new_lines)
    deltas, own = placement.new_deltas(opcodes, mapping, moved, base_lines, new_lines)
    blanks = pairing.blanks(opcodes, mapping, moved, orig_lines)
    for tag, i1, i2, j1, j2 in reversed(placement.with_shifts(opcodes, deltas, own)):
        if tag == "equal":
            continue
        if tag == "shift":  # kept lines whose parent moved: the original's text, moved with it
            targets = [mapping.get(k) for k in range(i1, i2)]
            if None in targets:
                raise Unkept(pairing.unpaired(mapping, i1 + targets.index(None)))
            start, stop = targets[0][0], targets[-1][1]
            shift = {line: deltas[j1 + k] - own[j1 + k] for k, target in enumerate(targets)
                     for line in range(target[0], target[1])}
            out[start:stop] = [_reindent(orig_lines[n], shift.get(n, 0)) for n in range(start, stop)]
            continue
        written = [_reindent(new_lines[j], deltas[j]) for j in range(j1, j2)]
        for j in range(j1, j2) if within else ():  # a line only moved keeps its own spelling (`- ~`, `False`)
            k = moved.get(j)
            if k in spelled:
                line = orig_lines[mapping[k][0]]
                written[j - j1] = " " * pairing.indentation(written[j - j1]) + line.lstrip(" ")
        for j in range(j2 - 1, j1 - 1, -1):
            written[j - j1 + 1:j - j1 + 1] = blanks.get(j, [])
        if i2 > i1:
            targets = [mapping.get(k) for k in range(i1, i2)]
            if None in targets:
                raise Unkept(pairing.unpaired(mapping, i1 + targets.index(None)))
            apart = next((k for k in range(1, len(targets)) if targets[k - 1][1] > targets[k][0] or any(
                line.strip() for line in orig_lines[targets[k - 1][1]:targets[k][0]])), None)
            if apart is not None:  # lines apart in the original, and not only by blank lines
                raise Unkept(pairing.unpaired(mapping, i1 + apart))
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
            raise Unkept(pairing.unpaired(mapping, i1))
        out[start:stop] = written
    text = "".join(out)
    return text[:-1] if unended and text.endswith("\n") else text


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
