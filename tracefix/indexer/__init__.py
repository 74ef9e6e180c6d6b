"""tracefix.indexer"""
