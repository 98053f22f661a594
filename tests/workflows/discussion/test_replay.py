"""The recorded standard-level discussion must replay against the current workflow code (determinism guard).

Re-record after an intended, versioned change: COLLOQUY_RECORD_HISTORIES=1 pytest tests/workflows/discussion.
"""

from tests.conftest import replay_recorded


async def test_recorded_standard_discussion_replays():
    await replay_recorded("discussion_standard")
