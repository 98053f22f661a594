"""Circuit breaker (§13): rule-based, mechanical, deterministic. It never thinks; it breaks.

Soft rules (state visit limit, A→B→A→B cycle, transition limit, timeout, cost limit) stop the run and hand the
decision to the orchestrator. After the orchestrator answered, the rule that fired is re-armed from the
current position (so the same trip does not fire again at once); the hard safety limits count from the start of
the run, never reset, and nobody can override them. Elapsed time is passed in (workflow.now() - start).
"""

from __future__ import annotations

from models.writing.workflow import BreakContext, BreakerState, BreakInfo, CircuitBreakerConfig, RuleConfig
from rules.writing.conditions import parse

DEFAULT_LIMITS = {"state_visit_limit": 3, "cycle_detection": 4, "transition_limit": 20, "timeout": 1800.0,
                  "cost_limit": 5.00}
RULE_ORDER = tuple(DEFAULT_LIMITS)
# Transition keys that retry work after a failure or a gate's verdict: they are retries, not revisits, so they
# never make an A→B→A→B cycle (the visit limit still bounds them).
RETRY_KEYS = frozenset({"retry", "failure", "all_failure"})


def effective_rules(cfg: CircuitBreakerConfig) -> list[RuleConfig]:
    """The configured rules merged with the defaults: a listed rule overrides its default (limit, enabled);
    an unlisted rule keeps its default. Listing some rules never turns the others off."""
    listed: dict[str, RuleConfig] = {rule.name: rule for rule in cfg.rules}
    merged = [listed[name] if name in listed else RuleConfig.model_validate({"name": name}) for name in RULE_ORDER]
    return merged + [rule for name, rule in listed.items() if name not in RULE_ORDER]


def limit_of(rule: RuleConfig) -> float:
    return float(rule.limit if rule.limit is not None else DEFAULT_LIMITS[rule.name])


def record_transition(bs: BreakerState, from_state: str, to_state: str, key: str | None = None,
                      retry_aware: bool = False) -> None:
    """Count a transition. With `retry_aware`, a retry key (gate retry, failure back-edge) restarts the cycle
    window: a retry is not a revisit pattern."""
    bs.state_visits[to_state] = bs.state_visits.get(to_state, 0) + 1
    bs.transition_count += 1
    bs.transition_history.append((from_state, to_state))
    if retry_aware and key in RETRY_KEYS:
        bs.cycle_window_start = len(bs.transition_history)


def human_round(bs: BreakerState) -> None:
    """A human asked for another round (approval feedback): the loop the human drives is counted apart from
    the breaker's revisit rules. Visits and the cycle window count again from here; hard limits do not reset."""
    bs.human_rounds += 1
    bs.visit_baseline = dict(bs.state_visits)
    bs.cycle_window_start = len(bs.transition_history)


def visits_since_baseline(bs: BreakerState, state: str) -> int:
    return bs.state_visits.get(state, 0) - bs.visit_baseline.get(state, 0)


def add_cost(bs: BreakerState, cost_usd: float, tokens: int = 0) -> None:
    bs.total_cost_usd = round(bs.total_cost_usd + cost_usd, 8)
    bs.total_tokens += tokens


def budget_exceeded(bs: BreakerState, cfg: CircuitBreakerConfig, extra_cost: float = 0.0,
                    extra_tokens: int = 0) -> str | None:
    """The per-call budget check (hard cost / token limits) with calls not yet recorded added; a message or None.

    Checked after every call, fan-out branches included: the run then stops, so the spend is at most the cap plus
    the calls that were already in flight when it was crossed (each fan-out branch at most once)."""
    hard = cfg.safety_limits
    cost = round(bs.total_cost_usd + extra_cost, 8)
    tokens = bs.total_tokens + extra_tokens
    if cost >= hard.max_cost_hard:
        return f"hard_cost_limit: ${cost:.4f} spent (hard limit ${hard.max_cost_hard:.2f})"
    if hard.max_tokens_hard is not None and tokens >= hard.max_tokens_hard:
        return f"hard_token_limit: {tokens:,} tokens used (hard limit {hard.max_tokens_hard:,})"
    return None


def spend_message(bs: BreakerState, cfg: CircuitBreakerConfig, rule: str) -> str:
    """The run's spend as recorded so far (call it once every call is recorded: the final figures), with the cap
    that `rule` enforces beside it."""
    hard = cfg.safety_limits
    cap = f"hard limit {hard.max_tokens_hard:,} tokens" if rule == "hard_token_limit" and hard.max_tokens_hard \
        is not None else f"hard limit ${hard.max_cost_hard:.2f}"
    return f"${bs.total_cost_usd:.4f} spent, {bs.total_tokens:,} tokens ({cap})"


