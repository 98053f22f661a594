"""`colloquy demo` — the README's main job on the embedded defaults.

Starts the embedded Temporal server (or reuses it), runs the workers in this process, runs a sample
pipeline end to end, and prints where the result is and the Web UI link.
"""

from __future__ import annotations

import asyncio
import uuid

from client.common import console
from core.settings import TemporalSettings


def run_demo(keep_server: bool = False) -> int:
    from core.server import DevServer

    server = DevServer()
    status = server.start()
    console.print(f"Temporal server {'reused' if status.reused else 'started'}: {status.describe()}")
    try:
        return asyncio.run(_demo(TemporalSettings.from_env(address=server.address)))
    finally:
        if not keep_server and not status.reused:
            server.stop()
            console.print("Temporal server stopped (state kept in .data/; `make up` keeps it running).")


async def _demo(settings: TemporalSettings) -> int:
    from activities.llm.config import current_config
    from core.temporal import connect
    from models.platform import ModelCheckRequest
    from workers.main import build_workers
    from workflows.model_check import ModelCheckWorkflow

    cfg = current_config()
    if cfg.profile == "offline":
        console.print("[yellow]LLM profile: offline — the deterministic test double, not a model.[/yellow]")
    client = await connect(settings)
    workers = build_workers(client, "colloquy", "all")
    tasks = [asyncio.create_task(w.run()) for w in workers]
    try:
        wf_id = f"model-check-{uuid.uuid4().hex[:6]}"
        report = await client.execute_workflow(ModelCheckWorkflow.run, ModelCheckRequest(), id=wf_id,
                                               task_queue="colloquy")
        for row in report.rows:
            console.print(f"{row.agent}: ok={row.ok} model={row.provider}/{row.model} echo={row.echo!r}")
        console.print(f"Web UI: {settings.workflow_url(wf_id)}")
        return 0 if all(r.ok for r in report.rows) else 1
    finally:
        for w in workers:
            await w.shutdown()
        await asyncio.gather(*tasks, return_exceptions=True)
