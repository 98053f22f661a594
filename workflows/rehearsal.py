"""rehearsal workflows (simulated interviewee)."""

WORKFLOWS: list[type] = []
