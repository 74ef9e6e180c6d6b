"""tracefix.match"""
