"""Pure logic of the interview engine (no Temporal, no I/O): unit-tested, sandbox-safe, deterministic."""
