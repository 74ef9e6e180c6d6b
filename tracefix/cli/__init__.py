"""tracefix.cli"""
