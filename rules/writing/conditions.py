"""Circuit-breaker `condition` expressions (seed 004 §13), parsed by a small safe evaluator — never `eval`.

The seed writes each rule as a name and a condition:

    - name: state_visit_limit          condition: "state_visits[state] >= 3"
    - name: cycle_detection            condition: "A→B→A→B pattern in last 4 transitions"
    - name: transition_limit           condition: "transition_count >= 20"
    - name: timeout                    condition: "elapsed_s >= 1800"
    - name: cost_limit                 condition: "total_cost_usd >= 5.00"

Grammar (whitespace between tokens is free; `and` / `or` / `not` are words):

    condition  := or
    or         := and ("or" and)*
    and        := not ("and" not)*
    not        := "not" not | comparison | "(" condition ")" | cycle
    comparison := sum OP sum            OP: >= > <= < == !=
    sum        := atom (("+" | "-") atom)*
    atom       := NUMBER | 'text' | "text" | NAME | state_visits "[" (state | 'name') "]" | "(" sum ")"
    cycle      := "A→B→A→B pattern in last N transitions"   (also written with ->)

Names: `state` (the state just entered), `state_visits[...]` (visits since the breaker was last re-armed),
`transition_count`, `elapsed_s` (human approval waits excluded), `total_cost_usd`, `total_tokens`.
`parse(text)` returns a `Condition` or raises `ConditionError` with a message that says what is wrong and where;
any other exception is a bug (a Hypothesis property holds it to that).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MAX_CONDITION_CHARS = 300
MAX_DEPTH = 16
NUMBERS = ("transition_count", "elapsed_s", "total_cost_usd", "total_tokens")
NAMES = ("state", "state_visits", *NUMBERS)
OPS = (">=", "<=", "==", "!=", ">", "<")
CYCLE = re.compile(r"^\s*A\s*(?:→|->)\s*B\s*(?:→|->)\s*A\s*(?:→|->)\s*B\s+pattern\s+in\s+(?:the\s+)?last\s+"
                   r"(\d{1,3})\s+transitions?\s*$", re.IGNORECASE)
_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?|\.\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<str>'[^']{0,80}'|"
                    r"\"[^\"]{0,80}\")|(?P<op>>=|<=|==|!=|>|<|\+|-|\(|\)|\[|\]))")


class ConditionError(ValueError):
    """A condition that cannot be used; the message says why (and where)."""


@dataclass(frozen=True)
class Condition:
    """A parsed condition: `text` as written, `tree` the checked expression, `uses` the metrics it reads."""

    text: str
    tree: tuple[Any, ...]
    uses: frozenset[str] = field(default_factory=frozenset)

    def evaluate(self, ctx: dict[str, Any]) -> bool:
        return bool(_eval(self.tree, ctx))

    def canonical(self) -> tuple[str, float] | None:
        """`(metric, limit)` when the condition is one `metric >= number` comparison (the seed's simple form),
        `('cycle', N)` for the cycle phrase; else None."""
        t = self.tree
        if t[0] == "cycle":
            return "cycle", float(t[1])
        if t[0] == "cmp" and t[1] == ">=" and t[3][0] == "num":
            left = t[2]
            if left[0] == "var" and left[1] in NUMBERS:
                return left[1], float(t[3][1])
            if left[0] == "visits" and left[1] == ("var", "state"):
                return "state_visits", float(t[3][1])
        return None


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None:
            start = len(text) - len(text[pos:].lstrip())
            raise ConditionError(f"unexpected {text[start:start + 12]!r} at character {start + 1}")
        kind = m.lastgroup or "op"
        out.append((kind, m.group(kind), m.start(kind)))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0
        self.depth = 0
        self.uses: set[str] = set()

    def peek(self) -> tuple[str, str, int] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, value: str | None = None) -> tuple[str, str, int]:
        tok = self.peek()
        if tok is None:
            raise ConditionError(f"the condition ends too early{f' (expected {value!r})' if value else ''}")
        if value is not None and tok[1] != value:
            raise ConditionError(f"expected {value!r} at character {tok[2] + 1}, found {tok[1]!r}")
        self.i += 1
        return tok

    def word(self, w: str) -> bool:
        tok = self.peek()
        return tok is not None and tok[0] == "name" and tok[1].lower() == w

    def nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ConditionError(f"the condition nests deeper than {MAX_DEPTH} levels")

    def boolean(self) -> tuple[Any, ...]:
        self.nest()
        left = self.conj()
        while self.word("or"):
            self.take()
            left = ("or", left, self.conj())
        self.depth -= 1
        return left

    def conj(self) -> tuple[Any, ...]:
        left = self.neg()
        while self.word("and"):
            self.take()
            left = ("and", left, self.neg())
        return left

    def neg(self) -> tuple[Any, ...]:
        if self.word("not"):
            self.take()
            self.nest()
            inner = self.neg()
            self.depth -= 1
            return ("not", inner)
        tok = self.peek()
        if tok is not None and tok[1] == "(" and self._paren_is_boolean():
            self.take("(")
            inner = self.boolean()
            self.take(")")
            return inner
        left = self.sum()
        tok = self.peek()
        if tok is None or tok[1] not in OPS:
            where = f"at character {tok[2] + 1} ({tok[1]!r})" if tok else "at the end"
            raise ConditionError(f"expected a comparison (>=, >, <=, <, ==, !=) {where}, e.g. "
                                 "'transition_count >= 20'")
        op = self.take()[1]
        right = self.sum()
        kinds = {_kind(left), _kind(right)}
        if len(kinds) != 1 or (kinds == {"str"} and op not in ("==", "!=")):
            raise ConditionError(f"cannot compare {_show(left)} {op} {_show(right)}: compare numbers with numbers "
                                 "(state names only with == or !=)")
        return ("cmp", op, left, right)

    def _paren_is_boolean(self) -> bool:
        """Does the '(' at the cursor open a boolean group (it holds a comparison or and/or/not at its level)?"""
        level = 0
        for kind, value, _ in self.toks[self.i:]:
            if value in ("(", "["):
                level += 1
            elif value in (")", "]"):
                level -= 1
                if level == 0:
                    return False
            elif level == 1 and (value in OPS or kind == "name" and value.lower() in ("and", "or", "not")):
                return True
        return False

    def sum(self) -> tuple[Any, ...]:
        left = self.atom()
        while (tok := self.peek()) is not None and tok[1] in ("+", "-"):
            op = self.take()[1]
            right = self.atom()
            if _kind(left) != "num" or _kind(right) != "num":
                raise ConditionError(f"{op} needs numbers on both sides")
            left = ("arith", op, left, right)
        return left

    def atom(self) -> tuple[Any, ...]:
        self.nest()
        node = self._atom()
        self.depth -= 1
        return node

    def _atom(self) -> tuple[Any, ...]:
        tok = self.take()
        kind, value, pos = tok
        if kind == "num":
            return ("num", float(value))
        if kind == "str":
            return ("str", value[1:-1])
        if value == "(":
            inner = self.sum()
            self.take(")")
            return inner
        if value == "-":
            inner = self.atom()
            if _kind(inner) != "num":
                raise ConditionError(f"'-' at character {pos + 1} needs a number")
            return ("arith", "-", ("num", 0.0), inner)
        if kind != "name" or value.lower() in ("and", "or", "not"):
            raise ConditionError(f"unexpected {value!r} at character {pos + 1}")
        if value not in NAMES:
            raise ConditionError(f"unknown name {value!r} at character {pos + 1} (known: {', '.join(NAMES)})")
        self.uses.add(value)
        if value == "state_visits":
            self.take("[")
            key = self.atom()
            self.take("]")
            if _kind(key) != "str":
                raise ConditionError("state_visits[...] takes a state: state_visits[state] or "
                                     "state_visits['draft']")
            return ("visits", key)
        return ("var", value)


def _kind(node: tuple[Any, ...]) -> str:
    if node[0] == "str" or node == ("var", "state"):
        return "str"
    if node[0] in ("num", "var", "visits", "arith"):
        return "num"
    return "bool"


def _show(node: tuple[Any, ...]) -> str:
    return {"str": "a state name", "num": "a number", "bool": "a condition"}[_kind(node)]


def parse(text: Any) -> Condition:
    """A condition string → Condition, or ConditionError (never another exception)."""
    if not isinstance(text, str):
        raise ConditionError(f"a condition is text, not {type(text).__name__}")
    if not text.strip():
        raise ConditionError("the condition is empty")
    if len(text) > MAX_CONDITION_CHARS:
        raise ConditionError(f"the condition is {len(text)} characters, at most {MAX_CONDITION_CHARS}")
    m = CYCLE.match(text)
    if m:
        n = int(m.group(1))
        if n < 4:
            raise ConditionError(f"an A→B→A→B pattern needs at least 4 transitions, not {n}")
        return Condition(text=text, tree=("cycle", n), uses=frozenset({"cycle"}))
    if "→" in text or "pattern" in text.lower():
        raise ConditionError("a cycle condition reads 'A→B→A→B pattern in last N transitions'")
    p = _Parser(text)
    tree = p.boolean()
    rest = p.peek()
    if rest is not None:
        raise ConditionError(f"unexpected {rest[1]!r} at character {rest[2] + 1} after a complete condition")
    return Condition(text=text, tree=tree, uses=frozenset(p.uses))


def _eval(node: tuple[Any, ...], ctx: dict[str, Any]) -> Any:
    op = node[0]
    if op == "num" or op == "str":
        return node[1]
    if op == "var":
        return ctx.get(node[1], "" if node[1] == "state" else 0)
    if op == "visits":
        return (ctx.get("state_visits") or {}).get(_eval(node[1], ctx), 0)
    if op == "arith":
        a, b = _eval(node[2], ctx), _eval(node[3], ctx)
        return a + b if node[1] == "+" else a - b
    if op == "cmp":
        a, b = _eval(node[2], ctx), _eval(node[3], ctx)
        return {">=": a >= b, ">": a > b, "<=": a <= b, "<": a < b, "==": a == b, "!=": a != b}[node[1]]
    if op == "and":
        return _eval(node[1], ctx) and _eval(node[2], ctx)
    if op == "or":
        return _eval(node[1], ctx) or _eval(node[2], ctx)
    if op == "not":
        return not _eval(node[1], ctx)
    if op == "cycle":
        return cycle_in(ctx.get("entered") or [], int(node[1]))
    raise ConditionError(f"unknown node {op!r}")  # unreachable: parse builds only the nodes above


def cycle_in(entered: list[str], window: int) -> bool:
    """An A→B→A→B alternation among the last `window` states entered (window 4: the last four exactly)."""
    recent = entered[-window:]
    return any(recent[i] == recent[i + 2] and recent[i + 1] == recent[i + 3] and recent[i] != recent[i + 1]
               for i in range(len(recent) - 3))


# ------------------------------------------------------------------------------ rules as the seed writes them
BUILTIN_METRIC = {"state_visit_limit": "state_visits", "transition_limit": "transition_count",
                  "timeout": "elapsed_s", "cost_limit": "total_cost_usd", "cycle_detection": "cycle"}


def normalise_rule(raw: Any) -> Any:
    """One `circuit_breaker.rules` entry as written → what Colloquy keeps. A built-in rule whose condition is its
    own simple form (`transition_count >= 20` under transition_limit) becomes that rule with `limit: 20`; any
    other condition stays a condition (checked on every transition by `parse(...).evaluate`). Raises
    ConditionError for a condition that does not parse."""
    if not isinstance(raw, dict) or raw.get("condition") is None:
        return raw
    cond = parse(raw["condition"])
    canon = cond.canonical()
    name = raw.get("name")
    if canon is not None and BUILTIN_METRIC.get(str(name)) == canon[0] and raw.get("limit") is None:
        if canon[0] == "cycle" and canon[1] != 4:
            return raw  # a wider window than the built-in four: evaluated as written
        out = {k: v for k, v in raw.items() if k != "condition"}
        if canon[0] != "cycle":
            out["limit"] = int(canon[1]) if canon[1].is_integer() else canon[1]
        return out
    return raw
