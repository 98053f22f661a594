"""The seed's 13-state machine (§5.1–5.4) with its 4 cycles, and the loop limits that keep each cycle bounded.

The workflow asks these functions where to go next; every edge it takes is checked against TRANSITIONS, and
every cycle edge is counted against LoopLimits, so no cycle can run away whatever the agents answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from models.query.agents import AnalyzerOutput, PlannerOutput
from models.query.parts import Gap, GapType, Verdict


class State(StrEnum):
    ROUTE = "ROUTE"
    BUILD_CONTEXT = "BUILD_CONTEXT"
    PLAN = "PLAN"
    RETRIEVE = "RETRIEVE"
    ANALYZE = "ANALYZE"
    SYNTHESIZE = "SYNTHESIZE"
    EVALUATE = "EVALUATE"
    CLARIFY = "CLARIFY"
    WAIT_USER = "WAIT_USER"
    EXPAND_DOMAIN = "EXPAND_DOMAIN"
    PARSE = "PARSE"
    STORE = "STORE"
    OBSERVE = "OBSERVE"
    COMPLETE = "COMPLETE"


S = State
TRANSITIONS: set[tuple[State, State]] = {
    (S.ROUTE, S.BUILD_CONTEXT),
    (S.BUILD_CONTEXT, S.PLAN), (S.BUILD_CONTEXT, S.PARSE),
    (S.PLAN, S.RETRIEVE), (S.PLAN, S.EXPAND_DOMAIN), (S.PLAN, S.CLARIFY), (S.PLAN, S.SYNTHESIZE),
    (S.RETRIEVE, S.ANALYZE),
    (S.RETRIEVE, S.OBSERVE),  # the asked period holds no notes: stated as the answer (patch empty-period-stated)
    (S.ANALYZE, S.SYNTHESIZE), (S.ANALYZE, S.PLAN), (S.ANALYZE, S.EXPAND_DOMAIN),
    (S.SYNTHESIZE, S.EVALUATE), (S.SYNTHESIZE, S.OBSERVE),  # the final partial answer is not re-evaluated
    (S.EVALUATE, S.OBSERVE), (S.EVALUATE, S.PLAN), (S.EVALUATE, S.EXPAND_DOMAIN), (S.EVALUATE, S.SYNTHESIZE),
    (S.EXPAND_DOMAIN, S.BUILD_CONTEXT),
    (S.CLARIFY, S.WAIT_USER), (S.CLARIFY, S.SYNTHESIZE),
    (S.WAIT_USER, S.ANALYZE), (S.WAIT_USER, S.SYNTHESIZE),
    (S.WAIT_USER, S.PLAN),  # answered: re-plan with the answer (older runs went to ANALYZE)
    (S.PARSE, S.STORE),
    (S.PARSE, S.CLARIFY), (S.WAIT_USER, S.PARSE), (S.WAIT_USER, S.STORE),  # which entry does a correction fix?
    (S.STORE, S.OBSERVE), (S.STORE, S.PLAN),  # BOTH: the log is stored first, then the query runs
    (S.OBSERVE, S.COMPLETE),
}

# Error cascade (§16.4): a query agent that failed for good → OBSERVE with a partial answer; a failed
# Parser → STORE the raw text; a failed Observer → COMPLETE.
DEGRADE_EDGES: set[tuple[State, State]] = {
    (s, S.OBSERVE) for s in (S.PLAN, S.RETRIEVE, S.ANALYZE, S.SYNTHESIZE, S.EVALUATE, S.CLARIFY, S.WAIT_USER,
                             S.EXPAND_DOMAIN)
} | {(S.PARSE, S.STORE), (S.OBSERVE, S.COMPLETE), (S.ROUTE, S.STORE)}  # Router failed: keep the note

# The four cycles of seed §14.1 and the counter each one increments.
CYCLES = {
    "analyze_replan": (S.ANALYZE, S.PLAN),
    "evaluate_retry": (S.EVALUATE, S.PLAN),
    "domain_expansion": (S.EXPAND_DOMAIN, S.BUILD_CONTEXT),
    "clarification": (S.CLARIFY, S.WAIT_USER),
}


class TransitionError(ValueError):
    pass


@dataclass(frozen=True)
class LoopLimits:
    analyze_replan: int = 2     # Analyze→Plan (retry config loop_max)
    evaluate_retry: int = 2     # Evaluate→Plan: 2 retries = 3 attempts, then partial + gaps (§7.5)
    domain_expansion: int = 2   # Expand→Build
    clarification: int = 1      # Clarify→Wait→Analyze rounds
    max_steps: int = 60         # belt and braces over every state visit

    def as_dict(self) -> dict[str, int]:
        return {"analyze_replan": self.analyze_replan, "evaluate_retry": self.evaluate_retry,
                "domain_expansion": self.domain_expansion, "clarification": self.clarification,
                "max_steps": self.max_steps}


@dataclass
class LoopCounters:
    counts: dict[str, int] = field(default_factory=lambda: {k: 0 for k in CYCLES})
    steps: int = 0
    path: list[str] = field(default_factory=list)

    def enter(self, state: State, limits: LoopLimits, degraded: bool = False) -> None:
        """Record a state visit: validate the edge, count cycles, stop runaways. A degraded step (an agent
        failed for good) may only jump to where the error cascade leads."""
        if self.path and degraded:
            prev = State(self.path[-1])
            if (prev, state) not in DEGRADE_EDGES and (prev, state) not in TRANSITIONS:
                raise TransitionError(f"illegal degraded transition {prev.value} → {state.value}")
        elif self.path:
            prev = State(self.path[-1])
            if (prev, state) not in TRANSITIONS:
                raise TransitionError(f"illegal transition {prev.value} → {state.value}")
            for name, edge in CYCLES.items():
                if edge == (prev, state):
                    self.counts[name] += 1
                    if self.counts[name] > getattr(limits, name):
                        raise TransitionError(f"cycle {name} over its limit {getattr(limits, name)}")
        self.steps += 1
        if self.steps > limits.max_steps:
            raise TransitionError(f"more than {limits.max_steps} state visits")
        self.path.append(state.value)

    def left(self, name: str, limits: LoopLimits) -> int:
        return getattr(limits, name) - self.counts[name]


RETRIEVABLE = {GapType.TEMPORAL, GapType.TOPICAL, GapType.CONTEXTUAL}


def is_retrievable(gap: Gap) -> bool:
    """Seed §7.3: temporal/topical/contextual (and subjective-past) gaps could be in the notes."""
    return gap.gap_type in RETRIEVABLE


def clarifiable_gaps(gaps: list[Gap]) -> list[Gap]:
    """Only non-retrievable gaps are asked — or retrievable ones already searched and not found."""
    return [g for g in gaps if not is_retrievable(g) or (g.searched and not g.found)]


def unsearched_retrievable(gaps: list[Gap]) -> list[Gap]:
    return [g for g in gaps if is_retrievable(g) and not g.searched]


def expansion_targets(requested: list[str], loaded: list[str], known: list[str]) -> list[str]:
    """Domains an expansion would really add: known to the app and not loaded yet (no no-op loops)."""
    out: list[str] = []
    for name in requested:
        if name in known and name not in loaded and name not in out:
            out.append(name)
    return out


def decide_after_plan(plan: PlannerOutput, *, counters: LoopCounters, limits: LoopLimits,
                      expandable: list[str], gaps: list[Gap], has_analysis: bool, searched: bool = True) -> State:
    """PLAN → RETRIEVE | EXPAND_DOMAIN | CLARIFY | SYNTHESIZE, with the seed's rules enforced:
    expansion only if it adds a domain and the cycle has room; "always search before asking" (a clarify
    decision before any retrieval, or with retrievable gaps never searched, becomes a retrieval); synthesize
    needs some analysis."""
    action = plan.next_action
    if action == "expand_domain":
        if expandable and counters.left("domain_expansion", limits) > 0:
            return State.EXPAND_DOMAIN
        action = "retrieve"
    if action == "clarify":
        if not searched and plan.retrieval_instructions:
            return State.RETRIEVE
        if unsearched_retrievable(gaps) and plan.retrieval_instructions:
            return State.RETRIEVE
        if counters.left("clarification", limits) > 0:
            return State.CLARIFY
        action = "synthesize" if has_analysis else "retrieve"
    if action == "synthesize":
        return State.SYNTHESIZE if has_analysis else State.RETRIEVE
    return State.RETRIEVE


def decide_after_analyze(analysis: AnalyzerOutput, *, counters: LoopCounters, limits: LoopLimits,
                         expandable: list[str]) -> State:
    """ANALYZE → SYNTHESIZE (sufficient) | EXPAND_DOMAIN (outside expertise) | PLAN (insufficient).
    When a cycle is out of room, the next best edge is taken and SYNTHESIZE is always reachable."""
    if analysis.verdict == Verdict.SUFFICIENT:
        return State.SYNTHESIZE
    if expandable and counters.left("domain_expansion", limits) > 0:
        return State.EXPAND_DOMAIN
    if counters.left("analyze_replan", limits) > 0:
        return State.PLAN
    return State.SYNTHESIZE


def decide_after_evaluate(passed: bool, *, counters: LoopCounters, limits: LoopLimits,
                          expandable: list[str]) -> State:
    """EVALUATE → OBSERVE (pass) | EXPAND_DOMAIN then PLAN (fail, retries left; §5.4: expand first) |
    SYNTHESIZE the partial answer (fail, no retries left)."""
    if passed:
        return State.OBSERVE
    if counters.left("evaluate_retry", limits) > 0:
        if expandable and counters.left("domain_expansion", limits) > 0:
            counters.counts["evaluate_retry"] += 1  # the retry goes through EXPAND→BUILD→PLAN
            return State.EXPAND_DOMAIN
        return State.PLAN
    return State.SYNTHESIZE


def decide_after_wait(answered: bool, replan: bool = False) -> State:
    """WAIT_USER → PLAN with the answers (replan; older runs: ANALYZE) | SYNTHESIZE what was found (declined
    or timed out)."""
    if answered:
        return State.PLAN if replan else State.ANALYZE
    return State.SYNTHESIZE
