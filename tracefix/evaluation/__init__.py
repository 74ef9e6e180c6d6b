"""tracefix.evaluation"""
