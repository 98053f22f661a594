"""The fault drill's driver, run on its own host of the lab (tests/e2e/drill/test_faults.py starts it there):

    ip netns exec <lab>-driver python -m tests.e2e.drill.driver LAB.json TMP REPORT.json [default|slow]

It starts the system on its hosts (tests/e2e/drill/hosts.py), then keeps live interviews talking (each answer sent
through serve A or B in turn, and sent again through the other replica when one does not answer, as the room page
does) and a one-participant study; then, in turn, cuts and heals each host's link and kills and restarts each
process. Each phase starts a writing run and a notes import just before its fault, so the fault meets them mid-run.
After each restore it measures the time to recover: until an answer goes through each replica and the essay of a
finished interview opens through each (serve A reads the object store itself, serve B through the worker).
At the end every run must complete; each answer, draft and note must be there once. The report (JSON) has, per
phase: the runs live during it, completed, lost, duplicated, the answers sent, lost and duplicated, the recovery.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import sys
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from temporalio.client import Client, WorkflowHandle
from temporalio.service import RPCError

from client.interview.library import start_interview
from client.web.interview.sessions import room_path
from core.converter import colloquy_data_converter
from models.interview.workflow import InterviewInput, InterviewResult
from models.query.workflow import IMPORT_WORKFLOW_TYPE, ImportRequest, ImportResult
from models.study.workflow import UPDATE_OPEN_LINK, OpenedLink, StudyResult
from models.writing.workflow import WORKFLOW_TYPE as WRITING
from models.writing.workflow import WritingInput, WritingResult
from tests.e2e.crash.helpers import completed_activities, started_activity, wait_for
from tests.e2e.drill.hosts import HOSTS, QUEUE, ROOM_SECRET, TOKEN, System
from tests.netns import Lab
from tests.workflows.interview.helpers import adaptive_plan, control
from tests.workflows.study.helpers import invite, opening, start_study
from tests.workflows.writing.conftest import STORY

FAULT_HOSTS = ["temporal", "worker", "serve-a", "serve-b", "s3"]
PAGE = {"X-Colloquy-CSRF": "page"}
BEARER = {"Authorization": f"Bearer {TOKEN}"}
ATTEMPT_S = 8.0          # one try of one answer; then the page sends it again through the other replica
ANSWER_DEADLINE_S = 240  # an answer not accepted by then counts as refused
NOTES_PER_IMPORT = 6
PROBE_GIVE_UP_S = 240    # a fault not recovered from by then is reported as such (and the drill goes on)


#: The driver's waits for a result that the connection to the server dropped (and that it asked again), by error.
RESULT_WAITS_RETRIED: collections.Counter[str] = collections.Counter()


async def wait_result(handle: WorkflowHandle, timeout: float = 600) -> Any:
    """The run's result, waited for as long as it takes: the driver's own wait on the server is asked again when
    the server restarts (a restart drops the long poll: that says nothing about the run); counted in the report."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return await asyncio.wait_for(handle.result(), max(1.0, deadline - time.monotonic()))
        except RPCError as exc:
            RESULT_WAITS_RETRIED[str(exc)[:120]] += 1
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(1.0)


@dataclass
class Profile:
    down_s: float          # how long each link stays cut and each process stays dead
    interviews: int        # live interviews (besides the study's participant)
    answer_every_s: float  # per interview
    settle_s: float        # after each recovery, before the next fault


PROFILES = {"default": Profile(down_s=5, interviews=2, answer_every_s=1.0, settle_s=1.0),
            "slow": Profile(down_s=30, interviews=4, answer_every_s=0.5, settle_s=5.0)}


@dataclass
class Run:
    kind: str
    wid: str
    phase: int
    started: float
    finished: float | None = None
    completed: bool = False
    duplicated: int = 0
    detail: str = ""


