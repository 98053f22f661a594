"""A refused answer in a Japanese room, in a real browser (issue 37): the page sends its language with the answer
and shows the server's reason in Japanese after "Not delivered:", the answer kept in the box. The Temporal side is
a stand-in (only the room's queries and updates), so this needs no server: the engine's refusal is the
InvalidInput error an update validator raises, with its refusal code in the details."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from typing import Any

import pytest
from aiohttp import web
from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from client.web.app import build_app
from client.web.i18n import page_translations, script_strings
from client.web.interview.refusals import REASONS
from client.web.interview.room import room_extension
from client.web.interview.sessions import room_path
from models.interview.names import QUERY_SESSION_STATE, UPDATE_HEARTBEAT, UPDATE_SUBMIT_ENTRY
from models.interview.workflow import SessionState
from rules.interview.entries import TOO_LONG

playwright_api = pytest.importorskip("playwright.async_api", reason="pip install playwright (dev extra)")
CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is needed (make test installs it)")

SECRET = b"room-secret-for-tests"
WID = "interview-refusal-abc123"
QUESTION = "仕事について教えてください。"
ENGLISH = "entry 'room-a-x' is 9000 characters; the limit is 8000 — split it into several entries"


class Interview:
    """The interview's handle as the room uses it: its state, the heartbeat, and an entry the engine refuses."""

    def __init__(self) -> None:
        self.entries: list[Any] = []

    def state(self) -> SessionState:
        return SessionState(workflow_id=WID, topic="仕事", mode="adaptive", status="IN_PROGRESS", phase="opening",
                            duration_seconds=900, next_question=QUESTION, question_event_id=3,
                            question_entry_id="question-3", as_of=datetime.now(UTC))

    async def query(self, name: str, *args: Any, result_type: Any = None) -> Any:
        assert name == QUERY_SESSION_STATE
        return self.state()

    async def execute_update(self, name: str, arg: Any, result_type: Any = None) -> Any:
        if name == UPDATE_HEARTBEAT:
            return self.state()
        assert name == UPDATE_SUBMIT_ENTRY
        self.entries.append(arg)
        raise WorkflowUpdateFailedError(ApplicationError(ENGLISH, {"code": TOO_LONG, "length": 9000, "limit": 8000},
                                                         type="InvalidInput", non_retryable=True))


async def test_a_japanese_room_shows_the_refusal_in_japanese():
    interview, asked = Interview(), []

    class Handles:
        def get_workflow_handle(self, wid: str, result_type: Any = None) -> Interview:
            return interview

    async def temporal() -> Any:
        return Handles()

    @web.middleware
    async def note(request: web.Request, handler: Any) -> web.StreamResponse:
        if request.path.endswith("/entry"):
            asked.append(request.query.get("lang"))
        return await handler(request)

    app = build_app("console-token-for-tests", None, [], extensions=[room_extension(temporal, SECRET, 0.2)])
    app.middlewares.append(note)
    runner = web.AppRunner(app, shutdown_timeout=1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    reason = page_translations("ja").gettext(REASONS[TOO_LONG]) % {"length": "9,000", "limit": "8,000"}
    shown = script_strings("ja")["Not delivered: %(error)s."].replace("%(error)s", reason)
    try:
        async with playwright_api.async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            try:   # an English browser: the page's language decides, not Accept-Language
                ctx = await browser.new_context(locale="en-US")
                page = await ctx.new_page()
                await page.goto(f"http://127.0.0.1:{port}{room_path(SECRET, WID)}?lang=ja")
                await playwright_api.expect(page.locator("#question")).to_have_text(QUESTION, timeout=20_000)
                box = page.locator("#answer")
                await box.fill("長い回答")
                await box.press("Enter")
                await playwright_api.expect(page.locator("#send-status")).to_contain_text(shown, timeout=15_000)
                assert await box.input_value() == "長い回答"
            finally:
                await browser.close()
    finally:
        await runner.cleanup()
    assert asked and set(asked) == {"ja"} and len(interview.entries) == len(asked)
    assert "characters" not in shown and "9,000" in shown
