"""`python -m dgdlint` is the `dgdlint` command."""

from dgdlint.cli import entry

entry()
