"""Circuit breaker (§13): rule-based, mechanical, deterministic. It never thinks; it breaks.

Soft rules (state visit limit, A→B→A→B cycle, transition limit, timeout, cost limit) stop the run and hand the
decision to the orchestrator. After the orchestrator answered, the rule that fired is re-armed from the
current position (so the same trip does not fire again at once); the hard safety limits count from the start of
the run, never reset, and nobody can override them. Elapsed time is passed in (workflow.now() - start).
"""

from __future__ import annotations

from models.writing import BreakContext, BreakerState, BreakInfo, CircuitBreakerConfig, RuleConfig

DEFAULT_LIMITS = {"state_visit_limit": 3, "cycle_detection": 4, "transition_limit": 20, "timeout": 1800.0,
                  "cost_limit": 5.00}


def limit_of(rule: RuleConfig) -> float:
    return float(rule.limit if rule.limit is not None else DEFAULT_LIMITS[rule.name])


def record_transition(bs: BreakerState, from_state: str, to_state: str) -> None:
    bs.state_visits[to_state] = bs.state_visits.get(to_state, 0) + 1
    bs.transition_count += 1
    bs.transition_history.append((from_state, to_state))


def add_cost(bs: BreakerState, cost_usd: float) -> None:
    bs.total_cost_usd = round(bs.total_cost_usd + cost_usd, 8)


def detect_cycle(bs: BreakerState) -> bool:
    """A→B→A→B: the last four states entered alternate between two states (within the armed window).

    The seed's unit test (start→A, A→B, B→A, A→B triggers) defines the pattern on the states entered."""
    entered = [to for _, to in bs.transition_history[bs.cycle_window_start:]]
    if len(entered) < 4:
        return False
    a, b, c, d = entered[-4:]
    return a == c and b == d and a != b


def context(bs: BreakerState, elapsed_s: float) -> BreakContext:
    return BreakContext(state_visits=dict(bs.state_visits), transition_history=list(bs.transition_history),
                        transition_count=bs.transition_count, elapsed_s=round(elapsed_s, 3),
                        total_cost_usd=round(bs.total_cost_usd, 6))


def check_rules(bs: BreakerState, cfg: CircuitBreakerConfig, to_state: str, elapsed_s: float) -> BreakInfo | None:
    """After a transition into `to_state`: the first soft rule that fires, or None."""
    for rule in cfg.rules:
        if not rule.enabled:
            continue
        limit = limit_of(rule)
        message = None
        if rule.name == "state_visit_limit" and bs.state_visits.get(to_state, 0) >= limit:
            message = f"state {to_state!r} visited {bs.state_visits[to_state]}x (limit {limit:g})"
        elif rule.name == "cycle_detection" and detect_cycle(bs):
            a, b = bs.transition_history[-2][1], to_state
            message = f"cycle detected: {a} → {b} → {a} → {b}"
        elif rule.name == "transition_limit" and bs.transition_count - bs.transition_baseline >= limit:
            message = f"{bs.transition_count - bs.transition_baseline} transitions (limit {limit:g})"
        elif rule.name == "timeout" and elapsed_s - bs.elapsed_baseline_s >= limit:
            message = f"{elapsed_s - bs.elapsed_baseline_s:.0f}s elapsed (limit {limit:g}s)"
        elif rule.name == "cost_limit" and bs.total_cost_usd - bs.cost_baseline >= limit:
            message = f"${bs.total_cost_usd - bs.cost_baseline:.4f} spent (limit ${limit:.2f})"
        if message:
            return BreakInfo(rule=rule.name, message=message, overridable=True, context=context(bs, elapsed_s))
    return None


def check_safety_limits(bs: BreakerState, cfg: CircuitBreakerConfig, elapsed_s: float) -> BreakInfo | None:
    """Hard limits (can't be overridden): transitions, runtime and cost since the run began."""
    hard = cfg.safety_limits
    message = rule = None
    if bs.transition_count >= hard.max_transitions_hard:
        rule, message = "hard_transition_limit", f"{bs.transition_count} transitions (hard limit " \
                                                  f"{hard.max_transitions_hard})"
    elif elapsed_s >= hard.max_runtime_hard:
        rule, message = "hard_timeout", f"{elapsed_s:.0f}s elapsed (hard limit {hard.max_runtime_hard:g}s)"
    elif bs.total_cost_usd >= hard.max_cost_hard:
        rule, message = "hard_cost_limit", f"${bs.total_cost_usd:.4f} spent (hard limit ${hard.max_cost_hard:.2f})"
    if rule is None:
        return None
    return BreakInfo(rule=rule, message=message or rule, overridable=False, context=context(bs, elapsed_s))


def rearm(bs: BreakerState, rule: str, state: str, elapsed_s: float) -> None:
    """The orchestrator answered a break: count the fired soft rule again from here."""
    bs.consultations += 1
    if rule == "state_visit_limit":
        bs.state_visits[state] = 0
    elif rule == "cycle_detection":
        bs.cycle_window_start = len(bs.transition_history)
    elif rule == "transition_limit":
        bs.transition_baseline = bs.transition_count
    elif rule == "timeout":
        bs.elapsed_baseline_s = elapsed_s
    elif rule == "cost_limit":
        bs.cost_baseline = bs.total_cost_usd
