"""A document read by load.fast: no positions until a finding asks for one, then read by documents.py."""

from __future__ import annotations

from dgdlint.load.result import Document, LoadResult


class QuickDocument(Document):
    """A document load.fast read: its positions are read from its file's text by documents.py when first asked."""

    __slots__ = ()

    def _read_positions(self) -> None:
        from dgdlint.load.documents import build_documents

        again = LoadResult()
        build_documents(self.file, self.source or "", again)
        # The same document of the same text (the readers agree: tests/load/test_fast_reader.py); its value is not
        # compared, as the model may have changed this one's since (model.build.zero_null_quantities).
        same = [document for document in again.documents if document.index == self.index]
        if same:
            self.positions, self._line, self._column = same[0].positions, same[0].line, same[0].column
        else:  # pragma: no cover - as above: no place rather than a wrong one
            self.positions, self._line, self._column = {}, 1, 1
        self.source = None
