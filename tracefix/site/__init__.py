"""tracefix.site"""
