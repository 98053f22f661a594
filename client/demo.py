"""`colloquy demo` (`make demo`) — the README's main job: a rehearsed interview, end to end, on the embedded defaults.

1. start the embedded Temporal server (or reuse the running one);
2. run the Colloquy workers in this process;
3. start an InterviewWorkflow (short: 3 minutes of interview clock, 3 s live cycle);
4. drive it with a simulated interviewee whose answers are replayed from a transcript file
   (client/rehearsal/transcripts/oncall.txt); when the answers run out the interviewer closes and the
   engine ends the session (000 closing detection);
5. wait for analysis + essay, print the essay's path (an artifact) and the Web UI link.

On the `offline` profile every agent answer comes from the deterministic test double and is labelled so.
"""

from __future__ import annotations

import asyncio
import time

from rich.markup import escape

from client.common import console, status_text
from core.settings import TemporalSettings

DEMO_TOPIC = "What six years of on-call for a payments platform taught me"
DEMO_CONTEXT = ("The interviewee ran on-call and incident reviews for a payments platform for six years and led "
                "the split of its monolith. Angle: what actually reduces outages and burnout, beyond the slogans.")
DEMO_DURATION_SECONDS = 180
DEMO_CYCLE_SECONDS = 3.0
DEMO_PACE_SECONDS = 1.0


def run_demo(keep_server: bool = False, port: int | None = None, address: str | None = None) -> int:
    from core.server import DevServer

    if address is not None:  # the user's own server: nothing to start or stop
        console.print(f"Using the Temporal server at {address}", soft_wrap=True)
        return asyncio.run(_demo(TemporalSettings.from_env(address=address)))
    server = DevServer.remembered(port=port)
    try:
        status = server.start()
    except (RuntimeError, TimeoutError, FileNotFoundError) as exc:
        console.print(f"[red]error:[/red] cannot start the embedded Temporal server: {escape(str(exc))}",
                      soft_wrap=True)
        return 1
    console.print(f"Temporal server {'reused' if status.reused else 'started'}: {status.describe()}", soft_wrap=True)
    try:
        return asyncio.run(_demo(TemporalSettings.from_env(address=server.address)))
    finally:
        if keep_server:
            console.print(f"The Temporal server keeps running for the Web UI ({status.ui_url}); stop it with "
                          "`colloquy server stop` (or `make down`).", soft_wrap=True)
        elif not status.reused:
            server.stop()
            console.print(f"Temporal server stopped (state kept in {server.dir}; `make up` keeps it "
                          "running for the Web UI).", soft_wrap=True)


async def _demo(settings: TemporalSettings) -> int:
    from activities.llm.config import current_config
    from client import rehearsal as rehearsal_data
    from client.interview.cli import (
        InterviewClientError,
        RehearsalOptions,
        TranscriptAnswers,
        fetch_essay,
        rehearse,
        start_interview,
    )
    from core.temporal import connect
    from models.interview.names import TASK_QUEUE
    from models.interview.workflow import InterviewInput
    from workers.main import build_workers

    cfg = current_config()
    offline = cfg.profile == "offline"
    if offline:
        console.print("[yellow]LLM profile: offline — every agent answer below comes from the deterministic test "
                      "double (labelled \\[offline test double]), not a model. Configure a model for real "
                      "output (README: LLM profiles).[/yellow]", soft_wrap=True)
    else:
        console.print(f"LLM profile: {cfg.profile} (default provider {cfg.default_provider})")
    script = rehearsal_data.load_transcript(rehearsal_data.DEFAULT_TRANSCRIPT)
    client = await connect(settings)
    workers = build_workers(client, TASK_QUEUE, "all")
    tasks = [asyncio.create_task(w.run()) for w in workers]
    began = time.monotonic()
    try:
        inp = InterviewInput(topic=DEMO_TOPIC, context=DEMO_CONTEXT, duration_seconds=DEMO_DURATION_SECONDS,
                             cycle_seconds=DEMO_CYCLE_SECONDS, interviewee_name=script.interviewee)
        handle = await start_interview(client, inp)
        console.print(f"Interview [bold]{handle.id}[/bold] started — Web UI: {settings.workflow_url(handle.id)}",
                      soft_wrap=True)
        console.print(f"Rehearsal: {script.interviewee}'s {len(script.answers)} answers replayed from "
                      f"{rehearsal_data.DEFAULT_TRANSCRIPT.name}; watch live with "
                      f"`colloquy interview watch {handle.id}`", soft_wrap=True)
        report = await rehearse(client, handle.id, TranscriptAnswers(script.answers),
                                RehearsalOptions(pace_seconds=DEMO_PACE_SECONDS,
                                                 fresh_question_timeout=3 * DEMO_CYCLE_SECONDS),
                                say=lambda m: console.print(f"  {m}", markup=False, highlight=False, soft_wrap=True))
        console.print(f"Session {status_text(report.colloquy_status, report.final_status, report.exit_reason)}: "
                      f"{report.summary()}; "
                      "writing the essay…", soft_wrap=True)
        try:
            result, essay, path = await asyncio.wait_for(fetch_essay(handle, wait=True), timeout=600)
        except InterviewClientError as exc:
            console.print(f"[red]no essay: {escape(str(exc))}[/red]", soft_wrap=True)
            return 1
        label = " \\[offline test double]" if offline else ""
        console.print(f"\n[bold]Essay{label}:[/bold] {escape(result.title or '(untitled)')}", soft_wrap=True)
        console.print(f"  path: {path}  ({len(essay)} characters)", soft_wrap=True, highlight=False)
        for name in ("analysis", "transcript", "notes", "event_log"):
            ref = getattr(result, name)
            if ref is not None:
                console.print(f"  {name}: {ref.uri.removeprefix('file://')}", soft_wrap=True, highlight=False)
        console.print(f"  usage: {result.usage.calls} LLM calls, {result.usage.input_tokens}+"
                      f"{result.usage.output_tokens} tokens, ${result.usage.cost_usd:.4f}"
                      + (" (offline: no cost)" if offline else ""))
        console.print(f"Web UI: {settings.workflow_url(handle.id)}", soft_wrap=True)
        console.print(f"Done in {time.monotonic() - began:.0f} s. Next: `colloquy interview essay {handle.id}`, "
                      f"`colloquy interview continue {handle.id}` (a 6-minute follow-up).", soft_wrap=True)
        return 0 if result.status == "COMPLETED" else 1
    finally:
        for w in workers:
            await w.shutdown()
        await asyncio.gather(*tasks, return_exceptions=True)
