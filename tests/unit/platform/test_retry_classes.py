"""rules/retry_classes.py is the one table of which activity failures are retried: every retry policy lists its
final types, every registered activity runs under a policy kind of the table, and every error type an activity
raises is a row whose class agrees with the flag it is raised with (issue 38: ArtifactError was raised retryable
for an S3 outage but listed never-retry for every activity)."""

from __future__ import annotations

import ast
import errno
import importlib
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from activities.agents.base import agent_activity
from activities.llm import gateway
from core.logging import bounded
from rules.policies import NON_RETRYABLE, POLICIES
from rules.retry_classes import (
    ERROR_TYPES,
    FINAL,
    FINAL_TYPES,
    KIND_ERRORS,
    TRANSIENT,
    TRANSIENT_TYPES,
    class_of,
    errno_class,
    http_status_class,
)
from workers import registry
from workflows.activity_options import activity_options

ROOT = Path(__file__).resolve().parents[3]

#: ApplicationError types an activity computes at run time, with the rows they can be.
DYNAMIC_TYPES = {
    ("activities/voice/__init__.py", "kind"): {"SpeechError", "SpeechConfigError"},
    ("activities/llm/gateway.py", "chosen.type"): set(ERROR_TYPES),  # both providers failed: the retryable side's
}


def test_the_table_splits_every_type_in_two_and_every_policy_lists_exactly_its_final_types():
    assert set(FINAL_TYPES) | set(TRANSIENT_TYPES) == set(ERROR_TYPES)
    assert not set(FINAL_TYPES) & set(TRANSIENT_TYPES)
    assert set(NON_RETRYABLE) == set(FINAL_TYPES)
    # the names recorded histories hold keep their meaning
    assert {"ArtifactError", "ArtifactNotFound", "StorageError", "ValidationError", "ConfigError"} <= set(FINAL_TYPES)
    assert {"ArtifactUnavailable", "StorageUnavailable", "StorageRetry", "LLMRateLimited",
            "LLMUnavailable"} <= set(TRANSIENT_TYPES)
    for kind in POLICIES:
        listed = activity_options(kind)["retry_policy"].non_retryable_error_types
        assert set(listed) == set(FINAL_TYPES), kind
        assert set(KIND_ERRORS[kind]) <= set(ERROR_TYPES), kind
        assert any(ERROR_TYPES[t] == TRANSIENT for t in KIND_ERRORS[kind]), kind  # something of it is retried
    from workflows.voice.workflow import RETRY

    assert set(RETRY.non_retryable_error_types or []) <= set(FINAL_TYPES)
    assert set(gateway.NON_RETRYABLE_LLM_ERRORS) <= set(FINAL_TYPES)
    assert {gateway.RATE_LIMITED, gateway.UNAVAILABLE, gateway.INVALID_OUTPUT} <= set(TRANSIENT_TYPES)


def _activity_name(fn) -> str:
    from temporalio.activity import _Definition

    defn = _Definition.from_callable(fn)
    assert defn is not None and defn.name, fn
    return defn.name


def _call_site_kinds() -> dict[str, set[str]]:
    """activity function name → the policy kinds workflow code schedules it with (call_activity's `kind=`, default
    "storage"; save_artifact/load_artifact: "artifact"; the voice workflows' own policy: "voice")."""
    found: dict[str, set[str]] = {"put_artifact": {"artifact"}, "get_artifact": {"artifact"}}
    for path in (ROOT / "workflows").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            first = node.args[0]
            target = first.id if isinstance(first, ast.Name) else first.value if isinstance(first, ast.Constant) \
                else None
            if not isinstance(target, str):
                continue
            kind = next((str(k.value.value) for k in node.keywords
                         if k.arg == "kind" and isinstance(k.value, ast.Constant)), None)
            if name == "call_activity":
                found.setdefault(target, set()).add(kind or "storage")
            elif name == "execute_activity" and path.parts[-2] == "voice":
                found.setdefault(target, set()).add("voice")
    return found


def test_every_registered_activity_runs_under_a_policy_kind_of_the_table():
    for fn in registry.llm_worker_activities():
        declared = agent_activity(fn)
        if declared is None:  # worker_models: the LLM worker's own table, called as storage
            continue
        assert declared.policy in POLICIES and declared.policy in KIND_ERRORS, _activity_name(fn)
    kinds = _call_site_kinds()
    scheduled = 0
    for fn in [*registry.other_activities(), *registry.audio_activities()]:
        name = _activity_name(fn)
        used = kinds.get(fn.__name__, set()) | kinds.get(name, set())
        assert used, f"{name}: no workflow schedules it (call_activity with a kind)"
        for kind in used:
            scheduled += 1
            assert kind == "voice" or (kind in POLICIES and kind in KIND_ERRORS), (name, kind)
    assert scheduled >= 20  # the scan found the call sites (it would pass vacuously otherwise)
    assert "artifact" in kinds["interview_save_transcript"]


