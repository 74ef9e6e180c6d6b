"""tracefix.logs"""
