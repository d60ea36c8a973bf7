"""`python -m dgdlint` is the `dgdlint` command."""

from dgdlint.cli import main

raise SystemExit(main())
