"""Pure logic of the query pipeline: no Temporal, no I/O. Unit-tested in tests/unit/query."""
