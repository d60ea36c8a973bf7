"""Load YAML manifests into plain Python values that remember the file, line and column of every node.

Safe loading only: libyaml's C parser produces events and this module builds the documents from
them with an explicit stack, so deep nesting cannot overflow the interpreter, alias expansion is
bounded, and duplicate keys, non-mapping documents and undecodable bytes become parse findings
rather than exceptions. A plain file is read by load.fast instead, its positions read as above when a
finding asks for one."""

from dgdlint.load.common import MAX_DEPTH, MAX_FILE_BYTES, MAX_NODES_PER_DOCUMENT, YAML_SUFFIXES
from dgdlint.load.files import (
    UsageError,
    byte_position,
    decode,
    expand_paths,
    load_bytes,
    load_paths,
    load_text,
)
from dgdlint.load.result import Document, LoadResult, format_path, parse_finding

__all__ = [
    "Document", "LoadResult", "MAX_DEPTH", "MAX_FILE_BYTES", "MAX_NODES_PER_DOCUMENT", "UsageError",
    "YAML_SUFFIXES", "build_documents", "byte_position", "decode", "expand_paths", "format_path", "load_bytes",
    "load_paths", "load_text", "parse_finding"
]


def __getattr__(name: str):
    """build_documents, imported when first asked for: it imports PyYAML, which a check of plain files never needs
    (load.fast reads them)."""
    if name == "build_documents":
        from dgdlint.load.documents import build_documents

        return build_documents
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
