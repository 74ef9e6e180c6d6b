"""tracefix: match distributed-training failure logs against known issues."""

__version__ = "0.1.0"


# The hooks live in tracefix.hooks, imported only when called: `import tracefix` stays cheap.
def install(top: int = 3) -> None:
    """Print the known issue behind any uncaught exception, under its traceback (see tracefix.hooks)."""
    from tracefix.hooks import install as _install

    _install(top=top)


def load_ipython_extension(ipython) -> None:
    """`%load_ext tracefix` in IPython / Jupyter."""
    from tracefix.hooks import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython) -> None:
    from tracefix.hooks import unload_ipython_extension as _unload

    _unload(ipython)
