"""Index errors (part of the one hierarchy rooted at :class:`models.errors.PlaitError`)."""

from __future__ import annotations

from pathlib import Path

from models import PlaitError


class IndexStoreError(PlaitError):
    """The index cannot be read or written."""


class IndexMissingError(IndexStoreError):
    def __init__(self, root: Path) -> None:
        super().__init__(f"{root} has no index yet; run `plait index {root}` or start `plait watch {root}`.")


class IndexCorruptError(IndexStoreError):
    def __init__(self, location: str, detail: str) -> None:
        super().__init__(
            f"the index at {location} is unreadable ({detail}); run `plait index --full` to rebuild it."
        )


class IndexLockedError(IndexStoreError):
    def __init__(self, location: str, holder: str) -> None:
        super().__init__(
            f"another plait process ({holder}) is writing the index at {location}; "
            "wait for it to finish or stop it, then try again."
        )


class GrammarUnavailableError(PlaitError):
    """No bundled tree-sitter grammar (or query file) exists for a language."""

    def __init__(self, language: str, detail: str) -> None:
        super().__init__(
            f"no tree-sitter grammar for {language!r} ({detail}); plait never downloads grammars: "
            "reinstall the pinned tree-sitter-language-pack==0.13.0, or index this file as plain text."
        )
        self.language = language


class QueryMissingError(GrammarUnavailableError):
    """The grammar exists but plait ships no query of the asked kind for it."""

    def __init__(self, language: str, kind: str, filename: str) -> None:
        PlaitError.__init__(
            self,
            f"plait has no {kind} query for {language!r} (indexer/queries/{filename}); "
            "index such files as plain text, or add the query file.",
        )
        self.language = language
        self.kind = kind


class ParseError(PlaitError):
    """tree-sitter failed to parse a source file (not: the file has syntax errors, which is fine)."""

    def __init__(self, language: str, detail: str) -> None:
        super().__init__(f"tree-sitter could not parse {language} source ({detail}); index it as plain text.")
        self.language = language


class QuerySyntaxError(PlaitError):
    """A tree-sitter query (a user's ``ast_query`` or a bundled ``.scm`` file) does not compile.

    ``row`` and ``column`` are 0-based as tree-sitter reports them (``line`` is ``row + 1``);
    ``offset`` is the character offset into the query text. All three are ``None`` when
    tree-sitter gave no position.
    """

    def __init__(
        self,
        language: str,
        detail: str,
        *,
        row: int | None = None,
        column: int | None = None,
        offset: int | None = None,
    ) -> None:
        where = f" at line {row + 1}, column {column + 1}" if row is not None and column is not None else ""
        super().__init__(
            f"invalid tree-sitter query for {language}{where}: {detail}; fix the query "
            f"(node types and field names must exist in the {language} grammar)."
        )
        self.language = language
        self.detail = detail
        self.row = row
        self.column = column
        self.offset = offset

    @property
    def line(self) -> int | None:
        return None if self.row is None else self.row + 1
