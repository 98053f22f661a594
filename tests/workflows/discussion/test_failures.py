"""Bad input and failing agents: clear errors, skipped steps reported, nothing lost."""

from __future__ import annotations

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from activities.artifacts import store
from activities.llm.offline import Fault
from models.discussion.workflow import DiscussionResult
from tests.workflows.discussion.helpers import (
    LLM,
    evaluation,
    ideas,
    new_id,
    scores,
    search_attributes,
    start,
    uniform,
)
from workflows.discussion.workflow import DiscussionWorkflow


def _cause(exc: WorkflowFailureError) -> ApplicationError:
    assert isinstance(exc.cause, ApplicationError), exc.cause
    return exc.cause


async def test_kickoff_failure_fails_the_discussion_with_a_clear_error(ts_env, worker, offline):
    offline.script("discussion_kickoff", Fault(kind="auth", message="invalid x-api-key"))
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env.client, queue)
        with pytest.raises(WorkflowFailureError) as info:
            await handle.result()
        attrs = await search_attributes(handle)
    err = _cause(info.value)
    assert err.type == "KickoffFailed"
    assert err.message.startswith("kickoff failed: the team leader could not frame the discussion")
    assert "authentication failed" in err.message and "no discussion without a kickoff" in err.message
    assert len(offline.calls("discussion_kickoff")) == 1  # permanent error: not retried
    assert all(not offline.calls(a) for a in LLM if a != "discussion_kickoff")
    assert attrs["ColloquyStatus"] == "failed" and attrs["ColloquyPhase"] == "done"


async def test_invalid_input_is_rejected_before_any_model_is_called(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        bad_level = await start(ts_env.client, queue, level="epic")
        with pytest.raises(WorkflowFailureError) as level_info:
            await bad_level.result()
        empty = await start(ts_env.client, queue, topic="   ", team=["leader", "critic"])
        with pytest.raises(WorkflowFailureError) as empty_info:
            await empty.result()
        huge = await start(ts_env.client, queue, topic="why? " * 1000)
        with pytest.raises(WorkflowFailureError) as huge_info:
            await huge.result()
    level_err = _cause(level_info.value)
    assert level_err.type == "ValidationError" and level_err.non_retryable
    assert level_err.message == "invalid discussion input: unknown level 'epic': use standard, extended, full"
    empty_msg = _cause(empty_info.value).message
    assert "the topic is empty: say what the team should discuss" in empty_msg
    assert "the team needs a ideation: the ideation specialist is the only source of ideas" in empty_msg
    assert "the topic is 4999 characters long; the limit is 2000" in _cause(huge_info.value).message
    assert offline.calls() == []


async def test_exploration_failures_are_skipped_and_reported(ts_env, worker, offline):
    # researcher: the provider is down on every attempt (retried by Temporal, then skipped);
    # ideation: garbage once (re-asked inside the activity), then good JSON;
    # critic: permanent auth error (not retried, skipped); implementer + leader fine.
    offline.script("discussion_kickoff", "Kickoff.")
    offline.script("discussion_research", *[Fault(kind="server_error")] * 4)
    offline.script("discussion_ideate", Fault(kind="invalid_json"), ideas("Compost hub", "Surplus app", "Kitchens"))
    offline.script("discussion_critique", Fault(kind="auth"))
    offline.script("discussion_implement", "Plan for I1.")
    offline.script("discussion_synthesize", "Synthesis.")
    offline.script("discussion_score", scores(uniform("I1", 8.0), uniform("I2", 7.0), uniform("I3", 6.0)))
    offline.script("discussion_select", {"explanation": "I1.", "preferred_idea_id": "I1"})
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env.client, queue)
        result: DiscussionResult = await handle.result()

    failed = {e.role: e for e in result.events if e.kind == "agent_failed"}
    assert set(failed) == {"researcher", "critic"}
    assert failed["researcher"].round == 1 and failed["researcher"].phase == "exploration"
    assert "research failed and was skipped" in failed["researcher"].message
    assert "unavailable" in failed["researcher"].message
    assert "critique failed and was skipped: authentication failed" in failed["critic"].message
    assert len(offline.calls("discussion_research")) == 4      # the policy's 4 attempts
    assert len(offline.calls("discussion_critique")) == 1      # permanent: one attempt
    assert len(offline.calls("discussion_ideate")) == 2        # garbage + re-ask inside one attempt
    assert result.usage.by_agent["discussion_ideate"].calls == 1
    # nothing else was lost: the round went on and the discussion completed
    assert [m.type for m in result.messages] == ["kickoff", "ideation", "implementer", "synthesis", "validation",
                                                 "selection"]
    assert result.outcome == "selected" and result.selected.title == "Compost hub"
    assert "Plan for I1." in store().get(result.round_transcripts[0])


async def test_no_ideas_means_no_critic_no_implementer_and_final_validation_fails(ts_env, worker, offline):
    offline.script("discussion_kickoff", "Kickoff.")
    offline.script("discussion_research", "Facts.")
    offline.script("discussion_ideate", {"commentary": "Nothing comes to mind.", "ideas": []},
                   {"ideas": [{"title": "  ", "description": "untitled"}]})  # top-up: unusable
    offline.script("discussion_synthesize", "No ideas this round.")
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env.client, queue)
        with pytest.raises(WorkflowFailureError) as info:  # seed 002: validation fails without ideas
            await handle.result()
        progress = await handle.query(DiscussionWorkflow.progress)

    for agent in ("discussion_critique", "discussion_implement", "discussion_score", "discussion_select"):
        assert offline.calls(agent) == [], agent
    assert "final validation failed: no ideas were generated in 1 round(s)" in str(info.value.cause)
    assert info.value.cause.type == "NoIdeas"
    assert progress.status == "failed" and progress.ideas == []
    kinds = [(e.kind, e.role) for e in progress.events]
    assert ("agent_skipped", "critic") in kinds and ("agent_skipped", "implementer") in kinds
    assert ("idea_shortfall", "ideation") in kinds and ("ideas_dropped", "ideation") in kinds
    assert any("critique skipped: no ideas to critique yet" == e.message for e in progress.events)


