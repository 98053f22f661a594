"""Each entry is parsed and validated once (issue 24 item 3): the update's validator parses and checks it and the
handler takes that result (it only checks again whether the entry may land now: its client's order); a signal is
checked once and its order again. Before: parsed twice and validated four times per update."""

from __future__ import annotations

from collections import Counter

import rules.interview.session_intake as intake
import workflows.inputs as inputs
from tests.workflows.interview.helpers import adaptive_plan, control, say, start


async def test_an_entry_is_parsed_and_validated_once(ts_env, worker, offline, monkeypatch):
    calls: Counter[str] = Counter()
    real_validate, real_parse = intake.validate_entry, inputs.parse_input

    def validate(entry, max_chars):  # noqa: ANN001, ANN202
        calls[f"validate {entry.entry_id}"] += 1
        return real_validate(entry, max_chars)

    def parse(model, raw, what):  # noqa: ANN001, ANN202
        calls[f"parse {what}"] += 1
        return real_parse(model, raw, what)

    monkeypatch.setattr(intake, "validate_entry", validate)
    monkeypatch.setattr(inputs, "parse_input", parse)     # (both modules are passed through the sandbox)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False)
        await say(h, "interviewee", "We kept a paper log.", entry_id="once-1")
        counted = dict(calls)
        await control(h, "end")
        await h.result()
    assert counted.get("validate once-1") == 1 and counted.get("parse 'submit_entry' update") == 1, counted
