"""Study mode at scale: a study of N rehearsed participants (short interviews, a simulated model latency), end to
end on a dev server with one in-process worker pair: wall time, the analysis phase for 100 vs 200 participants
(should grow ~linearly), and the study workflow's history (runs, events and bytes per run: bounded by
continue-as-new).

Each participant: the link is opened (`open_link` starts the child InterviewWorkflow), two persona-driven answers
(SimulatedAnswerWorkflow, `rehearse`), the closing remark. Every agent answers from the offline test double after
`--latency` seconds; the digest's theme labels are made participant-specific (as a real model's wording differs
from person to person) and the theme-merge agent maps them back to the plan's sections, so the reduce step does
ceil(N / theme_batch) merge calls, as it would with a model.

    python -m bench.study [--participants 100,200] [--latency 0.2] [--concurrency 20]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import os
import secrets
import time
import uuid
from dataclasses import dataclass

from bench.interview_common import artifacts_in_tmp, dev_server, quiet, workers

PERSONA_LINES = [
    ("We were told on-call was temporary and it never was.", "Paging people for noise is a management failure."),
    ("I volunteered because the pay bump covered my rent.", "Alert budgets fixed our rotation within a quarter."),
    ("Nobody volunteered so I took the pager to protect my team.", "We only fixed alerts after someone quit."),
]
LANGUAGES = ["en", "de", "fr", "es"]


@dataclass
class Row:
    participants: int
    wall_s: float
    analysis_s: float
    completed: int
    runs: int
    max_events: int
    max_bytes: int
    total_events: int
    merge_calls: int
    carried_bytes: int

    def line(self) -> str:
        return (f"| {self.participants} | {self.completed} | {self.wall_s:.1f} | {self.analysis_s:.2f} | "
                f"{self.merge_calls} | {self.runs} | {self.max_events} | {self.max_bytes / 1024:.0f} | "
                f"{self.total_events} | {self.carried_bytes / 1024:.0f} |")


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


async def _participant(client, queue: str, study, n: int, gate: asyncio.Semaphore) -> None:  # noqa: ANN001
    from activities.rehearsal.interviewee import Persona
    from client.interview.cli import PersonaAnswers, RehearsalOptions, rehearse
    from models.study.workflow import (
        UPDATE_ADD_PARTICIPANTS,
        UPDATE_OPEN_LINK,
        AddParticipants,
        Invitation,
        OpenedLink,
        OpenLink,
    )
    from rules.study import consent

    story, opinion = PERSONA_LINES[n % len(PERSONA_LINES)]
    persona = Persona(name=f"Participant {n}", stories=[story], opinions=[opinion])
    async with gate:
        token = hashlib.sha256(secrets.token_bytes(16)).hexdigest()
        await study.execute_update(UPDATE_ADD_PARTICIPANTS, AddParticipants(invitations=[Invitation(
            token_sha256=token)]))
        language = LANGUAGES[n % len(LANGUAGES)]
        opened = await study.execute_update(UPDATE_OPEN_LINK, OpenLink(      # the built-in consent text, ticked
            token_sha256=token, language=language, consent=consent.agreed(consent.BUILT_IN, language)),
            result_type=OpenedLink)
        await rehearse(client, opened.interview_id, PersonaAnswers(client, opened.interview_id, "on-call", persona,
                                                                   task_queue=queue, max_turns=2),
                       RehearsalOptions(fresh_question_timeout=60, poll_seconds=0.2, start_timeout=120))


async def _history(client, study_id: str, first_run_id: str) -> tuple[int, int, int, int, int]:  # noqa: ANN001
    """(runs, most events in one run, most bytes in one run, events in all runs, bytes of the last run's input:
    the carried ledger)."""
    runs, max_events, max_bytes, total, carried = 0, 0, 0, 0, 0
    run_id: str | None = first_run_id
    while run_id:
        history = await client.get_workflow_handle(study_id, run_id=run_id).fetch_history()
        runs += 1
        max_events = max(max_events, len(history.events))
        max_bytes = max(max_bytes, sum(e.ByteSize() for e in history.events))
        total += len(history.events)
        carried = history.events[0].workflow_execution_started_event_attributes.input.ByteSize()
        last = history.events[-1]
        run_id = (last.workflow_execution_continued_as_new_event_attributes.new_execution_run_id
                  if last.HasField("workflow_execution_continued_as_new_event_attributes") else None)
    return runs, max_events, max_bytes, total, carried


async def one(n: int, latency: float, concurrency: int) -> Row:
    from activities.llm import offline
    from models.study.workflow import StudyInput, StudyResult

    offline.reset()
    offline.set_latency(latency)
    offline.script("study_digest", *[_varied_digest] * n)
    offline.script("study_theme_merge", *[_merge_back] * n)
    async with dev_server() as env, workers(env.client) as queue:
        client = env.client
        started = time.monotonic()
        handle = await client.start_workflow(
            "StudyWorkflow", StudyInput(topic="How teams run on-call", plan=short_plan(), quota=n,
                                        interview_seconds=600, cycle_seconds=1.0, check_seconds=1.0),
            id=f"study-bench-{n}-{uuid.uuid4().hex[:4]}", task_queue=queue, result_type=StudyResult)
        gate = asyncio.Semaphore(concurrency)
        await asyncio.gather(*(_participant(client, queue, handle, i, gate) for i in range(n)))
        result = await handle.result()
        wall = time.monotonic() - started
        runs, max_events, max_bytes, total, carried = await _history(client, handle.id,
                                                                     handle.first_execution_run_id or "")
    merges = len(offline.calls("study_theme_merge"))
    return Row(n, wall, result.analysis_seconds, result.completed, runs, max_events, max_bytes, total, merges,
               carried)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--participants", default="100,200")
    parser.add_argument("--latency", type=float, default=0.2, help="Simulated model latency per call (seconds).")
    parser.add_argument("--concurrency", type=int, default=20, help="Interviews running at once.")
    args = parser.parse_args()
    quiet()
    rows = []
    async with artifacts_in_tmp():
        for n in (int(x) for x in args.participants.split(",")):
            rows.append(await one(n, args.latency, args.concurrency))
            print(f"  {n} participants done in {rows[-1].wall_s:.1f}s", flush=True)
    print(f"\nmodel latency {args.latency}s per call, {args.concurrency} interviews at once, 2 answers each; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("| participants | completed | wall (s) | analysis (s) | theme-merge calls | study runs | max events/run "
          "| max KiB/run | events, all runs | last run's input KiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(row.line())


if __name__ == "__main__":
    asyncio.run(main())
    os._exit(0)
