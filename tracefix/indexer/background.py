"""Loading the embedder in a background thread, started before anything else on the query path,
so model start-up overlaps with imports, opening the store and reading the log."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Background(Generic[T]):
    """A value computed in a thread; `get()` waits for it and re-raises its error."""

    def __init__(self, factory: Callable[[], T]):
        self._value: T | None = None
        self._error: BaseException | None = None
        # NOTE: not a daemon: exiting while ONNX Runtime is still building its session aborts the
        # process ("terminate called without an active exception"), so exit waits for it instead.
        self._thread = threading.Thread(target=self._run, args=(factory,), daemon=False)
        self._thread.start()

    def _run(self, factory: Callable[[], T]) -> None:
        try:
            self._value = factory()
        except BaseException as e:  # re-raised in the caller's thread by get()
            self._error = e

    def get(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]


class StartedEmbedder(Background):
    """An embedder being built in the background, with the model it is for known already."""

    def __init__(self, info, backend: str):
        self.info = info

        def build():
            from tracefix.indexer.embed import make_embedder

            return make_embedder(info, backend)

        super().__init__(build)


def start_embedder(model: str | None, backend: str) -> StartedEmbedder:
    """Resolve the model now (cheap, errors surface early); build the embedder in the background."""
    from tracefix.indexer.model import resolve_model

    info = resolve_model(model)
    if backend == "onnx":
        # Imported here, not in the thread: imports hold the GIL wherever they run, while building
        # the session (the thread's remaining work) releases it, so the caller's own imports and
        # reading the log then overlap the model start-up instead of taking turns with it.
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    return StartedEmbedder(info, backend)
