"""A container's command line as words: its command and args, with the script of `sh -c` / `bash -lc` split
as the shell would (comments and line continuations dropped, quotes kept together), and lookups of flags
(`--flag value`, `--flag=value`, lists) and of the Python module run with `-m`."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from dgdlint.model import Container, as_list, as_str

SHELLS = ("sh", "bash", "dash", "ash", "zsh", "ksh")


@dataclass(slots=True, unsafe_hash=True)  # not frozen: a frozen one costs twice as much to make
class Token:
    """One command-line word, with the command or args element it came from."""

    text: str
    path: tuple  # the command/args element it came from


@dataclass
class Flags:
    """The words a container is started with, shell scripts split as the shell would."""

    tokens: list[Token]
    _last: tuple | None = field(default=None, repr=False, compare=False)

    def find(self, flag: str) -> Token | None:
        """The last `--flag` or `--flag=value` token."""
        if "=" in flag:
            found = None
            prefix = flag + "="
            for token in self.tokens:
                if token.text == flag or token.text.startswith(prefix):
                    found = token
            return found
        if self._last is None or self._last[0] != len(self.tokens):  # tokens by the name before any `=`
            self._last = (len(self.tokens), {token.text.split("=", 1)[0]: token for token in self.tokens})
        return self._last[1].get(flag)

    def has(self, flag: str) -> bool:
        token = self.find(flag)
        return token is not None and (token.text == flag or token.text.split("=", 1)[1].lower() not in
                                      ("false", "0", "no", "off"))

    def value(self, flag: str) -> tuple[str | None, Token | None]:
        """(value, token) of the last occurrence of `--flag value` or `--flag=value`."""
        result: tuple[str | None, Token | None] = (None, None)
        prefix = flag + "="
        for index, token in enumerate(self.tokens):
            if token.text.startswith(prefix):
                result = (token.text.split("=", 1)[1], token)
            elif token.text == flag:
                following = self.tokens[index + 1] if index + 1 < len(self.tokens) else None
                if following is not None and not _is_flag(following.text):
                    result = (following.text, token)
                else:
                    result = (None, token)
        return result

    def values(self, flag: str) -> list[str]:
        """Every value given to a flag that takes a list (`--flag a b`, `--flag a,b`, `--flag=a`)."""
        out: list[str] = []
        prefix = flag + "="
        for index, token in enumerate(self.tokens):
            if token.text.startswith(prefix):
                out += token.text.split("=", 1)[1].split(",")
            elif token.text == flag:
                for following in self.tokens[index + 1:]:
                    if _is_flag(following.text) or following.text in (";", "&&", "||", "|", "&"):
                        break
                    out += following.text.split(",")
        return [value.strip() for value in out if value.strip()]

    def flags(self) -> list[Token]:
        return [token for token in self.tokens if _is_flag(token.text)]

    def module(self) -> tuple[str | None, Token | None]:
        """The Python module run with `-m` (the last one, as in `python -m dynamo.frontend & python -m ...`
        the worker comes last), preferring a `dynamo.*` module."""
        modules = [(self.tokens[i + 1].text, self.tokens[i + 1]) for i, token in enumerate(self.tokens[:-1])
                   if token.text == "-m"]
        dynamo = [m for m in modules if m[0].startswith("dynamo.")]
        chosen = (dynamo or modules or [(None, None)])[-1]
        return chosen

    def scripts(self) -> list[Token]:
        return [token for token in self.tokens if token.text.endswith(".py") and not _is_flag(token.text)]


def _is_flag(text: str) -> bool:
    return text.startswith("--") or (text.startswith("-") and len(text) > 1 and not _is_number(text))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


_PLAIN_SCRIPT = re.compile(r"[^'\"\\#;&|]*")  # no quoting, escapes, comments or separators
_SHELL_SPACE = re.compile(r"[ \t\r\n]+")  # shlex's whitespace


def _strip_shell_comments(script: str) -> str:
    """The script without `# comments` and `\\`-newline continuations, leaving quoted text alone."""
    out: list[str] = []
    quote = ""
    index = 0
    while index < len(script):
        char = script[index]
        if quote:
            out.append(char)
            if char == "\\" and quote == '"' and index + 1 < len(script):
                out.append(script[index + 1])
                index += 1
            elif char == quote:
                quote = ""
        elif char == "\\" and index + 1 < len(script):
            following = script[index + 1]
            if following == "\n":
                out.append(" ")
            elif following in " \t":
                out.append(" ")  # a `\` before a space, as a folded YAML scalar leaves it
            else:
                out.append(char + following)
            index += 1
        elif char in "'\"":
            quote = char
            out.append(char)
        elif char == "#" and (not out or out[-1] in " \t\n;&|("):
            while index < len(script) and script[index] != "\n":
                index += 1
            continue
        else:
            out.append(char)
        index += 1
    return "".join(out)


def split_script(script: str) -> list[str]:
    """Words of a shell script (commands, flags, `;`/`&&` separators); never raises."""
    if _PLAIN_SCRIPT.fullmatch(script):  # what the lexer makes of it, at a fraction of the cost
        return [stripped for word in _SHELL_SPACE.split(script) if (stripped := word.strip())]
    return lex_script(script)


def lex_script(script: str) -> list[str]:
    """split_script's general case: comments, continuations, quotes and separators, through shlex."""
    text = _strip_shell_comments(script)
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        lexer.commenters = ""
        words = list(lexer)
    except ValueError:  # an unbalanced quote: fall back to whitespace
        words = text.split()
    return [word.strip() for word in words if word.strip()]


def _raw_strings(items: object, path: tuple) -> list[tuple[str, tuple]]:
    out = []
    for index, item in enumerate(as_list(items)):
        text = item if type(item) is str else as_str(item)  # most are text: the quick way first
        if text is not None:
            out.append((text, path + (index,)))
    return out


def container_flags(container: Container) -> Flags:
    """The container's command and args as tokens; the script of `sh -c`/`bash -lc` is split into words."""
    raw = container.raw
    words = _raw_strings(raw.get("command"), container.path + ("command",)) + \
        _raw_strings(raw.get("args"), container.path + ("args",))
    tokens: list[Token] = []
    program = words[0][0].rsplit("/", 1)[-1] if words else ""
    script_next = False
    for position, (text, path) in enumerate(words):
        if script_next:
            tokens += [Token(word, path) for word in split_script(text)]
            script_next = False
            continue
        tokens.append(Token(text, path))
        if program in SHELLS and position > 0 and re.fullmatch(r"-[a-zA-Z]*c[a-zA-Z]*", text):
            script_next = True
    return Flags(tokens)
