"""The LLM gateway seen through a real workflow (ModelCheckWorkflow) on the time-skipping server.

Every answer a test depends on is scripted here; faults are injected through the offline provider, which
raises litellm's own exception classes inside litellm, so the gateway's classification is what runs.
"""

from __future__ import annotations

import pytest
from temporalio.api.enums.v1 import EventType

from activities.llm.offline import Fault
from models.platform.workflow import ModelCheckRequest
from tests.conftest import replay, replay_recorded
from tests.workflows.platform.helpers import events, failures, run_model_check, started_attempts, use_config

OK = {"ok": True, "echo": "colloquy", "model_note": "scripted"}


def _recording(name: str) -> str | None:
    """Re-record the committed history only when asked (COLLOQUY_RECORD_HISTORIES=1) or when it is missing, so
    test_recorded_history_still_replays checks new code against the history the old code wrote."""
    import os

    from tests.conftest import HISTORIES

    if os.environ.get("COLLOQUY_RECORD_HISTORIES") == "1" or not (HISTORIES / f"{name}.json").exists():
        return name
    return None


async def test_success_returns_validated_output_usage_and_replays(ts_env, worker, offline):
    offline.script("model_check", OK)
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    row = report.rows[0]
    assert row.ok and row.echo == "colloquy" and row.error is None
    usage = row.usage
    assert usage is not None
    assert (usage.provider, usage.model, usage.offline, usage.attempt, usage.reasks) == (
        "offline", "offline-low", True, 1, 0)
    assert usage.input_tokens > 0 and usage.output_tokens > 0 and usage.cost_usd == 0.0
    assert report.totals.calls == 1 and report.totals.input_tokens == usage.input_tokens
    assert await started_attempts(handle) == [1]
    assert len(offline.calls("model_check")) == 1 and offline.calls("model_check")[0].scripted
    # the activity ran on the LLM queue with a UI summary
    scheduled = (await events(handle, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))[0]
    assert scheduled.activity_task_scheduled_event_attributes.task_queue.name == f"{queue}-llm"
    assert b"model check: model_check" in scheduled.user_metadata.summary.data
    desc = await handle.describe()
    assert desc.typed_search_attributes.get(__import__("core.search_attributes").search_attributes.STATUS) == \
        "completed"
    await replay(handle, record_as=_recording("platform_model_check"))


async def test_recorded_history_still_replays():
    await replay_recorded("platform_model_check")


@pytest.mark.parametrize("kind", ["rate_limit", "server_error", "timeout", "connection"])
async def test_transient_errors_are_retried_by_temporal(ts_env, worker, offline, kind):
    offline.script("model_check", Fault(kind=kind), OK)
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    assert report.rows[0].ok, report.rows[0].error
    assert report.rows[0].usage.attempt == 2
    assert await started_attempts(handle) == [2]  # the second attempt is the one that completed
    assert [c.fault for c in offline.calls("model_check")] == [kind, None]


@pytest.mark.parametrize(("kind", "error_type", "words"), [
    ("auth", "LLMAuthError", "authentication failed"),
    ("bad_request", "LLMBadRequest", "request rejected"),
    ("unprocessable", "LLMBadRequest", "request rejected"),
    ("not_found", "LLMModelNotFound", "model not found"),
    ("context_window", "LLMContextWindowExceeded", "prompt too long"),
])
async def test_permanent_errors_fail_once_with_a_clear_message(ts_env, worker, offline, kind, error_type, words):
    offline.script("model_check", Fault(kind=kind), OK)
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    row = report.rows[0]
    assert not row.ok and row.error_type == error_type
    assert words in row.error and "offline model offline-low (agent model_check)" in row.error
    assert len(offline.calls("model_check")) == 1 and offline.pending("model_check") == 1  # OK never asked for
    [failure] = await failures(handle)
    assert failure.application_failure_info.type == error_type
    assert failure.application_failure_info.non_retryable
    assert await started_attempts(handle) == [1]


