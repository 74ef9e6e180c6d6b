"""tracefix.env"""
