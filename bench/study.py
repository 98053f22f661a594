"""Study mode at scale: a study of N participants, each one a browser on `colloquy serve` (the link's consent
page, the interview room over HTTP: bench/study_http.py), on a dev server with one in-process worker pair. Prints
what became of them (completed / abandoned / lost, and finished interviews the study counted abandoned: must be 0),
whether the quota was met exactly, the time from the last interview's end to the findings, the analysis phase (for
100 vs 200 participants it should grow ~linearly), and the study workflow's history (runs, events and bytes per
run, continue-as-new count: bounded by continue-as-new).

Each participant: opens their link (`?lang=` one of four languages), ticks consent (the join form's POST starts
the interview: `open_link`), answers each question the room shows (two plan questions, then a short word to the
closing one) until the room says the interview ended, then opens their link again until it shows the read-back
page (the study has counted the interview completed). Every agent answers from the offline test double after
`--latency` seconds; the digest's theme labels are made participant-specific (as a real model's wording differs
from person to person) and the theme-merge agent maps them back to the plan's sections, so the reduce step does
ceil(N / theme_batch) merge calls, as it would with a model. `colloquy serve` runs as its own process (as
deployed); the dev server, the workers and the participants' browsers share this one.

    python -m bench.study [--participants 100,200] [--latency 0.2] [--concurrency 20] [--check-seconds 1] [--wait 300]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import itertools
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from temporalio.client import WorkflowQueryFailedError
from temporalio.service import RPCError

from bench.interview_common import artifacts_in_tmp, dev_server, quiet, workers
from bench.study_http import RELOAD_S

PERSONA_LINES = [
    ("We were told on-call was temporary and it never was.", "Paging people for noise is a management failure."),
    ("I volunteered because the pay bump covered my rent.", "Alert budgets fixed our rotation within a quarter."),
    ("Nobody volunteered so I took the pager to protect my team.", "We only fixed alerts after someone quit."),
]
LANGUAGES = ["en", "de", "fr", "es"]
T = TypeVar("T")
SERVE_TOKEN = "bench-" + secrets.token_urlsafe(24)


@dataclass
class Row:
    participants: int
    wall_s: float
    analysis_s: float
    to_findings_s: float           # the last interview's workflow closed -> the study's workflow closed
    room_lag_s: float              # most seconds a room said "ended" after its interview's workflow closed
    completed: int                 # the study's ledger
    abandoned: int
    lost: int                      # joined, but neither completed nor abandoned in the ledger (or never joined)
    finished_abandoned: int        # interviews that finished (room said ended, >= min answers) counted abandoned
    read_back: int                 # participants whose link then showed the read-back page
    try_again: int                 # "try again" answers met (503 pages, a refused answer), each tried again
    quota_exact: bool
    findings: int                  # themes in findings.json, read over HTTP
    history: History
    merge_calls: int
    closed_reason: str = ""
    exits: dict[str, int] = field(default_factory=dict)     # the rooms' exit reasons
    errors: list[str] = field(default_factory=list)

    def line(self) -> str:
        h = self.history
        return (f"| {self.participants} | {self.completed} | {self.abandoned} | {self.lost} | "
                f"{self.finished_abandoned} | {'yes' if self.quota_exact else 'NO'} | {self.findings} | "
                f"{self.wall_s:.0f} | {self.to_findings_s:.1f} | {self.analysis_s:.2f} | {self.merge_calls} | "
                f"{h.runs - 1} | {h.max_events} | {h.max_bytes / 1024:.0f} | {h.events} | {h.carried / 1024:.0f} | "
                f"{h.missing} |")


HEADER = ("| participants | completed | abandoned | lost | finished but counted abandoned | quota exact | themes "
          "| wall (s) | last end → findings (s) | analysis (s) | theme-merge calls | continue-as-new | max events/run "
          "| max KiB/run | events, all runs | last run's input KiB | look-ups answered missing |\n"
          "|---:|---:|---:|---:|---:|:---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def short_plan():  # noqa: ANN201
    from models.interview.plan import PlanSnapshot, QuestionSnapshot, SectionSnapshot

    return PlanSnapshot(topic="How teams run on-call", research_goal="What makes on-call bearable",
                        angle="practitioners", sections=[
                            SectionSnapshot(id="origins", title="Getting into on-call", questions=[
                                QuestionSnapshot(id="q-origin", text="How did you end up carrying the pager?")]),
                            SectionSnapshot(id="alerts", title="Alert fatigue", questions=[
                                QuestionSnapshot(id="q-alerts", text="What did you do about noisy alerts?")])])


_DIGESTS = itertools.count(1)


def _varied_digest(req):  # noqa: ANN001, ANN202
    from activities.study.digest import _offline_digest

    out = _offline_digest(req)
    tag = next(_DIGESTS)
    for theme in out["themes"]:
        theme["title"] = f"{theme['title']}: as participant {tag} put it"
    return out


def _merge_back(req):  # noqa: ANN001, ANN202
    return {"mapping": {t: t.split(": as participant")[0] for t in req.context["titles"]}}


@dataclass
class History:
    runs: int = 0
    max_events: int = 0            # most events in one run
    max_bytes: int = 0             # most bytes in one run
    events: int = 0                # events in all runs
    carried: int = 0               # bytes of the last run's input: the carried ledger
    missing: int = 0               # look-up answers "no such interview" (the window the ledger's race fix covers)


async def _history(client, study_id: str, first_run_id: str) -> History:  # noqa: ANN001
    """The study's history over all its runs (following continue-as-new)."""
    out = History()
    run_id: str | None = first_run_id
    while run_id:
        history = await client.get_workflow_handle(study_id, run_id=run_id).fetch_history()
        out.runs += 1
        out.max_events = max(out.max_events, len(history.events))
        out.max_bytes = max(out.max_bytes, sum(e.ByteSize() for e in history.events))
        out.events += len(history.events)
        out.carried = history.events[0].workflow_execution_started_event_attributes.input.ByteSize()
        out.missing += sum(p.data.count(b'"state":"missing"') for e in history.events
                           if e.HasField("activity_task_completed_event_attributes")
                           for p in e.activity_task_completed_event_attributes.result.payloads)
        last = history.events[-1]
        run_id = (last.workflow_execution_continued_as_new_event_attributes.new_execution_run_id
                  if last.HasField("workflow_execution_continued_as_new_event_attributes") else None)
    return out


