"""Publishing is a human's act where the config asks for one (issue 39, rules/writing/publish.py).

Generated runs walk a config's state machine through the pure transition logic the workflow uses (the circuit
breaker's rules and hard limits, `best_output`, `usable_post`) with every result drawn: fan-out outcomes, gate
verdicts, approvals, rejections, aborts and timeouts, orchestrator decisions after a break (halt, force_complete
with any output, retry from any state) and budget halts, in any order. The invariant, at the end of each run:

    a run whose config has a human-approval state ends `complete` only with a post a human was shown and
    approved, that synthesis wrote and a final audit read; whatever the end, the post it carries is such a post
    (or none); a forced end is `forced` — never `complete` — unless it ends with such a post.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

import pytest
import yaml
from hypothesis import event, given, settings
from hypothesis import strategies as st

from models.common import ArtifactRef
from models.writing.workflow import (
    AgentOutput,
    AuditScoreRow,
    BreakerState,
    Invocation,
    RunState,
    WorkflowConfig,
)
from rules.writing import breaker
from rules.writing.outcome import usable_post
from rules.writing.publish import (
    FORCED,
    PostRecord,
    decide_end,
    last_approved,
    record_of,
    requirements,
    unpublishable,
)
from rules.writing.transitions import best_output

CONFIGS = Path(__file__).resolve().parents[3] / "configs" / "writing"


def _raw(name: str) -> dict:
    return yaml.safe_load((CONFIGS / f"{name}.yaml").read_text())


def _variants() -> dict[str, WorkflowConfig]:
    gated = _raw("gated")
    tight = copy.deepcopy(gated)
    tight["circuit_breaker"]["rules"] = [{"name": "state_visit_limit", "limit": 2},
                                         {"name": "transition_limit", "limit": 7}, {"name": "cycle_detection"}]
    tight["circuit_breaker"]["safety_limits"]["max_transitions_hard"] = 30
    # a config with a path around the human: synth-check may complete the run by itself
    bypass = copy.deepcopy(gated)
    bypass["states"]["synth-check"]["transitions"]["proceed"] = "complete"
    # approval before the final audit
    early = copy.deepcopy(gated)
    early["states"]["synth-check"]["transitions"]["proceed"] = "human-approval"
    early["states"]["human-approval"]["transitions"]["approved"] = "final-audit"
    early["states"]["final-audit"]["transitions"].update(all_success="complete", partial_success="complete")
    return {name: WorkflowConfig.model_validate(data) for name, data in
            {"gated": gated, "tight": tight, "bypass": bypass, "early": early, "default": _raw("default")}.items()}


CONFIG_VARIANTS = _variants()
MODELS = ["m-a", "m-b"]
FAN_OUT = ["all_success", "all_success", "partial_success", "all_failure"]  # weighted towards progress
GATE = ["proceed", "proceed", "proceed", "retry", "halt"]
HUMAN = ["approved", "feedback", "feedback", "abort", "timeout"]


def _ref(name: str) -> ArtifactRef:
    return ArtifactRef(uri=f"file:///runs/r/{name}", name=name, sha256="0" * 64, size_bytes=1)


@dataclass
class Sim:
    cfg: WorkflowConfig
    current: str = "start"
    bs: BreakerState = field(default_factory=BreakerState)
    outputs: dict[str, list[AgentOutput]] = field(default_factory=dict)
    audits: list[AuditScoreRow] = field(default_factory=list)
    rec: PostRecord = field(default_factory=PostRecord)
    rejected: list[str] = field(default_factory=list)
    visits: dict[str, int] = field(default_factory=dict)
    status: str | None = None
    forced: bool = False
    chosen: str | None = None
    elapsed: float = 0.0
    events: list[str] = field(default_factory=list)

    def latest_post(self, inputs: list[str]) -> AgentOutput | None:
        posts = [o for n in (inputs or list(self.outputs)) for o in self.outputs.get(n, []) if o.kind == "post"]
        return posts[-1] if posts else None

    def final_post(self) -> str | None:
        if self.chosen is not None:
            return self.chosen
        post = next((o for group in reversed(list(self.outputs.values())) for o in group if o.kind == "post"), None)
        return post.ref.name if post else None


def _execute(sim: Sim, data: st.DataObject) -> str:
    """One state's result, drawn; the record of what happened to which post, as the workflow keeps it."""
    name = sim.current
    state = sim.cfg.states[name]
    sim.visits[name] = visit = sim.visits.get(name, 0) + 1
    if state.type == "fan-out":
        key = data.draw(st.sampled_from(FAN_OUT), label=f"{name} v{visit}")
        if key != "all_failure":
            kind = {"draft": "draft", "audit": "audit", "final_audit": "final_audit"}[state.task or "draft"]
            made = MODELS if key == "all_success" else MODELS[:1]
            sim.outputs[name] = [AgentOutput(state=name, model=m, kind=kind, ref=_ref(f"{name}_v{visit}_{m}.md"))
                                 for m in made]
            if state.task == "final_audit":
                read = [o.ref.name for n in state.input for o in sim.outputs.get(n, [])]
                sim.rec.audited += read
            if state.task == "audit":
                sim.audits += [AuditScoreRow(state=name, kind="audit", visit=visit, auditor=m, target=t,
                                             overall=data.draw(st.integers(1, 10), label="score"))
                               for m in made for t in MODELS]
        return key
    if state.type == "human-approval":
        post = sim.latest_post(state.input)
        if post:
            sim.rec.shown.append(post.ref.name)
        key = data.draw(st.sampled_from(HUMAN), label=f"human v{visit}")
        if key == "approved" and post:
            sim.rec.approved.append(post.ref.name)
        if key == "feedback":
            if post:
                sim.rejected.append(post.ref.name)
            breaker.human_round(sim.bs)
        if key == "timeout" and "timeout" not in state.transitions:
            key = "abort"
        return key
    if state.task == "quality_gate":
        return data.draw(st.sampled_from(GATE), label=f"{name} v{visit}")
    ok = data.draw(st.integers(0, 4), label=f"{name} v{visit} ok") > 0
    if not ok:
        return "failure"
    if state.task == "synthesize":
        written = f"{name}_v{visit}.md"
        sim.outputs[name] = [AgentOutput(state=name, model="orchestrator", kind="post", ref=_ref(written))]
        sim.rec.synthesized.append(written)
    else:
        sim.outputs[name] = [AgentOutput(state=name, model="orchestrator", kind="analysis",
                                         ref=_ref(f"{name}_v{visit}.md"))]
    return "success"


