"""The words of a `sh -c` script: the quick split of a plain script is the shell lexer's own answer."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dgdlint.command_line import lex_script, split_script

# Shell words and the separators and quoting that make a script not plain, mixed with odd whitespace.
_PIECES = st.sampled_from(["exec", "python3", "-m", "dynamo.vllm", "--model", "/models/x", "set", "-euo",
                           "pipefail", " ", "  ", "\t", "\n", "\r", "\xa0", "\u2003", "#", "'", '"', "\\", ";",
                           "&&", "|", "=", "$X", "~", "a#b"])


@given(st.lists(_PIECES, max_size=30).map("".join))
def test_the_quick_split_agrees_with_the_lexer(script):
    assert split_script(script) == lex_script(script)


def test_a_plain_multi_line_script_is_split_into_its_words():
    assert split_script("set -euo pipefail\nexec /opt/nim/start_server.sh\n") == [
        "set", "-euo", "pipefail", "exec", "/opt/nim/start_server.sh"]
