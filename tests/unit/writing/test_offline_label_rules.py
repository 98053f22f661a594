"""Issue 39, item 2, as properties: the offline label is shown exactly where the offline test double wrote —
on every row of the run logs and the run summary built from its calls, never on a real model's. Generated runs
mix models, states, gate rows and audit rows, each marked or not."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from activities.writing.common import labelled
from models.common import OFFLINE_LABEL, ArtifactRef, LLMUsage, offline_labelled
from models.writing.workflow import (
    AgentOutput,
    AuditScoreRow,
    BreakerState,
    Invocation,
    RunRecord,
    RunState,
)
from rules.writing.summary import OFFLINE_HEADER, agent_logs, manifest, run_summary, token_lines

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
MODELS = ("m-a", "openai/gpt-4o-mini", "team/writer")
STATES = ("draft", "cross-audit", "synthesize", "final-audit")


def _ref(name: str) -> ArtifactRef:
    return ArtifactRef(uri=f"file:///tmp/{name}", name=name, sha256="0" * 64, size_bytes=1)


calls = st.lists(st.tuples(st.sampled_from(MODELS), st.sampled_from(STATES), st.booleans()), min_size=1,
                 max_size=12)


def _record(rows: list[tuple[str, str, bool]], gates: list[bool], audits: list[bool]) -> RunRecord:
    invs = [Invocation(seq=n, state=state, visit=1, task="draft" if state == "draft" else "audit",
                       agent="writing_draft", model=model, started_at=T0, status="success", input_tokens=10,
                       output_tokens=5, context_window=1000, offline=offline, preview="text")
            for n, (model, state, offline) in enumerate(rows, 1)]
    scores = [AuditScoreRow(state="cross-audit", kind=kind, auditor=MODELS[n % 3], target="m-a", overall=7,
                            offline=offline) for n, offline in enumerate(audits) for kind in ("audit", "final_audit")]
    state = RunState(run_id="r", story_name="s", models=list(MODELS), status="complete", current="complete",
                     started_at=T0, invocations=invs, audit_scores=scores, final_score=7.0,
                     gate_scores=[{"state": f"gate{n}", "visit": 1, "model": "g", "target": "draft", "score": 7,
                                   "decision": "proceed", "offline": offline} for n, offline in enumerate(gates)],
                     breaker=BreakerState(transition_history=[("start", "draft"), ("draft", "complete")]))
    post = AgentOutput(state="synthesize", model="m-a", kind="post", ref=_ref("post.md"), offline=any(gates))
    return RunRecord(state=state, finished_at=T0 + timedelta(minutes=1), final_post=post)


def _table_rows(text: str) -> list[str]:
    lines = text.splitlines()
    return [line for n, line in enumerate(lines) if line.startswith("|") and not line.startswith("|-")
            and not (n + 1 < len(lines) and lines[n + 1].startswith("|-"))]


@settings(max_examples=150, deadline=None)
@given(rows=calls, gates=st.lists(st.booleans(), max_size=3), audits=st.lists(st.booleans(), max_size=3))
def test_a_row_says_offline_exactly_when_the_double_wrote_it(rows, gates, audits):
    rec = _record(rows, gates, audits)
    summary = run_summary(rec)
    any_offline = any(o for _, _, o in rows)
    assert (OFFLINE_HEADER in summary) == any_offline
    assert manifest(rec)["produced_by"] == (OFFLINE_LABEL if any_offline else "models")
    for line, (_, _, offline) in zip(token_lines(rec), rows, strict=True):
        assert json.loads(line)["offline"] is offline
    for lines in agent_logs(rec).values():
        assert all(isinstance(json.loads(line)["offline"], bool) for line in lines)
    if not any_offline and not any(gates) and not any(audits):
        assert OFFLINE_LABEL not in summary  # a real model's run is never labelled
    doubled = {m for m, _, o in rows if o}
    for row in _table_rows(summary):
        cells = [c.strip() for c in row.strip("|").split("|")]
        name = cells[0].removesuffix(OFFLINE_LABEL).strip()
        if name in MODELS and len(cells) == 5:  # Token Usage / Context Window rows: one per model
            assert (OFFLINE_LABEL in cells[0]) == (name in doubled), row
    if all(o for _, _, o in rows) and all(gates) and all(audits):
        assert all(OFFLINE_LABEL in row for row in _table_rows(summary)), summary


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=200), offline=st.booleans(), json_out=st.booleans())
def test_an_output_file_is_labelled_once_and_only_for_the_double(text, offline, json_out):
    usage = LLMUsage(agent="writing_audit", model="m", provider="p", offline=offline)
    content = json.dumps({"score": 7, "note": text}) if json_out else text
    kind = "application/json" if json_out else "text/markdown"
    saved = labelled(content, kind, usage)
    if not offline:
        assert saved == content
    elif json_out:
        assert json.loads(saved) == {"_offline": OFFLINE_LABEL, "score": 7, "note": text}
    else:
        assert saved.startswith(OFFLINE_LABEL) and labelled(saved, kind, usage) == saved
    assert offline_labelled(offline_labelled(text, offline), offline) == offline_labelled(text, offline)
