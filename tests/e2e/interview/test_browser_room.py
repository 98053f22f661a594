"""The interview room and the interviewer console in a real browser: Playwright driving Debian's chromium
(`make test` installs it; never `playwright install`), against the dev server, a worker and `colloquy serve`'s
app on 127.0.0.1. One full session: answer, the next question is pushed without a reload, closing the tab
pauses the session within the presence timeout, reopening resumes it with no duplicate question, the end is
shown on the page (the typed text kept), the console shows coverage and the essay link. Screenshots of both
pages are saved in the test's tmp dir."""

from __future__ import annotations

import asyncio
import shutil
import time
import uuid
from pathlib import Path

import pytest
from aiohttp import web

from client.web.app import build_app
from client.web.interview.room import room_extension
from client.web.interview.sessions import room_path
from models.interview.entries import TranscriptView
from models.interview.names import QUERY_SESSION_STATE, QUERY_TRANSCRIPT
from models.interview.workflow import InterviewInput, InterviewResult, SessionState
from tests.workflows.interview.helpers import adaptive_plan, decision

playwright_api = pytest.importorskip("playwright.async_api", reason="pip install playwright (dev extra)")
CHROMIUM = shutil.which("chromium")
pytestmark = [pytest.mark.dev_server,
              pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is needed (make test installs it)")]

TOKEN = "console-token-for-tests"
SECRET = b"room-secret-for-tests"
PRESENCE = 3.0
Q1 = "How did you end up carrying the pager?"
Q2 = "Tell me about the worst night you had on call"
Q3 = "How do you measure whether an on-call rotation is healthy?"
ANSWER_1 = ("By accident, honestly: I kept answering the pager at night and after a year it became my job, "
            "because nobody else on the payments team wanted the rotation.")


async def _serve(client) -> tuple[web.AppRunner, str]:  # noqa: ANN001
    async def temporal():  # noqa: ANN202
        return client

    app = build_app(TOKEN, None, [], extensions=[room_extension(temporal, SECRET, poll_s=0.2)])
    runner = web.AppRunner(app, shutdown_timeout=2)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


async def _until(check, timeout: float, what: str, interval: float = 0.1):  # noqa: ANN001, ANN202
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        await asyncio.sleep(interval)


async def test_a_whole_session_in_the_browser(dev_env, worker, offline, tmp_path: Path):
    offline.script("interview_orchestrator", decision(Q1, qid="q-origin"), decision(Q2, qid="q-worst"),
                   *[decision(Q3, qid="q-measure", phase="deep_dive")] * 20)
    client = dev_env.client
    async with worker(client) as queue:
        wid = f"interview-browser-{uuid.uuid4().hex[:6]}"
        handle = await client.start_workflow(
            "InterviewWorkflow", InterviewInput(topic="Running on-call for a payments team", plan=adaptive_plan(),
                                                duration_seconds=600, cycle_seconds=1,
                                                presence_timeout_seconds=PRESENCE),
            id=wid, task_queue=queue)

        async def state() -> SessionState:
            return await handle.query(QUERY_SESSION_STATE, result_type=SessionState)

        async def interviewer_lines() -> list[str]:
            view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
            return [e.text for e in view.entries if e.speaker == "interviewer"]

        runner, base = await _serve(client)
        room_url = base + room_path(SECRET, wid)
        try:
            async with playwright_api.async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                try:
                    ctx = await browser.new_context(viewport={"width": 390, "height": 844})  # phone width
                    page = await ctx.new_page()
                    await page.goto(room_url)
                    question = page.locator("#question")
                    await playwright_api.expect(question).to_have_text(Q1, timeout=20_000)
                    assert await question.get_attribute("aria-live") == "polite"
                    assert await interviewer_lines() == [Q1]          # recorded once, before it was shown

                    # answer with the keyboard only; the next question arrives without a reload
                    await page.locator("#answer").focus()
                    await page.keyboard.type(ANSWER_1)
                    await page.keyboard.press("Enter")
                    await playwright_api.expect(page.locator("#sent li").first).to_contain_text("delivered",
                                                                                                timeout=10_000)
                    await playwright_api.expect(question).to_have_text(Q2, timeout=20_000)
                    await playwright_api.expect(page.locator("#section-left")).not_to_have_text("--:--")
                    await page.screenshot(path=str(tmp_path / "room.png"), full_page=True)
                    s = await state()
                    assert s.status == "IN_PROGRESS" and s.interviewee_seen_at is not None

                    # close the tab: PAUSED (disconnect) within the presence timeout
                    await page.close()
                    closed = time.monotonic()
                    paused = await _until(lambda: _paused(state), PRESENCE + 5, "the disconnect pause")
                    assert paused.paused_reason == "disconnect"
                    assert time.monotonic() - closed <= PRESENCE + 1.5

                    # reopen the link: resumed, the same question, nothing recorded twice
                    page = await ctx.new_page()
                    await page.goto(room_url)
                    await playwright_api.expect(page.locator("#question")).to_have_text(Q2, timeout=10_000)
                    await _until(lambda: _status(state, "IN_PROGRESS"), 10, "the reconnect")
                    assert await interviewer_lines() == [Q1, Q2]
                    await page.locator("#answer").fill("Something I was still typing when it ended")

                    # the console: sign in, coverage, end the interview
                    console = await ctx.new_page()
                    await console.goto(f"{base}/console/{wid}")
                    await console.locator("input[name=token]").fill(TOKEN)
                    await console.keyboard.press("Enter")
                    await console.wait_for_url(f"{base}/console/{wid}")
                    asked = console.locator('[data-question-id="q-origin"]')
                    await playwright_api.expect(asked).to_have_attribute("data-asked", "true", timeout=10_000)
                    await playwright_api.expect(console.locator('[data-question-id="q-never"]')).to_have_attribute(
                        "data-asked", "false")
                    await playwright_api.expect(console.locator("#transcript li")).to_have_count(3)
                    await playwright_api.expect(console.locator("#room-link")).to_have_text(room_url)
                    console.on("dialog", lambda d: asyncio.ensure_future(d.accept()))
                    await console.locator("#end").click()

                    # the room says it ended and keeps the text
                    await playwright_api.expect(page.locator("#banner")).to_contain_text(
                        "The interview has ended", timeout=10_000)
                    assert await page.locator("#answer").input_value() == "Something I was still typing when it ended"
                    assert await page.locator("#answer").get_attribute("readonly") is not None
                    await page.screenshot(path=str(tmp_path / "room-ended.png"), full_page=True)

                    # the essay link, read through the server
                    link = console.locator("#essay-link")
                    await playwright_api.expect(link).to_be_visible(timeout=60_000)
                    await console.set_viewport_size({"width": 1280, "height": 900})
                    await console.screenshot(path=str(tmp_path / "console.png"), full_page=True)
                    href = await link.get_attribute("href")
                    essay = await console.request.get(base + str(href))
                    assert essay.status == 200 and essay.headers["content-type"].startswith("text/plain")
                    assert essay.headers["x-content-type-options"] == "nosniff"      # inert text (issue 21)
                    assert (await essay.text()).strip()
                finally:
                    await browser.close()
        finally:
            await runner.cleanup()
        result = await client.get_workflow_handle(wid, result_type=InterviewResult).result()
    assert result.status == "COMPLETED" and result.exit_reason == "ended_by_client"
    for name in ("room.png", "room-ended.png", "console.png"):
        assert (tmp_path / name).stat().st_size > 5000


async def _paused(state) -> SessionState | None:  # noqa: ANN001
    s = await state()
    return s if s.status == "PAUSED" else None


async def _status(state, status: str) -> SessionState | None:  # noqa: ANN001
    s = await state()
    return s if s.status == status else None


async def test_a_wrong_room_key_opens_nothing(dev_env, tmp_path: Path):
    runner, base = await _serve(dev_env.client)
    try:
        async with playwright_api.async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            try:
                page = await browser.new_page()
                response = await page.goto(f"{base}/room/interview-x/not-the-key")
                assert response is not None and response.status == 404
                response = await page.goto(f"{base}/api/interviews/interview-x/console")
                assert response is not None and response.status == 401
            finally:
                await browser.close()
    finally:
        await runner.cleanup()