async def test_provider_outage_gives_up_after_the_policy_attempts(ts_env, worker, offline):
    offline.script("model_check", *[Fault(kind="server_error")] * 4)
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    row = report.rows[0]
    assert not row.ok and row.error_type == "LLMUnavailable" and "unavailable" in row.error
    [failure] = await failures(handle)
    assert not failure.application_failure_info.non_retryable
    assert await started_attempts(handle) == [4]  # fast_agent policy: 4 attempts
    assert len(offline.calls("model_check")) == 4


async def _first_retry_gap_s(handle) -> float:
    scheduled = (await events(handle, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))[0]
    started = (await events(handle, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED))[0]
    return (started.event_time.ToDatetime() - scheduled.event_time.ToDatetime()).total_seconds()


async def test_rate_limit_retry_after_becomes_next_retry_delay(ts_env, worker, offline):
    # 90 s is above the policy's 1 s initial interval and its 30 s maximum: only retry-after explains it.
    offline.script("model_check", Fault(kind="rate_limit", retry_after_s=90), OK)
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
        assert report.rows[0].ok and report.rows[0].usage.attempt == 2
        assert await _first_retry_gap_s(handle) >= 90
        offline.script("model_check", Fault(kind="rate_limit"), OK)  # no header: the policy's backoff
        plain, _ = await run_model_check(ts_env.client, queue)
    assert await _first_retry_gap_s(plain) < 30


async def test_server_error_retry_after_is_honoured_too(ts_env, worker, offline):
    offline.script("model_check", Fault(kind="server_error", retry_after_s=75), OK)
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    assert report.rows[0].ok
    assert await _first_retry_gap_s(handle) >= 75


async def test_invalid_json_is_reasked_once_inside_the_activity(ts_env, worker, offline):
    offline.script("model_check", Fault(kind="invalid_json"), OK)
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    usage = report.rows[0].usage
    assert report.rows[0].ok and usage.reasks == 1 and usage.attempt == 1
    first, second = offline.calls("model_check")
    assert second.messages[-2] == {"role": "assistant", "content": first.response}
    assert "not valid: invalid JSON" in second.messages[-1]["content"]
    assert await started_attempts(handle) == [1]


async def test_wrong_schema_twice_raises_retryable_invalid_output(ts_env, worker, offline):
    offline.script("model_check", Fault(kind="wrong_schema"), Fault(kind="wrong_schema"), OK)
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
        # attempt 1: answer + re-ask both wrong → InvalidLLMOutput (retryable) → attempt 2 succeeds
        assert report.rows[0].ok and report.rows[0].usage.attempt == 2
        assert await started_attempts(handle) == [2]
        offline.script("model_check", *[Fault(kind="wrong_schema")] * 8)
        failed, report = await run_model_check(ts_env.client, queue)
    row = report.rows[0]
    assert not row.ok and row.error_type == "InvalidLLMOutput"
    assert "returned invalid output twice" in row.error and "wrong schema for ModelCheckOutput" in row.error
    [failure] = await failures(failed)
    assert failure.application_failure_info.type == "InvalidLLMOutput"
    assert not failure.application_failure_info.non_retryable
    assert await started_attempts(failed) == [4]


PRICED = """
llm:
  default_provider: priced
  providers:
    priced:
      prefix: "colloquy-offline/"
      local: false
      prices:
        stub-model: {input_per_mtok: 3.0, output_per_mtok: 15.0}
  tiers:
    low: {priced: stub-model}
"""


async def test_usage_and_cost_are_recorded_from_registered_prices(ts_env, worker, offline, monkeypatch, tmp_path):
    use_config(monkeypatch, tmp_path, PRICED, COLLOQUY_PROFILE="config")
    offline.script("model_check", OK)
    async with worker(ts_env.client) as queue:
        _, report = await run_model_check(ts_env.client, queue)
    usage = report.rows[0].usage
    assert (usage.provider, usage.model) == ("priced", "stub-model")
    assert not usage.offline
    expected = usage.input_tokens * 3.0 / 1e6 + usage.output_tokens * 15.0 / 1e6
    assert usage.cost_usd == pytest.approx(expected, rel=1e-9) and usage.cost_usd > 0
    assert report.totals.cost_usd == pytest.approx(expected)


