"""Flood (issue 15, defect 3), the other pipelines: the largest valid input of each completes on the real dev
server (Temporal's 2 MiB payload limit enforced) — texts travel by reference, windows are bounded.

- query: a 20,000-character CJK note (the input limit), then a question over 150 stored notes of 20,000 CJK
  characters each (9 MB of notes);
- writing: a 200,000-character CJK story (the story limit) through the default config with two writers;
- discussion: a 2,000-character CJK topic at the `full` level (three rounds)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, date, datetime, timedelta

import pytest

from activities.query.storage import StorageRepository
from models.discussion.workflow import WORKFLOW_TYPE as DISCUSSION
from models.discussion.workflow import DiscussionInput, DiscussionResult
from models.query.parts import Entry
from models.query.workflow import MAX_INPUT_CHARS, QueryRequest, QueryResult
from models.query.workflow import WORKFLOW_TYPE as QUERY
from models.writing.workflow import MAX_STORY_CHARS, WritingInput, WritingResult
from models.writing.workflow import WORKFLOW_TYPE as WRITING

pytestmark = [pytest.mark.dev_server, pytest.mark.drill]


def cjk(n: int, seed: int = 0) -> str:
    return "".join(chr(0x4E00 + (seed * 131 + k) % 20000) for k in range(n))


async def test_query_flood(dev_env, worker, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    monkeypatch.setenv("COLLOQUY_NOTES_DIR", str(tmp_path))   # the worker's notes root (rules/paths.py)
    notes = tmp_path / "notes"
    repo = StorageRepository(notes)
    start = date(2026, 1, 1)
    for i in range(150):
        d = start + timedelta(days=i % 60)
        repo.save_entry(Entry(id="", date=d, timestamp=datetime(d.year, d.month, d.day, 7, i % 60, tzinfo=UTC),
                              raw_content=f"深蹲 {i}: " + cjk(MAX_INPUT_CHARS - 10, i), domain_data={}))
    async with worker(dev_env.client) as queue:
        note = "今天深蹲五组：" + cjk(MAX_INPUT_CHARS - 7, 999)
        assert len(note) == MAX_INPUT_CHARS
        logged = await dev_env.client.execute_workflow(
            QUERY, QueryRequest(text=note, app_id="fitness", notes_dir="notes", today="2026-03-01"),
            id=f"notes-flood-{uuid.uuid4().hex[:6]}", task_queue=queue, result_type=QueryResult,
            execution_timeout=timedelta(seconds=120))
        asked = await dev_env.client.execute_workflow(
            QUERY, QueryRequest(text="这两个月我的深蹲进步了多少？", app_id="fitness", notes_dir="notes",
                                today="2026-03-01"),
            id=f"notes-flood-{uuid.uuid4().hex[:6]}", task_queue=queue, result_type=QueryResult,
            execution_timeout=timedelta(seconds=120))
    assert logged.stored_entries, logged
    assert asked.response, asked


async def test_writing_flood(dev_env, worker, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    monkeypatch.setenv("COLLOQUY_HISTORY_DB", str(tmp_path / "history.duckdb"))
    story = "。".join(cjk(99, i) for i in range(MAX_STORY_CHARS // 100))
    assert len(story) <= MAX_STORY_CHARS
    async with worker(dev_env.client) as queue:
        handle = await dev_env.client.start_workflow(
            WRITING, WritingInput(story_text=story, story_name="flood", models=["m-a", "m-b"]),
            id=f"writing-flood-{uuid.uuid4().hex[:6]}", task_queue=queue, result_type=WritingResult)
        result = await asyncio.wait_for(handle.result(), 180)
    assert result.status == "complete" and result.final_post is not None, result


async def test_discussion_flood(dev_env, worker, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    async with worker(dev_env.client) as queue:
        handle = await dev_env.client.start_workflow(
            DISCUSSION, DiscussionInput(topic="小镇如何减少食物浪费？" + cjk(1980), level="full"),
            id=f"discussion-flood-{uuid.uuid4().hex[:6]}", task_queue=queue, result_type=DiscussionResult)
        result = await asyncio.wait_for(handle.result(), 180)
    assert result.outcome and result.messages, result
