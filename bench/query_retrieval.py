"""Query pipeline: retrieval + analysis over a year of daily notes, and parallel vs sequential sub-queries.

    python -m bench.query_retrieval [--days 7 30 90 180 365] [--latency 0.25] [--repeat 3]

A real dev server (127.0.0.1, in-memory, tuned transfer polling) and in-process workers run QueryWorkflow on the
offline provider over 365 daily notes (one file per day, written with StorageRepository). Every agent answer that
shapes the run is scripted here: the Planner's date range (the scope read), the Analyzer's verdict.

Part 1 — scope: for a window of N days the Retriever reads every entry in it (no pre-filtering, seed §7.1) and
the Analyzer's prompt holds them all. Printed per window: entries read, wall time of the whole query, wall of
the retrieval activity, Analyzer input tokens, tokens per entry, and each row's ratio to the 7-day row.

Part 2 — parallel vs sequential: a 3-part query planned INDEPENDENT (sub-queries analyzed concurrently) vs
DEPENDENT (one after another, each seeing the previous findings), with a fixed simulated model latency on
every call (`offline.set_latency`). Printed: both walls and their ratio (ideal: (N+k)/(1+k) for N sub-queries
and k other sequential calls).
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["COLLOQUY_PROFILE"] = "offline"
os.environ.pop("COLLOQUY_OFFLINE_LATENCY_MS", None)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import logging  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from datetime import UTC, date, datetime, timedelta  # noqa: E402
from pathlib import Path  # noqa: E402

import core.settings  # noqa: E402,F401
from core.server import start_ephemeral_dev_server  # noqa: E402

TODAY = date(2026, 1, 1)
LIFTS = ["bench 185x5", "squat 225x5x3", "deadlift 275x3", "easy run 5k in 28 minutes", "rest day, walked 40 min"]


def write_year(root: Path) -> None:
    from activities.query.storage import StorageRepository
    from models.query.parts import Entry

    repo = StorageRepository(root)
    for i in range(365):
        day = TODAY - timedelta(days=i)
        text = (f"{LIFTS[i % len(LIFTS)]}. Slept {5 + i % 4} hours, energy {'low' if i % 4 == 0 else 'ok'}. "
                f"Breakfast oats, {100 + i % 60}g protein over the day.")
        repo.save_entry(Entry(id="", date=day, timestamp=datetime(day.year, day.month, day.day, 7, 30, tzinfo=UTC),
                              raw_content=text, domain_data={}))


def _plan(query: str, start: date, end: date, strategy: str = "coupled", subs: int = 1) -> dict:
    return {"original_query": query, "query_type": "insight", "execution_strategy": strategy,
            "sub_queries": [{"id": i, "question": f"{query} (part {i})"} for i in range(1, subs + 1)],
            "execution_order": list(range(1, subs + 1)),
            "retrieval_instructions": [{"sub_query_id": i, "tool": "date_range", "start": start.isoformat(),
                                        "end": end.isoformat()} for i in range(1, subs + 1)],
            "next_action": "retrieve", "reasoning": "bench"}


def _script_rest(offline, analyses: int) -> None:  # noqa: ANN001
    ok = {"query_intent": "bench", "findings": [{"claim": "pattern", "evidence": ["x"]}], "verdict": "sufficient"}
    offline.script("route_input", {"input_type": "query", "confidence": 0.9, "selected_domains": ["strength"]})
    offline.script("analyze_evidence", *[ok] * analyses)
    offline.script("synthesize_answer", {"response": "answer", "evidence_cited": ["x"], "confidence": "high"})
    offline.script("evaluate_answer", {"overall_verdict": "pass", "dimensions": [
        {"dimension": d, "verdict": "pass"} for d in ("accuracy", "relevance", "safety", "completeness")]})
    offline.script("observe_context", {"should_update": False})


async def run_query(client, queue: str, notes: Path, chunk: int = 1000):  # noqa: ANN001, ANN201
    from models.query.workflow import QueryRequest
    from workflows.query.workflow import QueryWorkflow

    started = time.perf_counter()
    handle = await client.start_workflow(
        QueryWorkflow.run, QueryRequest(text="Why was my energy low?", app_id="fitness", notes_dir=str(notes),
                                        today=TODAY, max_entries=400, analysis_chunk_size=chunk),
        id=f"bench-query-{uuid.uuid4().hex[:6]}", task_queue=queue)
    result = await handle.result()
    wall = time.perf_counter() - started
    retrieve_s = 0.0
    from temporalio.api.enums.v1 import EventType

    scheduled: dict[int, str] = {}
    starts: dict[int, datetime] = {}
    for ev in (await handle.fetch_history()).events:
        if ev.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled[ev.event_id] = ev.activity_task_scheduled_event_attributes.activity_type.name
        elif ev.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            starts[ev.activity_task_started_event_attributes.scheduled_event_id] = ev.event_time.ToDatetime()
        elif ev.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            sid = ev.activity_task_completed_event_attributes.scheduled_event_id
            if scheduled.get(sid) == "retrieve_notes":
                retrieve_s += (ev.event_time.ToDatetime() - starts[sid]).total_seconds()
    return wall, retrieve_s, result


async def main(days: list[int], latency: float, repeat: int) -> None:
    from activities.llm import offline
    from workers.main import running_workers

    logging.getLogger().setLevel(logging.ERROR)
    tmp = Path(tempfile.mkdtemp(prefix="bench-query-"))
    os.environ["COLLOQUY_ARTIFACT_DIR"] = str(tmp / "artifacts")
    notes = tmp / "notes"
    t0 = time.perf_counter()
    write_year(notes)
    print(f"wrote 365 daily notes in {time.perf_counter() - t0:.2f}s under {notes}")
    env = await start_ephemeral_dev_server()
    async with contextlib.AsyncExitStack() as cleanup:  # on exit: workers, then the server, then the tmp dir
        cleanup.callback(shutil.rmtree, tmp, ignore_errors=True)
        cleanup.push_async_callback(env.shutdown)
        queue = await cleanup.enter_async_context(running_workers(env.client, f"bench-{uuid.uuid4().hex[:6]}"))
        # warm-up (imports, first workflow task)
        offline.reset()
        offline.script("plan_query", _plan("warm", TODAY - timedelta(days=6), TODAY))
        _script_rest(offline, 1)
        await run_query(env.client, queue, notes)

        print("\nPart 1 — scope read per query (median of", repeat, "runs, no model latency)")
        print(f"{'days':>5} {'entries':>8} {'wall s':>8} {'retrieve s':>10} {'analyzer tok in':>15} "
              f"{'tok/entry':>9} {'wall ×7d':>9} {'tok ×7d':>8}")
        base = None
        for n in days:
            walls, rets, toks, entries = [], [], [], 0
            for _ in range(repeat):
                offline.reset()
                offline.script("plan_query", _plan("Why was my energy low?", TODAY - timedelta(days=n - 1), TODAY))
                _script_rest(offline, 1)
                wall, ret, result = await run_query(env.client, queue, notes)
                walls.append(wall)
                rets.append(ret)
                toks.append(result.usage.by_agent["analyze_evidence"].input_tokens)
                entries = result.entries_read
            w, r, t = statistics.median(walls), statistics.median(rets), statistics.median(toks)
            base = base or (w, t)
            print(f"{n:>5} {entries:>8} {w:>8.3f} {r:>10.3f} {t:>15.0f} {t / max(entries, 1):>9.1f} "
                  f"{w / base[0]:>9.2f} {t / base[1]:>8.2f}")

        print(f"\nPart 2 — 3 sub-queries, {latency:.2f}s simulated latency per LLM call")
        strategy_walls: dict[str, float] = {}
        for strategy in ("independent", "dependent"):
            offline.reset()
            offline.set_latency(latency)
            offline.script("plan_query", _plan("Compare sleep, lifts and protein", TODAY - timedelta(days=29),
                                               TODAY, strategy=strategy, subs=3))
            _script_rest(offline, 3)
            wall, _, result = await run_query(env.client, queue, notes)
            strategy_walls[strategy] = wall
            print(f"{strategy:>12}: wall {wall:.3f}s, {result.usage.calls} LLM calls, "
                  f"{len(offline.calls('analyze_evidence'))} analyses")
        offline.set_latency(0)
        print(f"sequential ÷ parallel wall = {strategy_walls['dependent'] / strategy_walls['independent']:.2f} "
              f"(ideal (3+5)/(1+5) = {8 / 6:.2f}: router, planner, synthesizer, evaluator, observer stay serial)")

        print(f"\nPart 3 — a year (365 entries) in one Analyzer call vs chunks (divide and conquer), "
              f"{latency:.2f}s fixed latency per call")
        print(f"{'chunk':>6} {'analyzer calls':>14} {'max prompt tok':>14} {'total tok in':>12} {'wall s':>7}")
        for chunk in (1000, 100):
            offline.reset()
            offline.set_latency(latency)
            offline.script("plan_query", _plan("Why was my energy low?", TODAY - timedelta(days=364), TODAY))
            n_chunks = -(-365 // chunk)
            _script_rest(offline, 1 if n_chunks == 1 else n_chunks + 1)
            wall, _, result = await run_query(env.client, queue, notes, chunk=chunk)
            prompts = [sum(len(m["content"]) for m in c.messages) // 4 for c in offline.calls("analyze_evidence")]
            print(f"{chunk if chunk < 1000 else 'none':>6} {len(prompts):>14} {max(prompts):>14} "
                  f"{result.usage.by_agent['analyze_evidence'].input_tokens:>12} {wall:>7.3f}")
        offline.set_latency(0)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, nargs="+", default=[7, 30, 90, 180, 365])
    parser.add_argument("--latency", type=float, default=0.25)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.days, args.latency, args.repeat))
    sys.stdout.flush()
    os._exit(0)
