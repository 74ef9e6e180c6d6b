"""tracefix.render"""
