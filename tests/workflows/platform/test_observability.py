"""Logs carry workflow id, run id, activity and agent; each agent call is an OTEL span with model, tokens and
cost; the TracingInterceptor links client, workflow and activity spans into one trace."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from temporalio.client import Client

from core.logging import configure_logging
from core.settings import ROOT
from core.telemetry import configure_tracing, tracing_interceptor
from tests.workflows.platform.helpers import run_model_check

OK = {"ok": True, "echo": "colloquy", "model_note": "scripted"}


async def test_log_lines_carry_workflow_run_activity_and_agent(ts_env, worker, offline):
    buffer = io.StringIO()
    configure_logging(fmt="json", level="INFO", stream=buffer)
    try:
        offline.script("model_check", offline.Fault(kind="server_error"), OK)
        async with worker(ts_env.client) as queue:
            handle, report = await run_model_check(ts_env.client, queue)
    finally:
        configure_logging()
    assert report.rows[0].ok
    lines = [json.loads(line) for line in buffer.getvalue().splitlines() if line.startswith("{")]
    calls = [ln for ln in lines if ln["event"] == "llm.call"]
    failed = [ln for ln in lines if ln["event"] == "llm.failed"]
    assert len(calls) == 1 and len(failed) == 1
    for line in calls + failed:
        assert line["workflow_id"] == handle.id
        assert line["run_id"] == handle.result_run_id
        assert line["activity"] == "model_check" and line["agent"] == "model_check"
    assert calls[0]["attempt"] == 2 and failed[0]["attempt"] == 1
    assert calls[0]["model"] == "offline-low" and calls[0]["tokens_in"] > 0
    assert failed[0]["error_type"] == "LLMUnavailable" and failed[0]["retryable"] is True


async def test_agent_calls_are_spans_in_the_workflow_trace(ts_env, worker, offline):
    provider = configure_tracing(in_process=True)
    assert provider is not None, "OTEL_SDK_DISABLED is set"
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    traced = Client(**{**ts_env.client.config(), "interceptors": [tracing_interceptor()]})
    offline.script("model_check", OK)
    try:
        async with worker(traced) as queue:
            _, report = await run_model_check(traced, queue)
        spans = exporter.get_finished_spans()
    finally:
        exporter.shutdown()
    usage = report.rows[0].usage
    [llm] = [s for s in spans if s.name == "llm model_check"]
    assert llm.attributes["llm.model"] == "offline-low" and llm.attributes["llm.provider"] == "offline"
    assert llm.attributes["llm.input_tokens"] == usage.input_tokens
    assert llm.attributes["llm.output_tokens"] == usage.output_tokens
    assert llm.attributes["llm.cost_usd"] == usage.cost_usd
    assert llm.attributes["gen_ai.request.model"] == "colloquy-offline/offline-low"
    by_name = {s.name: s for s in spans}
    start = by_name["StartWorkflow:ModelCheckWorkflow"]
    run_activity = [s for s in spans if s.name == "RunActivity:model_check"]
    assert len(run_activity) == 1  # the interceptor is applied once (client-provided), not twice
    assert llm.context.trace_id == start.context.trace_id == run_activity[0].context.trace_id
    assert llm.parent.span_id == run_activity[0].context.span_id


def test_console_exporter_prints_agent_spans():
    code = (
        "import asyncio, core.settings\n"
        "from core.telemetry import configure_tracing\n"
        "configure_tracing()\n"
        "from activities.llm import gateway, offline\n"
        "offline.script('console_check', {'ok': True, 'echo': 'x', 'model_note': ''})\n"
        "from activities.platform.model_check import ModelCheckOutput\n"
        "out, usage = asyncio.run(gateway.complete('console_check', [{'role': 'user', 'content': 'hi'}],"
        " ModelCheckOutput))\n"
        "print('RESULT', out.echo, usage.input_tokens)\n"
    )
    env = {**os.environ, "OTEL_TRACES_EXPORTER": "console,bogus", "COLLOQUY_PROFILE": "offline",
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("OTEL_SDK_DISABLED", None)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "RESULT x" in proc.stdout
    assert "unsupported exporter(s) ['bogus'] ignored" in proc.stderr
    assert '"name": "llm console_check"' in proc.stdout
    assert '"llm.model": "offline-medium"' in proc.stdout and '"llm.cost_usd": 0.0' in proc.stdout


async def test_an_expected_retry_is_one_line_without_traceback(dev_env, worker, offline, caplog, capsys):
    """A classified failure is one line: the gateway's `llm.failed` with the agent, attempt, error class and
    the next retry delay from the retry policy; the SDK's "Completing activity as failed" record (before: the
    full traceback, with the chained cause, per attempt) is dropped for it."""
    import logging

    configure_logging(fmt="json", level="INFO")
    offline.script("model_check", offline.Fault(kind="server_error"), OK)
    try:
        with caplog.at_level(logging.WARNING, logger="temporalio.activity"):
            async with worker(dev_env.client) as queue:
                _, report = await run_model_check(dev_env.client, queue)
    finally:
        configure_logging()
    assert report.rows[0].ok
    assert not [r for r in caplog.records if r.name == "temporalio.activity"]
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [failed] = [json.loads(line) for line in err.splitlines() if '"llm.failed"' in line]
    assert failed["agent"] == "model_check" and failed["attempt"] == 1 and failed["error_type"] == "LLMUnavailable"
    assert failed["next"].startswith("retry 2 of ") and failed["next"].endswith("s")


async def test_an_other_expected_failure_is_one_sdk_line(caplog):
    """Classified errors not logged where they arose (storage, artifacts): the SDK line itself becomes one line."""
    import logging
    import sys as _sys

    from temporalio.exceptions import ApplicationError

    from core.logging import ExpectedFailureFilter

    try:
        raise ApplicationError("artifact x not found", type="ArtifactNotFound", non_retryable=True)
    except ApplicationError:
        record = logging.LogRecord("temporalio.activity", logging.WARNING, __file__, 1,
                                   "Completing activity as failed", (), _sys.exc_info())
    record.__dict__["__temporal_error_identifier"] = "ActivityFailure"
    record.__dict__["temporal_activity"] = {"activity_type": "get_artifact", "attempt": 3}
    assert ExpectedFailureFilter().filter(record) and record.exc_info is None
    assert record.getMessage() == ("get_artifact attempt 3 failed: ArtifactNotFound: artifact x not found — "
                                   "not retried (non-retryable)")


async def test_an_unexpected_error_keeps_its_traceback(caplog):
    import logging

    from core.logging import ExpectedFailureFilter

    try:
        raise KeyError("bug")
    except KeyError:
        import sys as _sys

        record = logging.LogRecord("temporalio.activity", logging.WARNING, __file__, 1,
                                   "Completing activity as failed", (), _sys.exc_info())
    record.__dict__["__temporal_error_identifier"] = "ActivityFailure"
    assert ExpectedFailureFilter().filter(record) and record.exc_info is not None
