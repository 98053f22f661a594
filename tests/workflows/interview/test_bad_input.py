"""Bad input gets a clear error and changes nothing: malformed entries and controls (update and signal),
oversized text, unknown speaker, duplicates (idempotent), entries after completion, the assistant channel."""

from __future__ import annotations

import pytest
from temporalio.client import WorkflowUpdateFailedError
from temporalio.service import RPCError

from models.interview.entries import (
    AssistantAnswer,
    AssistantQuery,
    SessionControl,
    TranscriptEntry,
    TranscriptView,
)
from models.interview.names import (
    QUERY_TRANSCRIPT,
    SIGNAL_SESSION_CONTROL,
    SIGNAL_TRANSCRIPT_ENTRY,
    UPDATE_ASSISTANT_QUERY,
)
from tests.workflows.interview.helpers import adaptive_plan, control, events, of_type, say, sent, start, state


def _message(err: WorkflowUpdateFailedError) -> str:
    return str(err.cause.message if err.cause is not None else err)


@pytest.mark.parametrize(("speaker", "text", "expected", "code"), [
    ("interviewee", "", "has empty text: nothing to record", "empty_text"),
    ("interviewee", "   \n ", "has empty text", "empty_text"),
    ("interviewee", "x" * 201, "is 201 characters; the limit is 200 — split it", "too_long"),
    ("narrator", "hello", "unknown speaker 'narrator': use 'interviewer' or 'interviewee'", "unknown_speaker"),
])
async def test_malformed_entries_are_rejected_and_state_is_unchanged(ts_env, worker, offline, speaker, text, expected,
                                                                     code):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, max_entry_chars=200)
        await say(h, "interviewee", "a first real answer", entry_id="ok-1")
        before, before_events = await sent(h), await events(h)
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await say(h, speaker, text, entry_id="bad-1")
        assert expected in _message(err.value)
        assert err.value.cause is not None and err.value.cause.details[0]["code"] == code   # for a page's language
        after, after_events = await sent(h), await events(h)
        await control(h, "end")
        await h.result()
    assert [e.entry_id for e in after] == [e.entry_id for e in before] == ["ok-1"]
    new_types = [e.type for e in after_events[len(before_events):]]
    assert "CANDIDATE_MESSAGE" not in new_types and "INTERVIEWER_MESSAGE" not in new_types


async def test_unknown_kind_and_unknown_control_action(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False)
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await say(h, "interviewee", "print(1)", kind="video")
        assert "unknown entry kind 'video': use one of message, code" in _message(err.value)
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await control(h, "explode")
        assert "unknown session control action 'explode': use one of pause, resume" in _message(err.value)
        assert err.value.cause is not None and err.value.cause.details[0]["code"] == "unknown_action"
        # the signal channels cannot answer, so they log the rejection in the event log instead
        await h.signal(SIGNAL_SESSION_CONTROL, SessionControl(action="teleport"))
        await h.signal(SIGNAL_TRANSCRIPT_ENTRY, TranscriptEntry(entry_id="s-1", speaker="ghost", text="boo"))
        s, entries = await state(h), await sent(h)
        evts = await events(h)
        await control(h, "end")
        await h.result()
    assert s.status == "IN_PROGRESS" and entries == []
    assert "unknown session control action 'teleport'" in of_type(evts, "CONTROL_REJECTED")[0].payload["error"]
    assert "unknown speaker 'ghost'" in of_type(evts, "ENTRY_REJECTED")[0].payload["error"]


async def test_replayed_entry_id_changes_nothing(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False)
        first = await say(h, "interviewee", "the same words", entry_id="e-42")
        again = await say(h, "interviewee", "the same words", entry_id="e-42")
        await h.signal(SIGNAL_TRANSCRIPT_ENTRY, TranscriptEntry(entry_id="e-42", speaker="interviewee", text="x"))
        entries = await sent(h)
        evts = await events(h)
        await control(h, "end")
        await h.result()
    assert not first.duplicate and again.duplicate and again.entry.seq == first.entry.seq
    assert [e.entry_id for e in entries] == ["e-42"] and len(of_type(evts, "CANDIDATE_MESSAGE")) == 1


