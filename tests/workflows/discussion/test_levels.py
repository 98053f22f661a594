"""DiscussionWorkflow at each level: rounds, MinIdeas top-ups, deep dive, the score threshold."""

from __future__ import annotations

import os
from pathlib import Path

from activities.artifacts import store
from models.discussion.workflow import DiscussionResult
from tests.conftest import HISTORIES, replay
from tests.workflows.discussion.helpers import (
    evaluation,
    idea,
    ideas,
    prompt_of,
    scores,
    search_attributes,
    start,
    uniform,
)
from workflows.discussion.workflow import DiscussionWorkflow


def _count(offline, agent: str) -> int:
    return len(offline.calls(agent))


async def test_standard_one_round_and_the_score_decides_not_the_leader(ts_env, worker, offline):
    offline.script("discussion_kickoff", "Leader: researcher, look at costs; critic, look at adoption.")
    offline.script("discussion_research", "Towns throw away about a third of their food.")
    offline.script("discussion_ideate", ideas("Compost hub", "Surplus app", "School kitchens",
                                              commentary="Three angles."))
    offline.script("discussion_critique", "I2 assumes shops will share data.")
    offline.script("discussion_implement", "Start I1 at the market.")
    offline.script("discussion_synthesize", "I1 and I3 are the strongest.")
    offline.script("discussion_score", scores(uniform("I1", 7.0), evaluation("I2", 9, 8, 9, 8, 7),
                                              uniform("I3", 5.5)))
    offline.script("discussion_select", {"explanation": "I prefer the compost hub.", "preferred_idea_id": "I1"})
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env.client, queue, topic="How can a small town cut food waste?",
                             models={"critic": "openai/gpt-4o-mini", "leader": "anthropic/claude-3-5-haiku"})
        result: DiscussionResult = await handle.result()
        progress = await handle.query(DiscussionWorkflow.progress)
        attrs = await search_attributes(handle)
        record = "discussion_standard" if (os.environ.get("COLLOQUY_RECORD_HISTORIES")
                                           or not (HISTORIES / "discussion_standard.json").exists()) else None
        await replay(handle, record_as=record)

    # one round, every agent once: no top-up (3 ideas = MinIdeas) and no deep dive at standard
    assert result.rules.max_rounds == 1 and result.rounds_completed == 1
    assert {a: _count(offline, a) for a in ("discussion_kickoff", "discussion_research", "discussion_ideate",
                                            "discussion_critique", "discussion_implement", "discussion_synthesize",
                                            "discussion_score", "discussion_select")} == dict.fromkeys(
        ("discussion_kickoff", "discussion_research", "discussion_ideate", "discussion_critique",
         "discussion_implement", "discussion_synthesize", "discussion_score", "discussion_select"), 1)
    assert [m.type for m in result.messages] == ["kickoff", "researcher", "ideation", "critic", "implementer",
                                                 "synthesis", "validation", "selection"]
    # scores: I2 = (9+8+9+8+7)/5 = 8.2 beats the leader's favourite I1 (7.0)
    assert [(i.id, i.title, i.overall) for i in result.ideas] == [
        ("I1", "Compost hub", 7.0), ("I2", "Surplus app", 8.2), ("I3", "School kitchens", 5.5)]
    assert result.outcome == "selected" and result.selected.id == "I2"
    assert result.selection.considered == ["I2", "I1"]  # I3 is below the 6.0 threshold
    assert result.selection.leader_preferred_idea_id == "I1" and result.selection.leader_agrees is False
    assert "I prefer the compost hub" in result.selection.leader_comment_excerpt
    assert result.events == []
    # context accumulation: the critic saw the kickoff, the research and the numbered ideas
    critic_prompt = prompt_of(offline.calls("discussion_critique")[0])
    assert "Leader: researcher, look at costs" in critic_prompt
    assert "Towns throw away about a third" in critic_prompt and "1. [I1] Compost hub" in critic_prompt
    assert "Challenge the assumptions in these ideas. What could go wrong?" in critic_prompt
    # per-role models reach the gateway; the others use the configured model
    assert offline.calls("discussion_critique")[0].model == "openai/gpt-4o-mini"
    assert offline.calls("discussion_kickoff")[0].model == "anthropic/claude-3-5-haiku"
    assert offline.calls("discussion_research")[0].model == "offline-medium"
    # large texts are artifacts; history holds refs
    texts = store()
    assert texts.get(result.messages[0].ref).endswith("critic, look at adoption.")
    assert texts.get(result.messages[2].ref).startswith("[offline test double] Three angles.")  # labelled
    assert len(result.round_transcripts) == 1
    round_text = texts.get(result.round_transcripts[0])
    assert "I2 assumes shops will share data." in round_text and "Leader: researcher" not in round_text
    assert "I prefer the compost hub." in texts.get(result.transcript)
    assert result.report is None
    # usage: one row per successful call; totals are the sum of the rows
    assert result.usage.calls == 8 == sum(r.calls for r in result.usage.by_agent.values())
    assert result.usage.input_tokens == sum(r.input_tokens for r in result.usage.by_agent.values()) > 0
    # query and search attributes for the CLI / Web UI
    assert progress.phase == "done" and progress.selected_idea_id == "I2" and len(progress.ideas) == 3
    assert attrs == {"ColloquyPipeline": "discussion", "ColloquyPhase": "done", "ColloquyStatus": "completed",
                     "ColloquyTopic": "How can a small town cut food waste?"}