def _constant(module: str, expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    mod = importlib.import_module(module)
    if isinstance(expr, ast.Name):
        value = getattr(mod, expr.id, None)
    elif isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        value = getattr(getattr(mod, expr.value.id, None), expr.attr, None)
    else:
        return None
    return value if isinstance(value, str) else None


def test_every_error_type_an_activity_raises_is_a_row_and_its_flag_agrees_with_the_row():
    checked = 0
    for path in sorted((ROOT / "activities").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        module = rel.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ApplicationError"):
                continue
            kw = {k.arg: k.value for k in node.keywords}
            assert "type" in kw, f"{rel}:{node.lineno}: an ApplicationError without a type"
            error_type = _constant(module, kw["type"])
            if error_type is None:
                allowed = DYNAMIC_TYPES.get((rel, ast.unparse(kw["type"])))
                assert allowed is not None, f"{rel}:{node.lineno}: type {ast.unparse(kw['type'])} is not a constant"
                continue
            assert error_type in ERROR_TYPES, f"{rel}:{node.lineno}: {error_type} is not in rules/retry_classes.py"
            flag = kw.get("non_retryable")
            if flag is None or isinstance(flag, ast.Constant):
                raised_final = bool(flag.value) if isinstance(flag, ast.Constant) else False
                assert raised_final == (ERROR_TYPES[error_type] == FINAL), \
                    f"{rel}:{node.lineno}: {error_type} raised with non_retryable={raised_final}"
            checked += 1
    assert checked >= 50


def test_http_statuses_and_errnos():
    assert [http_status_class(s) for s in (408, 409, 425, 429, 500, 502, 503, 504)] == [TRANSIENT] * 8
    assert [http_status_class(s) for s in (400, 401, 403, 404, 405, 411, 412, 413, 416)] == [FINAL] * 9
    assert [errno_class(e) for e in (errno.EIO, errno.ETIMEDOUT, errno.ESTALE, errno.ECONNREFUSED, None)] == \
        [TRANSIENT] * 5
    assert [errno_class(e) for e in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.ENOTDIR,
                                     errno.EISDIR, errno.ENAMETOOLONG)] == [FINAL] * 7
    assert class_of("ArtifactUnavailable") == TRANSIENT and class_of("ArtifactUnavailable", True) == FINAL
    assert class_of("ValidationError") == FINAL and class_of("KeyError") == TRANSIENT


@given(st.text(max_size=900), st.integers(min_value=20, max_value=700))
def test_a_bounded_message_fits_is_one_line_and_is_never_cut_mid_word(text, limit):
    out = bounded(text, limit)
    flat = " ".join(text.split())
    assert len(out) <= limit and "\n" not in out
    if len(flat) <= limit:
        assert out == flat
    else:
        assert out.endswith("…")
        kept = out[:-1]
        assert flat.startswith(kept)
        rest = flat[len(kept):]
        # cut before a space (or punctuation before one); inside a word only when the last half has no space
        assert rest[:1] in (" ", ",", ";", ":", "-") or " " not in flat[limit // 2 + 1:limit - 1]


@given(outage_s=st.floats(min_value=0, max_value=55), attempt_s=st.floats(min_value=0.05, max_value=1.0),
       kind=st.sampled_from(["artifact", "storage"]))
def test_a_store_outage_of_up_to_55_s_is_ridden_out_by_the_policy(outage_s, attempt_s, kind):
    """Attempts fail (transient, each taking `attempt_s`: a refused connection) while the store is down; the first
    attempt that starts after it is back succeeds — within the policy's attempts and its schedule-to-close."""
    policy = POLICIES[kind]
    at, interval, attempt = 0.0, policy.initial_interval.total_seconds(), 1
    while at < outage_s:  # this attempt meets the outage: it fails, and the next one follows its backoff
        assert attempt < policy.max_attempts, f"{kind}: every attempt met the {outage_s:.1f} s outage"
        at += attempt_s + min(interval, policy.maximum_interval.total_seconds())
        interval *= policy.backoff
        attempt += 1
    assert at + attempt_s < policy.schedule_to_close.total_seconds()
