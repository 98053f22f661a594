"""Runs that an earlier engine continued as new still replay: their input carries the state in the format the
engine wrote before `InterviewState` (then `CarriedState`, ~30 fields listed by hand), so these guard both the
command sequence and the carried payload's compatibility.

Recorded once, with the engine as it was before the session state machine moved to rules/interview/session.py
(commit 4c63b47): an adaptive 4-minute interview (`adaptive_plan()`, cycle 30 s, continue-as-new after 70
history events, no essay) with two exchanges, a 20 s pause by signal, and two more exchanges. Run 1 starts from
carried state, takes the resume signal and continues as new again; run 2 starts from carried state and runs to
the end: section deadlines, the late grace, the section summaries and the exports. Do not re-record these with
the current code: their point is that they came from the earlier one.
"""

from __future__ import annotations

import pytest

from tests.conftest import replay_recorded


@pytest.mark.parametrize("name", ["interview_continued_run1", "interview_continued_run2"])
async def test_runs_continued_by_the_earlier_engine_still_replay(name):
    await replay_recorded(name)