@dataclass
class Phase:
    fault: str
    start: float
    fault_at: float = 0.0
    restored_at: float = 0.0
    recovered_at: float = 0.0
    probes: dict[str, float] = field(default_factory=dict)
    unrecovered: list[str] = field(default_factory=list)
    up_s: float = 0.0    # a killed process: from its restart until it serves (listens; a worker polls)

    @property
    def recovery_s(self) -> float:
        return self.recovered_at - self.restored_at


class Replicas:
    """The two serve replicas as a room page and a researcher see them."""

    def __init__(self, http: aiohttp.ClientSession, bases: list[str]) -> None:
        self.http, self.bases = http, bases

    async def post_once(self, base: str, wid: str, entry_id: str, text: str) -> int:
        url = base + room_path(ROOM_SECRET.encode(), wid) + "/entry"
        try:
            async with self.http.post(url, headers=PAGE, json={"entry_id": entry_id, "text": text},
                                      timeout=aiohttp.ClientTimeout(total=ATTEMPT_S)) as r:
                await r.read()
                return r.status
        except (aiohttp.ClientError, OSError, TimeoutError):
            return 0

    async def essay(self, base: str, wid: str) -> tuple[int, str]:
        try:
            async with self.http.get(f"{base}/api/interviews/{wid}/essay", headers=BEARER,
                                     timeout=aiohttp.ClientTimeout(total=ATTEMPT_S)) as r:
                return r.status, await r.text()
        except (aiohttp.ClientError, OSError, TimeoutError):
            return 0, ""

    async def live(self, wid: str) -> None:
        async def ready() -> bool:
            try:
                async with self.http.get(self.bases[0] + room_path(ROOM_SECRET.encode(), wid) + "/state") as r:
                    return r.status == 200 and (await r.json()).get("status") == "IN_PROGRESS"
            except (aiohttp.ClientError, OSError, TimeoutError):
                return False
        await wait_for(ready, 60, f"{wid} live")


@dataclass
class Talker:
    """One interviewee: an answer every so often, each sent until a replica accepts it (the other one next)."""

    replicas: Replicas
    wid: str
    every_s: float
    sent: dict[str, float] = field(default_factory=dict)       # entry id -> when first sent
    accepted: set[str] = field(default_factory=set)
    refused: list[str] = field(default_factory=list)

    async def answer(self, entry_id: str, first: int = 0) -> None:
        self.sent[entry_id] = time.monotonic()
        deadline = time.monotonic() + ANSWER_DEADLINE_S
        tries = 0
        while time.monotonic() < deadline:
            base = self.replicas.bases[(first + tries) % len(self.replicas.bases)]
            status = await self.replicas.post_once(base, self.wid, entry_id, f"My answer {entry_id}.")
            if status == 200:
                self.accepted.add(entry_id)
                return
            if 400 <= status < 500 and status != 429:
                break
            tries += 1
            await asyncio.sleep(0.3)
        self.refused.append(entry_id)

    async def run(self, stop: asyncio.Event) -> None:
        n = 0
        while not stop.is_set():
            await self.answer(f"d{n}", first=n)
            n += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.every_s)


