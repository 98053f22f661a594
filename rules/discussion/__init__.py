"""Pure logic of the team discussion (seed 002): level table, input checks, idea pool, scoring, selection,
round control and context building. Plain Python, no Temporal imports; unit-tested in tests/unit/discussion."""