def budget_halt_reason(bs: BreakerState, cfg: CircuitBreakerConfig, exceeded: str, cancelled: int) -> str:
    """Why a fan-out stopped at the hard budget, in final figures: `exceeded` is `budget_exceeded`'s message
    (taken when the cap was crossed); the spend and tokens are read again after every branch was recorded, so
    calls that landed after the crossing count, and `cancelled` says how many were stopped in flight."""
    rule = exceeded.split(":", 1)[0]
    return (f"hard safety limit {rule}: {spend_message(bs, cfg, rule)}; checked after every call, {cancelled} "
            "in-flight call(s) cancelled")


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


def check_rules(bs: BreakerState, cfg: CircuitBreakerConfig, to_state: str, elapsed_s: float, *,
                merge_defaults: bool = False) -> BreakInfo | None:
    """After a transition into `to_state`: the first soft rule that fires, or None. With `merge_defaults` the
    configured rules are merged with the defaults (`effective_rules`)."""
    for rule in effective_rules(cfg) if merge_defaults else cfg.rules:
        if not rule.enabled:
            continue
        if rule.condition is not None:
            message = condition_message(bs, rule.condition, to_state, elapsed_s)
            if message:
                return BreakInfo(rule=rule.name, message=message, overridable=True, context=context(bs, elapsed_s))
            continue
        if rule.name not in DEFAULT_LIMITS:
            continue  # refused by validate_config; never guessed at here
        limit = limit_of(rule)
        message = None
        visits = visits_since_baseline(bs, to_state)
        if rule.name == "state_visit_limit" and visits >= limit:
            message = f"state {to_state!r} visited {visits}x (limit {limit:g})"
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


def condition_values(bs: BreakerState, to_state: str, elapsed_s: float) -> dict[str, object]:
    """What a condition reads, each counted since the breaker was last re-armed (as the built-in rules count)."""
    visits = {name: visits_since_baseline(bs, name) for name in bs.state_visits}
    return {"state": to_state, "state_visits": visits, "transition_count": bs.transition_count - bs.transition_baseline,
            "elapsed_s": elapsed_s - bs.elapsed_baseline_s, "total_cost_usd": bs.total_cost_usd - bs.cost_baseline,
            "total_tokens": bs.total_tokens,
            "entered": [to for _, to in bs.transition_history[bs.cycle_window_start:]]}


def condition_message(bs: BreakerState, condition: str, to_state: str, elapsed_s: float) -> str | None:
    """The break message when `condition` holds after entering `to_state`, else None."""
    cond = parse(condition)
    values = condition_values(bs, to_state, elapsed_s)
    if not cond.evaluate(values):
        return None
    shown = [f"state_visits[{to_state!r}]={values['state_visits'].get(to_state, 0)}"  # type: ignore[attr-defined]
             if name == "state_visits" else f"{name}={values[name]!r}" if name == "state" else
             f"{name}={float(values[name]):g}" for name in sorted(cond.uses) if name != "cycle"]  # type: ignore[arg-type]
    return f"condition {condition!r} holds" + (f" ({', '.join(shown)})" if shown else "")


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
        rule, message = "hard_cost_limit", spend_message(bs, cfg, "hard_cost_limit")
    elif hard.max_tokens_hard is not None and bs.total_tokens >= hard.max_tokens_hard:
        rule, message = "hard_token_limit", spend_message(bs, cfg, "hard_token_limit")
    if rule is None:
        return None
    return BreakInfo(rule=rule, message=message or rule, overridable=False, context=context(bs, elapsed_s))


def rearm(bs: BreakerState, rule: str, state: str, elapsed_s: float, condition: str | None = None) -> None:
    """The orchestrator answered a break: count the fired soft rule again from here (a condition rule: every
    metric its condition reads)."""
    if condition is not None:
        uses = parse(condition).uses
        names = {"state_visits": "state_visit_limit", "cycle": "cycle_detection", "transition_count":
                 "transition_limit", "elapsed_s": "timeout", "total_cost_usd": "cost_limit"}
        for metric in sorted(uses & set(names)):
            rearm(bs, names[metric], state, elapsed_s)
            bs.consultations -= 1
        bs.consultations += 1
        return
    bs.consultations += 1
    if rule == "state_visit_limit":
        bs.state_visits[state] = bs.visit_baseline.get(state, 0)
    elif rule == "cycle_detection":
        bs.cycle_window_start = len(bs.transition_history)
    elif rule == "transition_limit":
        bs.transition_baseline = bs.transition_count
    elif rule == "timeout":
        bs.elapsed_baseline_s = elapsed_s
    elif rule == "cost_limit":
        bs.cost_baseline = bs.total_cost_usd


def rearm_rule(bs: BreakerState, cfg: CircuitBreakerConfig, rule: str, state: str, elapsed_s: float) -> None:
    """`rearm` for the configured rule named `rule` (its condition, when it has one)."""
    condition = next((r.condition for r in cfg.rules if r.name == rule and r.condition is not None), None)
    rearm(bs, rule, state, elapsed_s, condition)