async def test_moderator_failure_leaves_ideas_unscored_and_nothing_selected(ts_env, worker, offline):
    offline.script("discussion_kickoff", "Kickoff.")
    offline.script("discussion_ideate", ideas("Compost hub", "Surplus app", "Kitchens"))
    offline.script("discussion_score", Fault(kind="bad_request", message="max_tokens too large"))
    for agent in ("discussion_research", "discussion_critique", "discussion_implement", "discussion_synthesize"):
        offline.script(agent, f"{agent} text")
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env.client, queue)
        result: DiscussionResult = await handle.result()
    assert result.outcome == "unscored" and result.selected is None
    assert "3 idea(s) but none scored (the moderator failed: request rejected" in result.outcome_detail
    assert offline.calls("discussion_select") == []  # nothing scored: nothing for the leader to pick from
    assert [e.kind for e in result.events] == ["agent_failed"] and result.events[0].phase == "validation"


async def test_html_report_and_its_failure_never_fails_the_discussion(ts_env, worker, offline, artifact_dir):
    def script_run():
        offline.script("discussion_kickoff", "Kickoff <script>alert(1)</script>")
        offline.script("discussion_ideate", ideas("Compost <b>hub</b>", "Surplus app", "Kitchens"))
        for agent in ("discussion_research", "discussion_critique", "discussion_implement",
                      "discussion_synthesize"):
            offline.script(agent, f"{agent} text")
        offline.script("discussion_score", scores(evaluation("I1", 9, 8, 9, 8, 9), uniform("I2", 7.0),
                                                  uniform("I3", 6.0)))
        offline.script("discussion_select", {"explanation": "I1.", "preferred_idea_id": "I1"})

    script_run()
    blocked_id = new_id()
    (artifact_dir / blocked_id / "report.html").mkdir(parents=True)  # a folder where the report must go
    async with worker(ts_env.client) as queue:
        ok = await start(ts_env.client, queue, html_report=True)
        good: DiscussionResult = await ok.result()
        script_run()
        blocked = await start(ts_env.client, queue, html_report=True, workflow_id=blocked_id)
        failed: DiscussionResult = await blocked.result()

    html = store().get(good.report)
    assert good.report.content_type == "text/html" and html.startswith("<!DOCTYPE html>")
    assert "Compost &lt;b&gt;hub&lt;/b&gt;" in html and "<script>alert" not in html  # every text escaped
    assert "Selected: I1" in html and "8.6" in html and "http" not in html.replace("http-equiv", "")
    assert "Kickoff &lt;script&gt;" in html  # the full discussion is in the report

    assert failed.outcome == "selected" and failed.selected.id == "I1" and failed.report is None
    report_events = [e for e in failed.events if e.kind == "report_failed"]
    assert len(report_events) == 1 and "cannot write artifact" in report_events[0].message
    assert "the discussion is complete" in report_events[0].message
    assert failed.transcript is not None and "Kickoff" in store().get(failed.transcript)


async def test_minimal_team_without_moderator_goes_on_to_the_leaders_selection(ts_env, worker, offline):
    offline.script("discussion_kickoff", "Kickoff for a team of two.")
    offline.script("discussion_ideate", ideas("Compost hub", "Surplus app", "Kitchens"))
    offline.script("discussion_synthesize", "Two voices only.")
    offline.script("discussion_select", {"explanation": "Surplus app is cheapest to start.",
                                         "preferred_idea_id": "I2"})
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env.client, queue, team=["ideation", "leader"])
        result: DiscussionResult = await handle.result()
    assert result.team == ["leader", "ideation"]
    assert [m.type for m in result.messages] == ["kickoff", "ideation", "synthesis", "selection"]
    assert "We have a team of 2 agents to explore" in offline.calls("discussion_kickoff")[0].messages[-1]["content"]
    assert "Team members: Ideation Specialist" in offline.calls("discussion_kickoff")[0].messages[-1]["content"]
    # seed 002: without a moderator the discussion skips to selection; the Team Leader's choice decides
    assert result.outcome == "selected" and result.selected.id == "I2"
    assert "no moderator in the team" in result.outcome_detail
    assert result.events == []  # roles that are not in the team are not failures


async def test_markdown_in_messages_is_rendered_in_the_html_report(ts_env, worker, offline):
    offline.script("discussion_kickoff", "Kickoff with **bold** and <i>raw</i>.")
    offline.script("discussion_ideate", ideas("Compost hub", "Surplus app", "Kitchens"))
    for agent in ("discussion_research", "discussion_critique", "discussion_implement", "discussion_synthesize"):
        offline.script(agent, f"{agent}:\n\n- one\n- two")
    offline.script("discussion_score", scores(uniform("I1", 8.0), uniform("I2", 7.0), uniform("I3", 6.0)))
    async with worker(ts_env.client) as queue:
        result: DiscussionResult = await (await start(ts_env.client, queue, html_report=True)).result()
    html = store().get(result.report)
    assert "<strong>bold</strong>" in html and "**bold**" not in html
    assert "&lt;i&gt;raw&lt;/i&gt;" in html and "<i>raw</i>" not in html  # raw HTML stays escaped
    assert "<li>one</li>" in html
