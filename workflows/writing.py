"""writing pipeline workflows (to be built)."""

WORKFLOWS: list[type] = []