async def test_entries_and_controls_after_completion_are_rejected(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False)
        await say(h, "interviewee", "only answer")
        await control(h, "end")
        result = await h.result()
        with pytest.raises((WorkflowUpdateFailedError, RPCError)):   # the workflow is closed: Temporal refuses it
            await say(h, "interviewee", "too late")
        entries = await sent(h)
    assert [e.text for e in entries] == ["only answer"] and result.entries >= 1


async def test_entries_rejected_while_finishing_with_a_clear_message(ts_env, worker, offline):
    offline.set_latency(0.3, "interview_analysis")     # keep the workflow open in its write-up for a moment
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan())
        await say(h, "interviewee", "we fixed the runbook and the pages dropped by half.")
        s = await control(h, "end")
        assert s.status == "FINALIZING" and s.allowed_actions == []
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await say(h, "interviewee", "one more thing")
        assert "has ended (ended_by_client); entries are no longer accepted" in _message(err.value)
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await control(h, "pause")
        assert "'pause' is not possible any more" in _message(err.value)
        result = await h.result()
        entries = await sent(h)
    assert len(entries) == 1 and result.essay is not None


async def test_assistant_channel_is_logged_policed_and_never_changes_the_section(ts_env, worker, offline):
    offline.script("interview_assistant", "A token bucket refills at a fixed rate.",
                   "Sure:\n```python\ndef solve():\n    return 42\n```")
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False)
        before = await state(h)
        ok = await h.execute_update(UPDATE_ASSISTANT_QUERY, AssistantQuery(query_id="a1", text="What is a token bucket?"),
                                    result_type=AssistantAnswer)
        code = await h.execute_update(UPDATE_ASSISTANT_QUERY, AssistantQuery(query_id="a2", text="Write it for me"),
                                      result_type=AssistantAnswer)
        again = await h.execute_update(UPDATE_ASSISTANT_QUERY, AssistantQuery(query_id="a1", text="What is a token bucket?"),
                                       result_type=AssistantAnswer)
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await h.execute_update(UPDATE_ASSISTANT_QUERY, AssistantQuery(query_id="a3", text=" "),
                                   result_type=AssistantAnswer)
        after, entries = await state(h), await sent(h)
        evts = await events(h)
        await control(h, "end")
        await h.result()
    assert "token bucket refills" in ok.text and not ok.flagged
    assert code.flagged and code.flag_reason == "code in assistant answer" and "```" not in code.text
    assert again.duplicate and again.text == ok.text and len(offline.calls("interview_assistant")) == 2
    assert "the assistant query is empty" in _message(err.value)
    assert after.current_section.id == before.current_section.id and entries == []
    assert len(of_type(evts, "ASSISTANT_QUERY")) == 2 and len(of_type(evts, "ASSISTANT_RESPONSE")) == 2


async def test_signal_stream_during_planning_is_kept_in_order_without_duplicates(ts_env, worker, offline):
    offline.set_latency(0.2, "interview_planner")        # the plan takes a moment: entries arrive before it
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, write_essay=False)   # no explicit plan: the Planner runs
        for i in range(30):
            await h.signal(SIGNAL_TRANSCRIPT_ENTRY, TranscriptEntry(entry_id=f"sig-{i % 25}", speaker="expert",
                                                                    text=f"streamed line {i}"))
        last = await say(h, "interviewee", "and the last line", entry_id="sig-last")
        view = await h.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
        await control(h, "end")
        await h.result()
    assert last.entry.seq == 26 and last.entry.section_id == "opening"
    assert [e.entry_id for e in view.entries] == [f"sig-{i}" for i in range(25)] + ["sig-last"]
    assert [e.text for e in view.entries][:2] == ["streamed line 0", "streamed line 1"]
    assert {e.section_id for e in view.entries} == {"opening"} and {e.speaker for e in view.entries} == {"interviewee"}
