"""Knowledge base: articles -> validated records -> SQLite."""