FALLBACK = """
llm:
  fallback_provider: backup
  providers:
    backup: {prefix: "colloquy-offline/", local: true}
  tiers:
    low: {backup: backup-model}
"""


async def test_fallback_provider_answers_when_the_primary_fails(ts_env, worker, offline, monkeypatch, tmp_path):
    use_config(monkeypatch, tmp_path, FALLBACK)
    offline.script("model_check", Fault(kind="server_error"), OK)
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    usage = report.rows[0].usage
    assert report.rows[0].ok and usage.fallback_used and usage.attempt == 1
    assert (usage.provider, usage.model) == ("backup", "backup-model")
    assert [c.model for c in offline.calls("model_check")] == ["offline-low", "backup-model"]
    assert await started_attempts(handle) == [1]


async def test_fallback_is_not_used_for_context_window_errors(ts_env, worker, offline, monkeypatch, tmp_path):
    use_config(monkeypatch, tmp_path, FALLBACK)
    offline.script("model_check", Fault(kind="context_window"), OK)
    async with worker(ts_env.client) as queue:
        _, report = await run_model_check(ts_env.client, queue)
    assert report.rows[0].error_type == "LLMContextWindowExceeded"
    assert len(offline.calls("model_check")) == 1


async def test_both_providers_failing_retries_when_either_failure_is_transient(ts_env, worker, offline,
                                                                              monkeypatch, tmp_path):
    use_config(monkeypatch, tmp_path, FALLBACK)
    # attempt 1: primary down (transient), fallback rejects the key (permanent) → still retried;
    # attempt 2: the primary is back.
    offline.script("model_check", Fault(kind="server_error"), Fault(kind="auth"), OK)
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    usage = report.rows[0].usage
    assert report.rows[0].ok and usage.attempt == 2 and not usage.fallback_used
    assert await started_attempts(handle) == [2]


async def test_configuration_error_is_permanent_and_explained(ts_env, worker, offline, monkeypatch, tmp_path):
    monkeypatch.setenv("COLLOQUY_CONFIG", str(tmp_path / "missing.yaml"))
    from activities.llm.config import reset_config_cache

    reset_config_cache()
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    row = report.rows[0]
    assert row.error_type == "ConfigError" and "missing.yaml, which does not exist" in row.error
    assert offline.calls() == []
    [failure] = await failures(handle)
    assert failure.application_failure_info.non_retryable


async def test_model_check_resolves_each_agents_model(ts_env, worker, offline, monkeypatch):
    # an agent key must name a real agent (the worker refuses unknown ones at start-up)
    monkeypatch.setenv("COLLOQUY_MODEL_INTERVIEW_WRITER", "special-model")
    from activities.llm.config import reset_config_cache

    reset_config_cache()
    offline.script("model_check", OK, {"ok": True, "echo": "colloquy", "model_note": "second"})
    async with worker(ts_env.client) as queue:
        _, report = await run_model_check(ts_env.client, queue,
                                          ModelCheckRequest(agents=["model_check", "interview_writer"]))
    models = {r.agent: r.model for r in report.rows}
    assert models == {"model_check": "offline-low", "interview_writer": "special-model"}
    assert all(r.ok for r in report.rows) and report.totals.calls == 2


async def test_hung_provider_is_cut_off_and_retried(ts_env, worker, offline, monkeypatch, tmp_path):
    # The gateway bounds every call by request_timeout_s and by the attempt's start-to-close (whichever is
    # sooner), even for providers that ignore litellm's timeout, so a hang becomes a retryable LLMUnavailable.
    use_config(monkeypatch, tmp_path, "llm:\n  request_timeout_s: 1\n")
    offline.script("model_check", Fault(kind="hang"), OK)
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    assert report.rows[0].ok and report.rows[0].usage.attempt == 2
    assert [c.fault for c in offline.calls("model_check")] == ["hang", None]
    assert await started_attempts(handle) == [2]