class Drill:
    def __init__(self, lab: Lab, tmp: Path, profile: Profile) -> None:
        self.lab, self.tmp, self.profile = lab, tmp, profile
        self.system = System(lab, tmp)
        self.runs: list[Run] = []
        self.checks: list[asyncio.Task[None]] = []
        self.phases: list[Phase] = []
        self.talkers: list[Talker] = []
        self.client: Client
        self.replicas: Replicas
        self.essay = ("", "")   # (interview id, text) of a finished interview: the object store's probe

    # ---------------------------------------------------------------------------------------- runs
    def track(self, run: Run, check: Any) -> None:
        async def checked() -> None:
            try:
                await check
            except Exception as exc:  # noqa: BLE001 — a run that does not complete is lost: say why
                run.detail = f"{type(exc).__name__}: {exc}"[:300]
            run.finished = time.monotonic()
        self.runs.append(run)
        self.checks.append(asyncio.create_task(checked()))

    async def writing(self, phase: int) -> WorkflowHandle:
        wid = f"writing-drill-{phase}-{uuid.uuid4().hex[:6]}"
        handle = await self.client.start_workflow(
            WRITING, WritingInput(story_text=STORY, story_name=f"drill-{phase}", models=["m-a", "m-b"]),
            id=wid, task_queue=QUEUE, result_type=WritingResult)
        run = Run("writing", wid, phase, time.monotonic())

        async def check() -> None:
            result = await wait_result(handle)
            run.completed = result.status == "complete" and result.final_post is not None
            run.duplicated = max(0, await completed_activities(handle, "writing_draft") - 2)
            run.detail = "" if run.completed else f"status {result.status}"
        self.track(run, check())
        return handle

    async def notes_import(self, phase: int) -> None:
        folder = self.system.journal / f"phase-{phase:02d}"
        folder.mkdir()
        markers = [f"drill note {phase}-{i}" for i in range(NOTES_PER_IMPORT)]
        for i, marker in enumerate(markers):
            (folder / f"2024-{phase % 12 + 1:02d}-{i + 1:02d}.md").write_text(f"Bench 100x5. {marker}.\n")
        wid = f"notes-import-drill-{phase}-{uuid.uuid4().hex[:6]}"
        handle = await self.client.start_workflow(
            IMPORT_WORKFLOW_TYPE, ImportRequest(directory=f"drill/{folder.name}", app_id="fitness", batch_size=2),
            id=wid, task_queue=QUEUE, result_type=ImportResult)
        run = Run("import", wid, phase, time.monotonic())

        async def check() -> None:
            result = await wait_result(handle)
            raw = "".join(p.read_text() for p in (self.tmp / "notes").rglob("*.md"))
            counts = [raw.count(m + ".") for m in markers]
            run.completed = result.imported == NOTES_PER_IMPORT and result.new == NOTES_PER_IMPORT and all(counts)
            run.duplicated = sum(c - 1 for c in counts if c > 1)
            run.detail = "" if run.completed else f"imported {result.imported}, new {result.new}, counts {counts}"
        self.track(run, check())

    async def interview(self, wid: str) -> WorkflowHandle:
        return await start_interview(self.client, InterviewInput(
            topic="Running on-call for a payments team", plan=adaptive_plan(), duration_seconds=3600,
            cycle_seconds=1.0), wid, QUEUE)

    def check_interview(self, run: Run, handle: WorkflowHandle, talker: Talker | None, essay: bool = True) -> Any:
        async def check() -> None:
            from activities.artifact_store import store
            await control(handle, "end")
            result: InterviewResult = await wait_result(handle)
            assert result.transcript is not None, "no transcript saved"
            entries = json.loads(await asyncio.to_thread(store().get, result.transcript))
            ids = collections.Counter(e["entry_id"] for e in entries if e["speaker"] == "interviewee")
            run.duplicated = sum(c - 1 for c in ids.values() if c > 1)
            lost = sorted(a for a in (talker.accepted if talker else set()) if f"room-a-{a}" not in ids)
            refused = talker.refused if talker else []
            run.completed = (result.status == "COMPLETED" and (result.essay is not None or not essay) and not lost
                             and not refused)
            run.detail = "" if run.completed else f"status {result.status}, lost {lost[:5]}, refused {refused[:5]}"
            if talker is not None:
                talker.lost = lost  # type: ignore[attr-defined]
                talker.counts = ids  # type: ignore[attr-defined]
        return check()

    # ---------------------------------------------------------------------------------------- faults
    async def probe(self, phase: Phase) -> None:
        """Until an answer goes through each replica and the finished interview's essay opens through each."""
        wid, text = self.essay
        probe_wid = self.talkers[0].wid
        pending = {f"answer via {h}" for h in ("serve-a", "serve-b")} | {f"essay via {h}" for h in ("serve-a", "serve-b")}
        bases = dict(zip(("serve-a", "serve-b"), self.replicas.bases, strict=True))
        talker = self.talkers[0]
        while pending and time.monotonic() - phase.restored_at < PROBE_GIVE_UP_S:
            async def one(name: str) -> None:
                kind, host = name.split(" via ")
                if kind == "answer":
                    entry_id = f"probe-{len(self.phases)}-{host}"
                    talker.sent.setdefault(entry_id, time.monotonic())
                    ok = await self.replicas.post_once(bases[host], probe_wid, entry_id, "A probe answer.") == 200
                    if ok:
                        talker.accepted.add(entry_id)
                else:
                    status, body = await self.replicas.essay(bases[host], wid)
                    ok = status == 200 and body == text
                if ok:
                    pending.discard(name)
                    phase.probes[name] = time.monotonic() - phase.restored_at
            await asyncio.gather(*(one(n) for n in sorted(pending)))
            if pending:
                await asyncio.sleep(0.25)
        phase.recovered_at = time.monotonic()
        phase.unrecovered = sorted(pending)

    async def fault(self, kind: str, host: str) -> None:
        index = len(self.phases)
        phase = Phase(f"{kind} {host}", time.monotonic())
        self.phases.append(phase)
        writing = await self.writing(index)
        await self.notes_import(index)
        with contextlib.suppress(AssertionError):   # the fault meets the drafts mid-call
            await wait_for(lambda: started_activity(writing, "writing_draft"), 20, "drafts started")
        phase.fault_at = time.monotonic()
        if kind == "cut":
            self.lab.cut(host)
        else:
            await self.system.kill(host)
        await asyncio.sleep(self.profile.down_s)
        phase.restored_at = time.monotonic()
        if kind == "cut":
            self.lab.heal(host)
            phase.up_s = 0.0
            await self.probe(phase)
        else:   # probed from the restart on: what does not need the restarted process answers meanwhile
            async def restart() -> None:
                await self.system.restart(host, self.client)
                phase.up_s = time.monotonic() - phase.restored_at
            restarting = asyncio.create_task(restart())
            await self.probe(phase)
            await restarting
        print(f"[drill] {phase.fault}: recovered in {phase.recovery_s:.1f} s {phase.probes}"
              + (f", NOT: {phase.unrecovered}" if phase.unrecovered else ""), flush=True)
        await asyncio.sleep(self.profile.settle_s)

    # ---------------------------------------------------------------------------------------- the drill
    async def run(self) -> dict[str, Any]:
        started = time.monotonic()
        await self.system.start()
        os.environ.update(self.system.s3_env())   # the driver reads the saved transcripts from the object store
        self.client = await Client.connect(self.system.address, data_converter=colloquy_data_converter)
        async with aiohttp.ClientSession() as http:
            self.replicas = Replicas(http, [s.base for s in self.system.serves.values()])
            await self.warm_up()
            stop = asyncio.Event()
            handles = []
            for i in range(self.profile.interviews):
                wid = f"interview-drill-{i}-{uuid.uuid4().hex[:6]}"
                handles.append((await self.interview(wid), Run("interview", wid, 0, time.monotonic())))
            study, participant = await self.study()
            talking = []
            for handle, _ in [*handles, participant]:
                await self.replicas.live(handle.id)
                talker = Talker(self.replicas, handle.id, self.profile.answer_every_s)
                self.talkers.append(talker)
                talking.append(asyncio.create_task(talker.run(stop)))
            ready = time.monotonic()
            for kind in ("cut", "kill"):
                for host in FAULT_HOSTS:
                    await self.fault(kind, host)
            stop.set()
            await asyncio.gather(*talking)
            for (handle, run), talker in zip([*handles, participant], self.talkers, strict=True):
                # (a study's interview writes no essay of its own: the study's report takes it in)
                self.track(run, self.check_interview(run, handle, talker, essay=run.wid != participant[1].wid))
            self.track(*study)
            await asyncio.gather(*self.checks)
        return self.report(started, ready)

    async def warm_up(self) -> None:
        """A finished interview whose essay the probes open (through the object store)."""
        wid = f"interview-drill-warm-{uuid.uuid4().hex[:6]}"
        handle = await self.interview(wid)
        await self.replicas.live(wid)
        talker = Talker(self.replicas, wid, 0)
        for n in range(2):
            await talker.answer(f"w{n}", first=n)
        run = Run("interview", wid, 0, time.monotonic())
        self.track(run, self.check_interview(run, handle, talker))
        await self.checks[-1]
        assert run.completed, f"the warm-up interview did not complete: {run.detail}"
        status, text = await self.replicas.essay(self.replicas.bases[0], wid)
        assert status == 200 and text, (status, text[:300])
        self.essay = (wid, text)

    async def study(self) -> tuple[tuple[Run, Any], tuple[WorkflowHandle, Run]]:
        sid = f"study-drill-{uuid.uuid4().hex[:6]}"
        handle = await start_study(self.client, QUEUE, sid, quota=1, interview_seconds=3600, cycle_seconds=1,
                                   languages=["en"])
        [(_, link)] = await invite(handle, 1)
        import hashlib
        opened = await handle.execute_update(UPDATE_OPEN_LINK, opening(hashlib.sha256(link.encode()).hexdigest(), "en"),
                                             result_type=OpenedLink)
        run = Run("study", sid, 0, time.monotonic())

        async def check() -> None:
            result: StudyResult = await wait_result(handle)
            run.completed = result.outputs is not None and result.completed == 1
            run.detail = "" if run.completed else f"status {result.status}, completed {result.completed}"
        participant = self.client.get_workflow_handle(opened.interview_id, result_type=InterviewResult)
        return (run, check()), (participant, Run("interview", opened.interview_id, 0, time.monotonic()))

    def report(self, started: float, ready: float) -> dict[str, Any]:
        rows = []
        for i, phase in enumerate(self.phases):
            end = self.phases[i + 1].start if i + 1 < len(self.phases) else float("inf")
            live = [r for r in self.runs if r.started < phase.recovered_at and (r.finished or end) > phase.fault_at]
            sent = [(t, a) for t in self.talkers for a, at in t.sent.items() if phase.start <= at < end]
            rows.append({
                "fault": phase.fault, "down_s": round(phase.restored_at - phase.fault_at, 1),
                "up_s": round(phase.up_s, 1), "recovery_s": round(phase.recovery_s, 1),
                "probes_s": {k: round(v, 1) for k, v in sorted(phase.probes.items())},
                "unrecovered": phase.unrecovered,
                "runs": len(live), "completed": sum(r.completed for r in live),
                "lost": sum(not r.completed for r in live), "duplicated": sum(r.duplicated for r in live),
                "answers": len(sent),
                "answers_lost": sum(a in getattr(t, "lost", []) or a in t.refused for t, a in sent),
                "answers_duplicated": sum(getattr(t, "counts", {}).get(f"room-a-{a}", 1) - 1 for t, a in sent)})
        return {"phases": rows, "runs": [asdict(r) for r in self.runs],
                "setup_s": round(ready - started, 1), "wall_s": round(time.monotonic() - started, 1),
                "result_waits_retried": dict(RESULT_WAITS_RETRIED)}


async def main(lab_file: str, tmp: str, report_file: str, profile: str) -> None:
    lab = Lab.from_json(Path(lab_file).read_text())
    drill = Drill(lab, Path(tmp), PROFILES[profile])
    try:
        report = await drill.run()
    finally:
        with contextlib.suppress(Exception):
            for host in HOSTS:
                lab.heal(host)
        await drill.system.stop()
    Path(report_file).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
    sys.stdout.flush()
    os._exit(0)
