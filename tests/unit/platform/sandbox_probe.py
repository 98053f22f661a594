"""A workflow that reaches for what the sandbox restricts (tests/unit/platform/test_sandbox_runner.py): its own
module, so the sandbox imports nothing else per run."""

from __future__ import annotations

import datetime

from temporalio import activity, workflow

RUNS: list[str] = []  # a module global: a fresh module per run sees it empty


@workflow.defn(sandboxed=True)
class ReadsTheClock:
    @workflow.run
    async def run(self) -> list[str]:
        RUNS.append(workflow.info().workflow_id)
        try:
            datetime.datetime.now()
        except Exception as exc:  # noqa: BLE001 — what the sandbox raises is the answer
            return [type(exc).__name__, str(len(RUNS))]
        return ["allowed", str(len(RUNS))]


@activity.defn(name="sandbox_probe_echo")
async def echo(text: str) -> str:
    return text


@workflow.defn(sandboxed=True)
class CallsAnActivity:
    """Payloads both ways: its input, an activity's input and result, its own result."""

    @workflow.run
    async def run(self, text: str) -> str:
        said = await workflow.execute_activity(echo, text, start_to_close_timeout=datetime.timedelta(seconds=10))
        return f"{said}/{said}"
