"""`colloquy notes import`: a folder of 1,000 notes through ImportNotesWorkflow (continue-as-new), with the
progress the CLI's bar shows; bad files are reported, never silently dropped."""

from __future__ import annotations

import json
from datetime import date, timedelta

from activities.llm import offline as offline_provider
from client.query.cli import run_import
from tests.conftest import replay
from tests.workflows.query.helpers import recording


def _parse_from_text(req: offline_provider.OfflineRequest) -> dict:
    """Scripted Parser: the bench weight written in the note (derived from the request, per file)."""
    text = req.context["text"]
    weight = int(text.split("bench ")[1].split("x")[0])
    return {"date": "2025-01-01", "timestamp": "2025-01-01T00:00:00Z", "raw_content": text,
            "domain_data": {"strength": {"exercises": [{"name": "bench press", "weight": weight, "reps": 5}]}},
            "confidence": 0.9}


async def test_import_of_1000_notes_shows_progress_and_stores_every_note(dev_env, worker, offline, tmp_path):
    """On the dev server (real clock): an import has no timers to skip, and the time-skipping server may jump to
    a running batch's activity deadline while the test awaits the result."""
    ts_env = dev_env
    src = tmp_path / "export"
    start = date(2023, 1, 1)
    for i in range(1000):
        day = start + timedelta(days=i)
        sub = src / f"{day:%Y}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"{day.isoformat()}.md").write_text(f"Morning session: bench {100 + i % 50}x5, felt ok.\n")
    (src / "2024-02-30.md").write_text("bench 1x1 on an impossible date\n")  # bad date: an error, not imported
    (src / "empty-2024-03-01.md").write_text("   \n")                         # empty: reported as failed
    offline.script("parse_log", *[_parse_from_text] * 1000)
    notes = tmp_path / "notes"
    seen = []
    async with worker(ts_env.client) as queue:
        wf_id, result = await run_import(ts_env.client, src, "fitness", str(notes), queue, batch_size=50,
                                         on_progress=seen.append, poll_s=0.05)
        await replay(ts_env.client.get_workflow_handle(wf_id), record_as=recording("query_import"))
    assert result.total == 1002 and result.imported == 1000 and result.new == 1000
    assert sorted(result.failed) == ["2024-02-30.md: the file name's date 2024-02-30 is not a real date — fix the "
                                     "date and import again", "empty-2024-03-01.md: empty"]
    # Progress went up in steps while it ran (the bar the CLI draws), across continue-as-new runs.
    done = [p.done for p in seen]
    assert done == sorted(done) and any(0 < d < 1002 for d in done)
    assert seen[-1].total == 1002
    # Every note is in the store: raw + parsed, by its date.
    raw = notes / "logs/raw/2023/01/2023-01-01.md"
    assert "Morning session: bench 100x5, felt ok." in raw.read_text()
    parsed = json.loads((notes / "logs/parsed/2025/09/2025-09-26.json").read_text())
    assert parsed["entries"][0]["domain_data"]["strength"]["exercises"][0]["weight"] == 100 + 999 % 50
    assert len(list((notes / "logs/raw").rglob("*.md"))) >= 1000
    assert not (notes / "logs/raw/2024/03").exists() or "bench 1x1" not in "".join(
        p.read_text() for p in (notes / "logs/raw/2024/03").rglob("*.md"))
    assert result.usage.calls == 1000


async def test_reimporting_the_same_folder_adds_nothing(dev_env, worker, offline, tmp_path):
    """Idempotent per file + content: an interrupted import can simply be run again."""
    ts_env = dev_env
    src = tmp_path / "export"
    src.mkdir()
    for i in range(12):
        (src / f"2024-05-{i + 1:02d}.md").write_text(f"bench {150 + i}x5\n")
    offline.script("parse_log", *[_parse_from_text] * 12)
    notes = tmp_path / "notes"
    async with worker(ts_env.client) as queue:
        _, first = await run_import(ts_env.client, src, "fitness", str(notes), queue, batch_size=5)
        _, second = await run_import(ts_env.client, src, "fitness", str(notes), queue, batch_size=5)
    assert (first.new, first.updated, first.unchanged) == (12, 0, 0)
    assert (second.new, second.updated, second.unchanged) == (0, 0, 12)  # unchanged files: no Parser call
    assert len(offline.calls("parse_log")) == 12 and second.usage.calls == 0
    day = json.loads((notes / "logs/parsed/2024/05/2024-05-03.json").read_text())
    assert len(day["entries"]) == 1
    assert (notes / "logs/raw/2024/05/2024-05-03.md").read_text().count("bench 152x5") == 1