async def _patiently(ask: Callable[[], Awaitable[T]], tries: int = 10) -> T:
    """A query of the finished study, asked again on failure (a loaded worker may fail a replay): the last error
    is raised."""
    for attempt in range(tries):
        try:
            return await ask()
        except (WorkflowQueryFailedError, RPCError) as exc:
            if attempt == tries - 1:
                raise
            print(f"  (the study's query failed, asked again: {str(exc)[:120]})", flush=True)
            await asyncio.sleep(2.0)
    raise AssertionError("unreachable")


async def _interview_ends(client, ids: set[str]) -> dict[str, float]:  # noqa: ANN001
    """When each interview's workflow closed (epoch seconds), from the server's visibility."""
    ends: dict[str, float] = {}
    async for w in client.list_workflows("WorkflowType = 'InterviewWorkflow'"):
        if w.id in ids and w.close_time is not None:
            ends[w.id] = w.close_time.timestamp()
    return ends


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.asynccontextmanager
async def serving(address: str) -> AsyncIterator[str]:
    """`colloquy serve` in its own process on a free port, reaching the dev server at `address` and this process's
    artifact store (COLLOQUY_ARTIFACT_DIR: the read-back page reads the transcript): its base URL."""
    import aiohttp

    port = _free_port()
    env = {**os.environ, "COLLOQUY_SERVE_TOKEN": SERVE_TOKEN, "COLLOQUY_ROOM_SECRET": secrets.token_hex(16),
           "COLLOQUY_LOG_LEVEL": "ERROR"}
    proc = subprocess.Popen([sys.executable, "-m", "client.cli", "serve", "--port", str(port), "--address", address],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(600):
                if proc.poll() is not None:
                    raise RuntimeError(f"colloquy serve stopped: {proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
                with contextlib.suppress(aiohttp.ClientError):
                    async with http.get(base + "/healthz") as r:
                        if r.status == 200:
                            break
                await asyncio.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


async def _invite(study, n: int) -> list[str]:  # noqa: ANN001
    """The researcher's `study invite`: n links (the study keeps only each token's SHA-256)."""
    from models.study.workflow import (
        MAX_INVITATIONS_PER_UPDATE,
        UPDATE_ADD_PARTICIPANTS,
        AddParticipants,
        Invitation,
    )

    tokens = [secrets.token_urlsafe(24) for _ in range(n)]
    for i in range(0, n, MAX_INVITATIONS_PER_UPDATE):
        await study.execute_update(UPDATE_ADD_PARTICIPANTS, AddParticipants(invitations=[
            Invitation(token_sha256=hashlib.sha256(t.encode()).hexdigest()) for t in tokens[i:i + MAX_INVITATIONS_PER_UPDATE]]))
    return tokens


def _answers(n: int) -> list[str]:
    story, opinion = PERSONA_LINES[n % len(PERSONA_LINES)]
    return [f"{story} (participant {n})", opinion]


async def one(n: int, latency: float, concurrency: int, check_seconds: float, wait_s: float) -> Row:
    import aiohttp
    from temporalio.client import WorkflowExecutionStatus

    from activities.llm import offline
    from bench.study_http import Browser, Visit, participant
    from models.study.workflow import (
        QUERY_PARTICIPANTS,
        QUERY_PROGRESS,
        UPDATE_CLOSE,
        CloseStudy,
        ParticipantView,
        StudyInput,
        StudyProgress,
        StudyResult,
    )

    offline.reset()
    offline.set_latency(latency)
    offline.script("study_digest", *[_varied_digest] * n)
    offline.script("study_theme_merge", *[_merge_back] * n)
    inp = StudyInput(topic="How teams run on-call", plan=short_plan(), quota=n, interview_seconds=300,
                     cycle_seconds=1.0, check_seconds=check_seconds)
    async with dev_server() as env, workers(env.client) as queue, serving(env.client.service_client.config.target_host) as base:
        client = env.client
        started = time.monotonic()
        handle = await client.start_workflow("StudyWorkflow", inp, id=f"study-bench-{n}-{uuid.uuid4().hex[:4]}",
                                             task_queue=queue, result_type=StudyResult)
        tokens = await _invite(handle, n)
        gate = asyncio.Semaphore(concurrency)
        done = 0

        async def browse(i: int) -> Visit:
            nonlocal done
            async with gate:
                visit = await participant(browser, handle.id, tokens[i], Visit(i, LANGUAGES[i % len(LANGUAGES)]),
                                          _answers(i), inp.interview_seconds + 60.0, check_seconds)
            done += 1
            if done % max(1, n // 20) == 0:
                print(f"    {done}/{n} participants through ({time.monotonic() - started:.0f}s)", flush=True)
            return visit

        limits = aiohttp.TCPConnector(limit=4 * concurrency)
        async with aiohttp.ClientSession(connector=limits, timeout=aiohttp.ClientTimeout(total=120)) as http:
            browser = Browser(http, base)
            visits = await asyncio.gather(*(browse(i) for i in range(n)))
            closed_by_bench = ""
            deadline = time.monotonic() + wait_s
            while (await handle.describe()).status == WorkflowExecutionStatus.RUNNING and time.monotonic() < deadline:
                await asyncio.sleep(1.0)
            if (await handle.describe()).status == WorkflowExecutionStatus.RUNNING:
                # the quota was not met (a participant lost or miscounted): the researcher closes it, to see the rest
                closed_by_bench = f"quota not met {wait_s:.0f}s after the last participant: closed by the bench"
                progress = await handle.query(QUERY_PROGRESS, result_type=StudyProgress)
                print(f"  {closed_by_bench}; the study's progress then: {progress.model_dump_json()}", flush=True)
                await asyncio.wait_for(handle.execute_update(UPDATE_CLOSE, CloseStudy(reason=closed_by_bench)), 300)
            result = await asyncio.wait_for(handle.result(), 1800)
            closed_at = (await handle.describe()).close_time
            ends = await _interview_ends(client, {v.interview_id for v in visits if v.interview_id})
            to_findings = closed_at.timestamp() - max(ends.values()) if closed_at and ends else float("nan")
            room_lag = max((v.ended_at - ends[v.interview_id] for v in visits if v.ended and v.interview_id in ends),
                           default=0.0)
            wall = time.monotonic() - started
            ledger = await _patiently(lambda: handle.query(QUERY_PARTICIPANTS, result_type=list[ParticipantView]))
            async with http.get(f"{base}/api/studies/{handle.id}/findings.json",
                                headers={"Authorization": f"Bearer {SERVE_TOKEN}"}) as r:
                findings = json.loads(await r.text()) if r.status == 200 else {}
        hist = await _history(client, handle.id, handle.first_execution_run_id or "")
    by_interview = {p.interview_id: p for p in ledger if p.interview_id}
    statuses = [by_interview[v.interview_id].status if v.interview_id in by_interview else "lost" for v in visits]
    finished_abandoned = sum(1 for v, s in zip(visits, statuses, strict=True)
                             if s == "abandoned" and v.ended and v.answers >= inp.min_answers)
    errors = [f"participant {v.number} ({s}): {'; '.join(v.errors)}" for v, s in zip(visits, statuses, strict=True)
              if v.errors]
    completed = sum(1 for p in ledger if p.status == "completed")
    return Row(n, wall, result.analysis_seconds, to_findings, room_lag, completed, statuses.count("abandoned"),
               sum(1 for s in statuses if s not in ("completed", "abandoned")), finished_abandoned,
               sum(v.read_back for v in visits), sum(v.try_again for v in visits),
               completed == n == result.completed and not closed_by_bench,
               len(findings.get("themes", [])), hist, len(offline.calls("study_theme_merge")), closed_by_bench or result.closed_reason,
               dict(Counter(str(v.exit_reason) for v in visits)), errors)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--participants", default="100,200")
    parser.add_argument("--latency", type=float, default=0.2, help="Simulated model latency per call (seconds).")
    parser.add_argument("--concurrency", type=int, default=20, help="Participants in the study at once.")
    parser.add_argument("--check-seconds", type=float, default=1.0, help="How often the study looks up its "
                        "running interviews (StudyInput.check_seconds).")
    parser.add_argument("--wait", type=float, default=300.0, help="Seconds to wait for the study to end after "
                        "the last participant; then the bench closes it (and says so).")
    args = parser.parse_args()
    quiet()
    rows = []
    async with artifacts_in_tmp():
        for n in (int(x) for x in args.participants.split(",")):
            rows.append(await one(n, args.latency, args.concurrency, args.check_seconds, args.wait))
            print(f"  {n} participants done in {rows[-1].wall_s:.1f}s ({rows[-1].closed_reason}); load average "
                  f"{os.getloadavg()[0]:.1f}", flush=True)
    print(f"\nmodel latency {args.latency}s per call, {args.concurrency} participants at once over HTTP (colloquy "
          f"serve in its own process), two answers and a closing word each, study look-ups every "
          f"{args.check_seconds}s; load average {' / '.join(f'{x:.1f}' for x in os.getloadavg())} on "
          f"{os.cpu_count()} CPUs")
    print(HEADER)
    for row in rows:
        print(row.line())
    for row in rows:
        print(f"\n{row.participants}: the rooms said 'ended' at most {row.room_lag_s:.1f}s after the interview "
              f"closed; read-back page shown to {row.read_back} ({row.try_again} 'try again' answers "
              f"met on the way, each retried after {RELOAD_S:.0f}s); closed: {row.closed_reason}; "
              f"the rooms' exit reasons: {row.exits}")
        for line in row.errors[:20]:
            print(f"  {line}")
        if len(row.errors) > 20:
            print(f"  … and {len(row.errors) - 20} more")


if __name__ == "__main__":
    asyncio.run(main())
    os._exit(0)
