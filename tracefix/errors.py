"""The error tree. Each str() is one line; front-ends translate these to exit codes or HTTP statuses."""

from __future__ import annotations


class TracefixError(Exception):
    """Base of every error tracefix reports to a user."""


class InputError(TracefixError):
    """A log, freeze, nvidia-smi or article file that cannot be read."""


class ArticleError(TracefixError):
    """An article that does not parse or validate; carries the file and line."""

    def __init__(self, source: str, line: int | None, message: str):
        self.source, self.line, self.message = source, line, message
        where = f"{source}:{line}" if line else source
        super().__init__(f"{where}: {message}")


class StoreError(TracefixError):
    """The knowledge-base database cannot be used as asked (duplicate id, unknown id...)."""


class IndexError_(TracefixError):
    """The vector index is missing, stale or built by another model."""


class ModelError(TracefixError):
    """The embedding model cannot be found or loaded."""
