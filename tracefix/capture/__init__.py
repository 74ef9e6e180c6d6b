"""`tracefix run`: run a job, relay its output unchanged, keep a bounded copy, report a failure."""
