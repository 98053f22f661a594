"""Client-side overhead of `colloquy notes ask` (the query pipeline's CLI), per ask. Budget: 1.5 s.

    python -m bench.notes_overhead [--runs 3] [--imports-only]

The issue: each `ask` took 4-10 s, about 5 s of it importing the workflow module into the CLI (the same query over
HTTP: 0.87 s). The CLI now starts QueryWorkflow by its type name and never imports workflows/.

Part 1 — imports (always): fresh interpreters import what `ask` needs (python start + client.cli + the ask path),
`--runs` times; and, for comparison, the same plus `workflows.query.workflow` (what the CLI imported before).
Part 2 — end to end (unless --imports-only): a dev server (127.0.0.1, in memory) and in-process workers on the
offline provider; the real CLI (`python -m client.cli notes ask …`) runs in a subprocess `--runs` times. Client-side
overhead = the CLI's wall time minus the workflow's own run time (its start to close, from the server).
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["COLLOQUY_PROFILE"] = "offline"

import argparse  # noqa: E402
import asyncio  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BUDGET_S = 1.5
ASK_IMPORTS = ("from client.cli import app; from client.query import cli as notes; from core.temporal import connect; "
               "from models.query.workflow import QueryRequest, QueryResult, PendingClarification; import rich.status")
OLD_IMPORTS = ASK_IMPORTS + "; import workflows.query.workflow"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["COLUMNS"] = "500"
    return env


def _timed(code: str) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(), check=True, capture_output=True)
    return time.perf_counter() - t


def imports(runs: int) -> float:
    now = [_timed(ASK_IMPORTS) for _ in range(runs)]
    old = [_timed(OLD_IMPORTS) for _ in range(runs)]
    print(f"imports for `ask` (python start included), median of {runs}: {statistics.median(now):.2f} s "
          f"(runs: {', '.join(f'{x:.2f}' for x in now)})")
    print(f"  with workflows.query.workflow as the CLI imported it before:  {statistics.median(old):.2f} s")
    return statistics.median(now)


def _seed_notes(root: Path) -> None:
    """A week of training notes in the store (the same kind the query tests use)."""
    from datetime import UTC, date, datetime

    from activities.query.storage import StorageRepository
    from models.query.parts import Entry

    repo = StorageRepository(root)
    notes: list[tuple[str, int, str, dict[str, Any]]] = [("2026-01-12", 7, "Bench 3x5 at 80 kg, heavy, slept 5 hours.", {"strength": {"lifts": []}}),
             ("2026-01-13", 19, "Easy run 5k, legs tired.", {"running": {"runs": [{"distance_km": 5}]}}),
             ("2026-01-14", 18, "Bench 3x5 at 80 kg felt light after 8 hours of sleep.", {"strength": {"lifts": []}})]
    for day, hour, text, data in notes:
        d = date.fromisoformat(day)
        repo.save_entry(Entry(id="", date=d, timestamp=datetime(d.year, d.month, d.day, hour, tzinfo=UTC),
                              raw_content=text, domain_data=data, tags=sorted(data)))


async def end_to_end(runs: int) -> list[float]:
    from core.server import start_ephemeral_dev_server
    from workers.main import running_workers

    env = await start_ephemeral_dev_server()
    overheads: list[float] = []
    try:
        target = env.client.service_client.config.target_host
        with tempfile.TemporaryDirectory() as tmp:
            notes = Path(tmp) / "notes"
            _seed_notes(notes)
            async with running_workers(env.client, f"bench-{uuid.uuid4().hex[:6]}") as queue:
                for n in range(runs):
                    cmd = [sys.executable, "-m", "client.cli", "notes", "ask", "Why did my bench feel heavy last week?",
                           "--today", "2026-01-16", "--notes-dir", str(notes), "--task-queue", queue,
                           "--address", target]
                    t = time.perf_counter()
                    proc = await asyncio.create_subprocess_exec(*cmd, cwd=ROOT, env=_env(),
                                                                stdout=asyncio.subprocess.PIPE,
                                                                stderr=asyncio.subprocess.STDOUT)
                    out, _ = await proc.communicate()
                    wall = time.perf_counter() - t
                    text = out.decode()
                    m = re.search(r"workflow (notes-\S+)", text)
                    if proc.returncode != 0 or not m:
                        raise SystemExit(f"the CLI failed (exit {proc.returncode}):\n{text[-2000:]}")
                    desc = await env.client.get_workflow_handle(m[1]).describe()
                    assert desc.start_time and desc.close_time
                    server = (desc.close_time - desc.start_time).total_seconds()
                    overheads.append(wall - server)
                    print(f"ask {n + 1}: CLI wall {wall:.2f} s, workflow {server:.2f} s, client-side {wall - server:.2f} s")
    finally:
        await env.shutdown()
    return overheads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--imports-only", action="store_true", help="Part 1 only (no server, a few seconds)")
    args = parser.parse_args()
    imported = imports(args.runs)
    if args.imports_only:
        verdict = "within" if imported <= BUDGET_S else "OVER"
        print(f"client-side overhead per ask (imports, lower bound): {imported:.2f} s — {verdict} the {BUDGET_S} s "
              "budget")
        return
    overheads = asyncio.run(end_to_end(args.runs))
    median = statistics.median(overheads)
    verdict = "within" if median <= BUDGET_S else "OVER"
    print(f"client-side overhead per ask: {median:.2f} s median of {args.runs} — {verdict} the {BUDGET_S} s budget")


if __name__ == "__main__":
    main()