class Ended(Exception):
    pass


def _stop(sim: Sim, status: str, why: str) -> NoReturn:
    sim.status = status
    sim.events.append(why)
    raise Ended


def _break(sim: Sim, brk, to_state: str, data: st.DataObject) -> None:
    """The orchestrator's answer to a break, drawn; applied as the workflow applies it."""
    cfg = sim.cfg
    decision = data.draw(st.sampled_from(["halt", "force_complete", "retry_different"]), label="orchestrator")
    sim.events.append(f"break {brk.rule} -> {decision}")
    breaker.rearm_rule(sim.bs, cfg.circuit_breaker, brk.rule, to_state, sim.elapsed)
    if decision == "halt":
        _stop(sim, "halted", "orchestrator halt")
    if decision == "force_complete":
        names = [o.ref.name for group in sim.outputs.values() for o in group]
        named = data.draw(st.one_of(st.none(), st.sampled_from(names)) if names else st.none(), label="use")
        chosen = best_output(sim.outputs, sim.audits, named)
        if sim.rejected and usable_post(chosen, sim.rejected) is None:
            _stop(sim, "halted", "forced a rejected post")
        if chosen is None:
            _stop(sim, "halted", "nothing to force")
        sim.forced, sim.chosen = True, chosen.ref.name
        _stop(sim, "complete", "forced")
    states = [n for n, s in cfg.states.items() if s.type not in ("initial", "terminal")]
    sim.current = data.draw(st.sampled_from(states), label="retry_from")


def _move(sim: Sim, frm: str, to: str, key: str, data: st.DataObject) -> None:
    breaker.record_transition(sim.bs, frm, to, key, retry_aware=True)
    sim.elapsed += data.draw(st.sampled_from([1.0, 60.0, 900.0]), label="elapsed")
    hard = breaker.check_safety_limits(sim.bs, sim.cfg.circuit_breaker, sim.elapsed)
    if hard is not None:
        _stop(sim, "halted", hard.rule)
    sim.current = to
    if sim.cfg.states[to].type != "terminal":
        brk = breaker.check_rules(sim.bs, sim.cfg.circuit_breaker, to, sim.elapsed, merge_defaults=True)
        if brk is not None:
            _break(sim, brk, to, data)


def simulate(cfg: WorkflowConfig, data: st.DataObject) -> Sim:
    sim = Sim(cfg=cfg)
    first = next(n for n, s in cfg.states.items() if s.type == "initial")
    try:
        _move(sim, first, cfg.states[first].next or "", "next", data)
        while cfg.states[sim.current].type != "terminal":
            if data.draw(st.integers(0, 60), label="budget") == 0:   # the hard budget crossed in a call
                _stop(sim, "halted", "hard_cost_limit")
            name = sim.current
            key = _execute(sim, data)
            target = cfg.states[name].transitions.get(key)
            if target is None:
                _stop(sim, "halted", f"no transition for {key}")
            _move(sim, name, target, key, data)
        sim.status = "halted" if cfg.states[sim.current].error else "complete"
    except Ended:
        pass
    return sim


