"""tracefix.service"""
