"""Strict outputs (issue 15, defect 4): a wrong-schema or garbage answer is refused for every agent — re-asked once,
then a retryable InvalidLLMOutput (Temporal retries the activity; the workflow's fallback follows) — and never
returned as a result. Through litellm and the whole gateway, the offline double scripted per agent."""

from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError

from activities.agents.base import AGENTS
from activities.llm import gateway
from activities.llm.gateway import INVALID_OUTPUT, check_prose, parse_output
from activities.llm.offline import Fault
from models.interview.analysis import AnalysisSummary
from models.interview.notes import NotesState, ResearchOutput
from models.query.agents import ParserOutput
from workers import registry

registry.llm_activities()  # every agent declared
GARBAGE = {"unexpected": "shape"}
WRONG = Fault(kind="wrong_schema")
MESSAGES = [{"role": "user", "content": "answer"}]


@pytest.mark.parametrize("agent", sorted(AGENTS))
async def test_wrong_schema_is_reasked_then_refused_for_every_agent_structured_and_free_text(agent, offline):
    spec = AGENTS[agent]
    offline.script(agent, GARBAGE, GARBAGE)
    with pytest.raises(ApplicationError) as err:
        await gateway.complete(agent, MESSAGES, spec.output_model)
    assert err.value.type == INVALID_OUTPUT and not err.value.non_retryable
    assert "returned invalid output twice" in str(err.value)
    # free-text agents (essays, drafts, turns): a bare JSON answer is not prose (the double's wrong_schema fault
    # answers {"unexpected": "shape"} unlabelled, as a model would)
    offline.script(agent, WRONG, WRONG)
    with pytest.raises(ApplicationError) as err:
        await gateway.complete(agent, MESSAGES, None)
    assert err.value.type == INVALID_OUTPUT and "where prose was asked for" in str(err.value)
    assert len(offline.calls(agent)) == 4  # each asked, then re-asked once


async def test_a_garbage_answer_then_a_good_one_is_accepted_after_one_reask(offline):
    offline.script("interview_note_taker", GARBAGE, {"key_ideas": [], "possible_titles": ["A title"]})
    notes, usage = await gateway.complete("interview_note_taker", MESSAGES, NotesState)
    assert isinstance(notes, NotesState) and notes.possible_titles == ["A title"] and usage.reasks == 1
    offline.script("interview_writer", WRONG, "# The essay\n\nReal prose.")
    text, usage = await gateway.complete("interview_writer", MESSAGES, None)
    assert "Real prose." in str(text) and usage.reasks == 1


@pytest.mark.parametrize("model", [AnalysisSummary, NotesState, ResearchOutput, ParserOutput])
def test_models_whose_fields_all_have_defaults_still_refuse_another_shape(model):
    with pytest.raises(ValueError, match="none of its fields"):
        parse_output('{"unexpected": "shape", "_offline": "x"}', model)
    with pytest.raises(ValueError, match="none of its fields"):
        parse_output("{}", model)


def test_prose_is_not_json_and_not_empty():
    assert check_prose("An essay. {with braces}") == "An essay. {with braces}"
    assert check_prose("[offline test double] text") == "[offline test double] text"
    for bad in ("", "   ", '{"unexpected": "shape"}', '```json\n{"a": 1}\n```', "[1, 2]"):
        with pytest.raises(ValueError):
            check_prose(bad)
