"""tracefix: match distributed-training failure logs against known issues."""

__version__ = "0.1.0"
