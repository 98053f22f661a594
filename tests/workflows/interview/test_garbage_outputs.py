"""Garbage is never written as a result (issue 15, defect 4): the essay writer answering `{"unexpected": "shape"}`
on every try is re-asked, retried by Temporal, then the documented fallback — the interview completes without an
essay and says why; no essay.md holds the garbage."""

from __future__ import annotations

from activities.artifacts import store
from activities.llm.offline import Fault
from models.interview.workflow import InterviewResult
from rules.policies import POLICIES
from tests.workflows.interview.helpers import adaptive_plan, control, say, start


async def test_an_essay_writer_answering_garbage_every_time_writes_no_essay(ts_env, worker, offline, tmp_path,
                                                                             monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    attempts = POLICIES["long_agent"].max_attempts
    offline.script("interview_writer", *[Fault(kind="wrong_schema")] * (2 * attempts))  # asked + re-asked, per try
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), duration_seconds=600)
        await say(h, "interviewer", "How did you end up carrying the pager?")
        await say(h, "interviewee", "Honestly, by accident: I kept answering the pager at night and it became my job.")
        await control(h, "end")
        result: InterviewResult = await h.result()
    assert result.status == "COMPLETED" and result.essay is None
    assert result.error and "essay not written" in result.error and "invalid output" in result.error, result.error
    assert offline.pending("interview_writer") == 0           # every try was spent on the garbage
    assert len(offline.calls("interview_writer")) == 2 * attempts
    written = [p for p in (tmp_path / "artifacts").rglob("*") if p.is_file()]
    assert not [p for p in written if "unexpected" in p.read_text(errors="ignore") and "essay" in p.name]
    assert store().get(result.transcript)  # the transcript is kept
