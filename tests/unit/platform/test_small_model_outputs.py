"""Defects a real small model (SmolLM2-135M, grammar-constrained through llama.cpp) showed in the pipelines, fixed at
the root (issue 10, round 2): each test fails on the code before its fix.

- llama.cpp's JSON-string grammar lets a model write a raw line break inside a string: read it, as the model meant.
- the Moderator chose which ideas to score (two of four): its call's schema names every idea, once, in order.
- the Parser's free-form `domain_data` / `correction_delta` let the model invent keys and nest until max_tokens: its
  call's schema is the loaded domains' fields, and the correction fields only in correction mode.
- a per-call schema reaches the model (response_format) and sizes the call's token budget.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import jsonschema
import pytest

from activities.discussion.score import scoring_schema
from activities.llm import gateway
from activities.llm.config import load_config, resolve_model
from activities.llm.schema import cap_schema, enumerate_bounded_numbers, token_budget
from activities.query.parse_log import parser_schema
from activities.query.storage import load_catalog
from models.discussion.workflow import ScoringOutput
from models.query.agents import ParseInput, ParserOutput
from rules.query.domains import combine_domains, domain_schemas


def _grammar(schema: dict) -> None:
    """The schema compiles into llama.cpp's grammar (what the `local` model and llama.cpp's server decode with)."""
    grammar = pytest.importorskip("llama_cpp.llama_grammar")
    grammar.LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)


def test_a_raw_line_break_inside_a_json_string_is_read():
    # what llama-cpp-python's grammar allowed SmolLM2 to write (its `char` rule is [^"\\]): strict json refused it
    text = '{"summary": "two lines\nof text", "evaluations": []}'
    out = gateway.parse_output(text, ScoringOutput)
    assert out.summary == "two lines\nof text"


def _evaluation(idea_id: str) -> dict:
    return {"idea_id": idea_id, "pros": [], "cons": [], "feedback": "", "feasibility": 5, "innovation": 5,
            "impact": 5, "clarity": 5, "completeness": 5}


def test_the_moderator_must_score_every_listed_idea_once_in_order():
    schema = scoring_schema(["I1", "I2", "I3", "I4"])
    ok = {"summary": "", "evaluations": [_evaluation(i) for i in ("I1", "I2", "I3", "I4")]}
    jsonschema.validate(ok, schema)
    for bad in ([_evaluation("I1"), _evaluation("I2")],                     # two of four: the run's defect
                [_evaluation(i) for i in ("I1", "I1", "I2", "I3")],         # one idea twice
                [_evaluation(i) for i in ("I1", "I2", "I3", "I9")]):        # an id that is not listed
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"summary": "", "evaluations": bad}, schema)
    ScoringOutput.model_validate(ok)
    sent = enumerate_bounded_numbers(cap_schema(schema, gateway.SMALL_MODEL_MAX_STRING, gateway.SMALL_MODEL_MAX_ITEMS))
    assert len(sent["properties"]["evaluations"]["prefixItems"]) == 4  # the small-model cap keeps every idea
    _grammar(sent)


def test_the_token_budget_counts_every_position_of_a_tuple():
    one, four = (token_budget(cap_schema(scoring_schema(ids), 160, 4)) for ids in (["I1"], ["I1", "I2", "I3", "I4"]))
    assert four > 3 * (one - 50)  # each scored idea is paid for


def _parse_input(correction: bool = False) -> ParseInput:
    catalog = load_catalog("fitness")
    ctx = combine_domains(catalog, [d.name for d in catalog.domains])
    return ParseInput(raw_input="Bench press 3x5 at 60 kg.", timestamp=datetime(2026, 1, 9, tzinfo=UTC),
                      domain_schemas=domain_schemas(catalog, ctx.domains_loaded), correction_mode=correction)


def _free_objects(node: object, path: str = "") -> list[str]:
    found = []
    if isinstance(node, dict):
        if node.get("type") == "object" and not node.get("properties") and node.get("additionalProperties", True) \
                in (True, {}):
            found.append(path or "(root)")
        for key, value in node.items():
            found += _free_objects(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _free_objects(value, f"{path}[{i}]")
    return found


def test_the_parser_fills_the_loaded_domains_fields_and_no_free_form_object():
    assert _free_objects(ParserOutput.model_json_schema())  # the output model's own schema has them
    schema = parser_schema(_parse_input())
    assert _free_objects(schema) == []
    assert set(schema["properties"]["domain_data"]["properties"]) == {"general_fitness", "strength", "running",
                                                                       "nutrition"}
    lift = schema["properties"]["domain_data"]["properties"]["strength"]["properties"]["exercises"]["items"]
    assert lift["properties"]["weight"] == {"type": "number"}
    jsonschema.validate({"domain_data": {"strength": {"exercises": [{"name": "bench press", "weight": 60}]}}},
                        schema)
    # what SmolLM2 wrote for a plain note: a correction delta with invented keys
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"domain_data": {}, "correction_delta": {"name": "Bench Press"}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"domain_data": {"strength": {"bar_color": "red"}}}, schema)
    correction = parser_schema(_parse_input(correction=True))
    assert {"is_correction", "target_entry_id", "correction_delta"} <= set(correction["properties"])
    _grammar(enumerate_bounded_numbers(cap_schema(schema, 160, 4)))
    _grammar(enumerate_bounded_numbers(cap_schema(correction, 160, 4)))


@pytest.mark.parametrize("provider", ["local", "openai_compatible"])
def test_a_call_schema_is_what_the_model_is_asked_for(provider):
    cfg = load_config(env={"COLLOQUY_PROVIDER": provider})
    res = resolve_model("discussion_score", cfg)
    schema = scoring_schema(["I1", "I2"])
    fields, messages = gateway._mode_request("json_object", ScoringOutput, res, [{"role": "user", "content": "x"}],
                                             schema)
    sent = fields["response_format"]["schema"]
    assert [p["properties"]["idea_id"]["const"] for p in sent["properties"]["evaluations"]["prefixItems"]] == \
        ["I1", "I2"]
    assert gateway._max_tokens(res, ScoringOutput, None, schema) != gateway._max_tokens(res, ScoringOutput, None)


@pytest.mark.parametrize(("provider", "capped"), [("local", True), ("openai", False)])
def test_a_small_models_free_text_is_bounded_so_the_essay_is_written_in_bounded_time(provider, capped):
    # issue 41: SmolLM2's 2048-token essay ran past the Writer's attempt on a busy machine; what it wrote past
    # ~450 words was not kept by the essay's checks. An explicit config budget still wins.
    res = resolve_model("interview_writer", load_config(env={"COLLOQUY_PROVIDER": provider}))
    assert res is not None
    budget = gateway._max_tokens(res, None, 2048)
    assert budget == (gateway.SMALL_MODEL_TEXT_BUDGET if capped else 2048)
    assert gateway._max_tokens(res, None, None) <= gateway.TEXT_BUDGET
    assert gateway._max_tokens(res.model_copy(update={"max_tokens": 3000}), None, 2048) == 3000


def test_the_in_process_model_may_use_its_whole_attempt_other_providers_the_request_timeout():
    import time

    deadline = time.monotonic() + 270
    for provider, capped in (("local", False), ("openai_compatible", True), ("openai", True)):
        cfg = load_config(env={"COLLOQUY_PROVIDER": provider})
        res = resolve_model("interview_writer", cfg)
        assert res is not None
        budget = gateway.call_budget(res, deadline, cfg)
        assert (budget == cfg.request_timeout_s) if capped else 260 < budget <= 270, (provider, budget)
        assert gateway.call_budget(res, None, cfg) == cfg.request_timeout_s  # outside an attempt: the timeout


def test_optional_free_form_objects_are_left_out_for_small_models_typed_maps_kept():
    from models.query.agents import PlannerOutput
    from models.study.activities import ThemeMergeOutput

    capped = cap_schema(PlannerOutput.model_json_schema(), 160, 4)
    assert "dependencies" not in capped["properties"]  # list[dict[str, Any]]
    assert "retrieval_params" not in capped["$defs"]["SubQuery"]["properties"]
    assert "next_action" in capped["properties"] and "sub_queries" in capped["properties"]
    assert "mapping" in cap_schema(ThemeMergeOutput.model_json_schema(), 160, 4)["properties"]  # dict[str, str]
    PlannerOutput.model_validate({"original_query": "q", "query_type": "simple", "next_action": "retrieve"})


@pytest.mark.parametrize(("provider", "model", "small"), [
    ("openai_compatible", None, True),                      # llama.cpp's server answers as "default": no size
    ("openai_compatible", "smollm2-135m-instruct", True),
    ("openai_compatible", "Qwen2.5-3B-Instruct-Q4_K_M", True),
    ("openai_compatible", "Llama-3.1-8B-Instruct", False),
    ("openai_compatible", "mixtral-8x7b", False),
    ("local", None, True),
    ("openai", None, False),                                # hosted APIs: never bounded by default
    ("anthropic", None, False),
])
def test_self_hosted_models_are_bounded_unless_their_name_says_they_are_large(provider, model, small):
    env = {"COLLOQUY_PROVIDER": provider, **({"COLLOQUY_MODEL": model} if model else {})}
    res = resolve_model("interview_planner", load_config(env=env))
    assert res is not None and res.small_model is small


def test_small_model_can_still_be_set_either_way(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("llm:\n  default_provider: openai_compatible\n  providers:\n    openai_compatible:\n"
                    "      small_model: false\n")
    assert not resolve_model("interview_planner", load_config(env={"COLLOQUY_CONFIG": str(path)})).small_model


def test_the_cross_audit_reviews_every_draft_by_its_name():
    from activities.llm.schema import one_item_each
    from models.writing.workflow import CrossAudit

    schema = one_item_each(CrossAudit.model_json_schema(), "reviews", "target", ["m-a", "m-b", "m-c"])
    review = {"feedback": "ok", "hook_score": 5, "specifics_score": 5, "voice_score": 5, "structure_score": 5,
              "overall_score": 5}
    jsonschema.validate({"consensus": "", "reviews": [{**review, "target": t} for t in ("m-a", "m-b", "m-c")]},
                        schema)
    with pytest.raises(jsonschema.ValidationError):  # what SmolLM2 wrote: names that are none of the drafts
        jsonschema.validate({"consensus": "", "reviews": [{**review, "target": "Draft 1"}]}, schema)
    _grammar(enumerate_bounded_numbers(cap_schema(schema, 160, 4)))


def test_the_clarifier_asks_at_least_one_real_question():
    from activities.query.clarify_gaps import MAX_QUESTIONS, clarifier_schema

    schema = clarifier_schema()
    jsonschema.validate({"questions": [{"question": "How did you sleep that week?"}]}, schema)
    for bad in ([], [{"question": ""}], [{"question": "How did you sleep?"}] * (MAX_QUESTIONS + 1)):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"questions": bad}, schema)
    _grammar(enumerate_bounded_numbers(cap_schema(schema, 160, 4)))


def test_a_grammar_never_allows_an_answer_with_none_of_the_fields():
    from models.interview.notes import NotesState

    res = resolve_model("interview_note_taker", load_config(env={"COLLOQUY_PROVIDER": "openai_compatible"}))
    fields, _ = gateway._mode_request("json_object", NotesState, res, [{"role": "user", "content": "x"}])
    sent = fields["response_format"]["schema"]
    with pytest.raises(jsonschema.ValidationError):  # what SmolLM2 answered over HTTP: `{}`, refused by the gateway
        jsonschema.validate({}, sent)
    with pytest.raises(ValueError, match="none of its fields"):
        gateway.parse_output("{}", NotesState)
    NotesState.model_validate({k: [] for k in sent["required"] if k != "section_coverage"})


def test_the_prompt_shows_a_short_schema_the_request_keeps_every_position():
    from activities.llm.schema import schema_instruction
    from models.discussion.workflow import Idea

    schema = scoring_schema(["I1", "I2", "I3", "I4"])
    text = schema_instruction(schema, "ScoringOutput")
    assert '"title"' not in text and text.count('"feasibility":{') == 1 and '"enum":["I1","I2","I3","I4"]' in text
    assert len(text) < len(json.dumps(schema)) / 2
    assert '"title":{' in schema_instruction(Idea.model_json_schema(), "Idea")  # a field called title stays
    res = resolve_model("discussion_score", load_config(env={"COLLOQUY_PROVIDER": "openai_compatible"}))
    fields, messages = gateway._mode_request("json_object", ScoringOutput, res, [{"role": "user", "content": "x"}],
                                             schema)
    assert len(fields["response_format"]["schema"]["properties"]["evaluations"]["prefixItems"]) == 4
    assert '"enum":["I1","I2","I3","I4"]' in messages[0]["content"]


def test_the_router_selects_available_domains_and_never_files_a_question_as_a_note():
    from activities.query.route_input import router_schema
    from models.query.agents import RouteInput
    from models.query.parts import DomainInfo

    domains = [DomainInfo(name="strength", description="Strength training and weightlifting"),
               DomainInfo(name="running", description="Running")]
    question = router_schema(RouteInput(raw_input="Why did my bench press feel heavy on January 9?",
                                        available_domains=domains))
    answer = {"input_type": "query", "confidence": 0.5, "selected_domains": ["strength"]}
    jsonschema.validate(answer, question)
    for bad in ({**answer, "input_type": "log"},  # what SmolLM2 answered over HTTP: the question was stored
                {**answer, "selected_domains": ["Strength training and weightlifting"]}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, question)
    note = router_schema(RouteInput(raw_input="What a session: bench 100x5.", available_domains=domains))
    jsonschema.validate({**answer, "input_type": "log"}, note)
    both = router_schema(RouteInput(raw_input="Bench 100x5 today. Is that a PR?", available_domains=domains))
    jsonschema.validate({**answer, "input_type": "both"}, both)
    _grammar(enumerate_bounded_numbers(cap_schema(question, 160, 4)))


def test_an_optional_free_form_object_stays_out_when_every_other_field_is_required():
    # ParserOutput (every field optional) as `models --check` sends it: domain_data must not come back as required
    res = resolve_model("parse_log", load_config(env={"COLLOQUY_PROFILE": "local"}))
    fields, _ = gateway._mode_request("json_object", ParserOutput, res, [{"role": "user", "content": "x"}])
    sent = fields["response_format"]["schema"]
    assert "domain_data" not in sent["properties"] and "correction_delta" not in sent["properties"]
    assert set(sent["required"]) == set(sent["properties"])