def check_invariant(sim: Sim) -> None:
    req = requirements(sim.cfg)
    assert sim.status is not None
    end = decide_end(req, sim.rec, sim.status, sim.final_post(), sim.forced)
    event(f"end: {end.status}{' (forced)' if sim.forced else ''}{' with a post' if end.post else ''}")
    if not req.approval:
        assert (end.status, end.post) == (sim.status, sim.final_post())  # the seed's rules, unchanged
        return
    if end.post is not None:  # whatever the end, a post it carries is one a human approved, seen and audited
        assert end.post in sim.rec.approved and end.post in sim.rec.shown
        assert end.post in sim.rec.synthesized and end.post in sim.rec.audited
        assert unpublishable(req, sim.rec, end.post) is None
    if end.status == "complete":
        assert end.post is not None, sim.events
    if sim.forced:
        assert end.status in ("complete", FORCED)
        assert end.status == FORCED or end.post == sim.chosen
    if end.status == FORCED:
        assert sim.forced and end.post == last_approved(req, sim.rec) and end.reason


@settings(max_examples=1000, deadline=None)
@given(st.sampled_from(sorted(CONFIG_VARIANTS)), st.data())
def test_only_a_human_publishes_on_generated_runs(name, data):
    check_invariant(simulate(CONFIG_VARIANTS[name], data))


@pytest.mark.deep
@settings(max_examples=20_000, deadline=None)
@given(st.sampled_from(sorted(CONFIG_VARIANTS)), st.data())
def test_only_a_human_publishes_on_generated_runs_deep(name, data):
    check_invariant(simulate(CONFIG_VARIANTS[name], data))


# ------------------------------------------------------------------------------------ named regressions
REQ = requirements(CONFIG_VARIANTS["gated"])


def test_the_issue_repro_three_rejections_then_force_complete_ends_forced_without_a_post():
    rec = PostRecord(synthesized=[f"synthesize_v{i}.md" for i in range(1, 5)],
                     audited=[f"synthesize_v{i}.md" for i in range(1, 5)],
                     shown=[f"synthesize_v{i}.md" for i in range(1, 4)])
    end = decide_end(REQ, rec, "complete", "synthesize_v4.md", forced=True)
    assert end.status == FORCED and end.post is None
    assert "synthesize_v4.md was never shown to the human reviewer" in (end.reason or "")


def test_a_forced_raw_draft_is_never_published():
    end = decide_end(REQ, PostRecord(), "complete", "draft_v3_m_a.md", forced=True)
    assert end.status == FORCED and end.post is None and "did not go through synthesis" in (end.reason or "")


def test_a_forced_end_carries_the_last_approved_post():
    rec = PostRecord(synthesized=["s1.md", "s2.md"], audited=["s1.md", "s2.md"], shown=["s1.md", "s2.md"],
                     approved=["s1.md"])
    end = decide_end(REQ, rec, "complete", "s2.md", forced=True)
    assert end == end.__class__(FORCED, "s1.md", end.reason) and "the last approved post is s1.md" in end.reason
    assert decide_end(REQ, rec, "halted", "s2.md").post == "s1.md"   # a halted run hands out no unapproved post


def test_an_approved_but_unaudited_post_does_not_complete():
    rec = PostRecord(synthesized=["s1.md"], shown=["s1.md"], approved=["s1.md"])
    end = decide_end(REQ, rec, "complete", "s1.md")
    assert end.status == "halted" and end.post is None and "never read by a final audit" in (end.reason or "")


def test_the_record_comes_from_the_run_state():
    from datetime import UTC, datetime

    t = datetime(2026, 1, 1, tzinfo=UTC)

    def inv(seq, task, status="success", output=None, inputs=()):
        return Invocation(seq=seq, state=task, visit=1, task=task, agent=f"writing_{task}", model="m",
                          started_at=t, status=status, context_window=1000, output_name=output,
                          inputs=list(inputs))

    s = RunState(run_id="r", story_name="s", models=["m"], invocations=[
        inv(1, "synthesize", output="synthesize_v1.md"), inv(2, "synthesize", status="failed"),
        inv(3, "final_audit", inputs=["synthesize_v1.md"]), inv(4, "final_audit", status="timeout",
                                                                 inputs=["synthesize_v2.md"])],
        shown_posts=["synthesize_v1.md"], approved_posts=["synthesize_v1.md"])
    rec = record_of(s)
    assert rec == PostRecord(synthesized=["synthesize_v1.md"], audited=["synthesize_v1.md"],
                             shown=["synthesize_v1.md"], approved=["synthesize_v1.md"])
    assert decide_end(REQ, rec, "complete", "synthesize_v1.md").status == "complete"