async def test_extended_two_rounds_top_up_to_four_ideas_and_deep_dive(ts_env, worker, offline):
    offline.script("discussion_ideate",
                   ideas("Compost hub", "Surplus app"),                           # r1: only 2 of MinIdeas 4
                   ideas("Compost hub!", "School kitchens", "Fridge network"),    # r1 top-up: 1 duplicate
                   {"ideas": [idea("Compost hub", "Hub plus home pickup.", refines="I1")]},  # r1 deep dive
                   ideas("Market day swaps"),                                     # r2: pool now 5
                   {"ideas": [idea("Surplus app", "App with shop discounts.", refines="I2")]})  # r2 deep dive
    offline.script("discussion_score", scores(uniform("I1", 7.2), uniform("I2", 6.9), uniform("I3", 6.0),
                                              uniform("I4", 6.5), uniform("I5", 4.0), uniform("I9", 9.9)))
    offline.script("discussion_select", {"explanation": "I1.", "preferred_idea_id": "I1"})
    for agent in ("discussion_kickoff", "discussion_synthesize"):
        offline.script(agent, *[f"{agent} says {n}" for n in range(3)])
    for agent in ("discussion_research", "discussion_critique", "discussion_implement"):
        offline.script(agent, f"{agent} round 1", f"{agent} round 2")
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env.client, queue, level="extended")
        result: DiscussionResult = await handle.result()

    assert result.rules.max_rounds == 2 and result.rules.min_ideas == 4 and result.rules.deep_dive
    modes = [c.context["mode"] for c in offline.calls("discussion_ideate")]
    assert modes == ["generate", "topup", "refine", "generate", "refine"]
    assert "at least 2 more distinct idea(s)" in prompt_of(offline.calls("discussion_ideate")[1])
    assert "Building on previous ideas and feedback" in prompt_of(offline.calls("discussion_ideate")[3])
    # the deep-dive turn answers the critic: it sees the critique of its round
    assert "discussion_critique round 1" in prompt_of(offline.calls("discussion_ideate")[2])
    assert [i.id for i in result.ideas] == ["I1", "I2", "I3", "I4", "I5"]
    assert result.ideas[0].description == "Hub plus home pickup." and result.ideas[0].refined_in_rounds == []
    assert result.ideas[1].description == "App with shop discounts." and result.ideas[1].refined_in_rounds == [2]
    assert [e.kind for e in result.events] == ["ideas_dropped", "score_warning"]
    assert "duplicate of I1" in result.events[0].message
    assert "the moderator scored an unknown idea 'I9': ignored" == result.events[1].message
    # threshold 7.0: only I1 (7.2) is considered
    assert result.selected.id == "I1" and result.selection.considered == ["I1"]
    assert result.selection.threshold == 7.0
    assert len(result.round_transcripts) == 2 and [m.round for m in result.messages].count(2) == 6
    assert len(offline.calls("discussion_synthesize")) == 2


async def test_full_three_rounds_shortfall_and_no_idea_over_the_threshold(ts_env, worker, offline):
    offline.script("discussion_ideate",
                   ideas("A1 compost", "A2 app", "A3 kitchens"),                 # r1: 3 of MinIdeas 5
                   ideas("A1 compost", "A4 fridges"),                            # r1 top-up: still 4
                   {"ideas": []},                                                # r1 deep dive: no changes
                   ideas("A5 swaps", "A6 labels"),                               # r2: 6
                   {"ideas": []},
                   ideas("A7 pantry"),                                           # r3: 7
                   {"ideas": []})
    offline.script("discussion_score", scores(*[uniform(f"I{n}", 7.4 - n / 10) for n in range(1, 8)]))
    offline.script("discussion_select", {"explanation": "A1 is fine.", "preferred_idea_id": "I1"})
    for agent in ("discussion_kickoff", "discussion_research", "discussion_critique", "discussion_implement",
                  "discussion_synthesize"):
        offline.script(agent, *[f"{agent} turn {n}" for n in range(4)])
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env.client, queue, level="full")
        result: DiscussionResult = await handle.result()

    assert result.rules.max_rounds == 3 and len(result.round_transcripts) == 3
    assert [c.context["mode"] for c in offline.calls("discussion_ideate")] == [
        "generate", "topup", "refine", "generate", "refine", "generate", "refine"]
    assert len(result.ideas) == 7
    shortfall = [e for e in result.events if e.kind == "idea_shortfall"]
    assert len(shortfall) == 1 and shortfall[0].round == 1
    assert "4 distinct idea(s) after round 1; level full asks for at least 5" in shortfall[0].message
    # best is I1 at 7.3 < 7.5: nobody is selected, and the result says why
    assert result.outcome == "no_idea_met_threshold" and result.selected is None
    assert "the best was I1 'A1 compost' at 7.3" in result.outcome_detail and "7.5" in result.outcome_detail
    assert result.selection.leader_preferred_idea_id == "I1"
    assert Path(result.transcript.uri.removeprefix("file://")).is_file()
