"""Pure, sandbox-safe logic of the writing pipeline (seed 004): config validation, transitions, circuit
breaker + hard limits, dynamic prompt sections, accounting, run-log rendering. No Temporal imports."""
