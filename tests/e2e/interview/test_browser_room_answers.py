"""The room in a real browser (Playwright driving Debian's chromium; never `playwright install`), against the dev
server, a worker and `colloquy serve`'s app on 127.0.0.1:
- a long answer goes in as several entries cut between sentences (client/web/split.js, the rule of
  rules/interview/answer_parts.py) and the page says so; the box keeps the answer until it is delivered (offline:
  kept; refused: kept and editable), and empties only then;
- section boundaries and time warnings are shown in the room and in the console (screenshot of the room);
- two tabs of one room never overwrite each other's undelivered answers: both reach the engine."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from client.web.interview.sessions import room_path
from models.interview.entries import TranscriptView
from models.interview.names import QUERY_TRANSCRIPT
from models.interview.workflow import InterviewInput
from rules.interview.answer_parts import split_answer
from tests.e2e.interview.helpers import LIMIT, LONG
from tests.e2e.interview.test_browser_room import CHROMIUM, SECRET, TOKEN, _serve, playwright_api
from tests.workflows.interview.helpers import adaptive_plan, decision

pytestmark = [pytest.mark.dev_server,
              pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is needed (make test installs it)")]
expect = playwright_api.expect

Q1 = "How did you end up carrying the pager?"


async def _start(client, queue: str, **fields) -> str:  # noqa: ANN001
    wid = f"interview-browser-{uuid.uuid4().hex[:6]}"
    await client.start_workflow(
        "InterviewWorkflow", InterviewInput(**{"topic": "Running on-call for a payments team", "plan": adaptive_plan(),
                                               "cycle_seconds": 1, "write_essay": False, **fields}),
        id=wid, task_queue=queue)
    return wid


async def _answers(client, wid: str) -> list[tuple[str, str]]:  # noqa: ANN001
    view = await client.get_workflow_handle(wid).query(QUERY_TRANSCRIPT, result_type=TranscriptView)
    return [(e.entry_id, e.text) for e in view.entries if e.speaker == "interviewee"]


async def test_long_answers_the_box_and_section_boundaries(dev_env, worker, offline, tmp_path: Path):
    offline.script("interview_orchestrator", *[decision(Q1, qid="q-origin")] * 60)
    client = dev_env.client
    parts = split_answer(LONG, LIMIT)
    assert len(parts) == 3
    async with worker(client) as queue:
        wid = await _start(client, queue, duration_seconds=40, max_entry_chars=LIMIT, warning_thresholds_seconds=[6])
        runner, base = await _serve(client)
        try:
            async with playwright_api.async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                try:
                    ctx = await browser.new_context(viewport={"width": 390, "height": 844})
                    page = await ctx.new_page()
                    await page.goto(base + room_path(SECRET, wid))
                    await expect(page.locator("#question")).to_have_text(Q1, timeout=20_000)
                    box, status = page.locator("#answer"), page.locator("#send-status")

                    # offline: the answer stays in the box (read-only) while it is not delivered
                    await ctx.route("**/entry", lambda route: route.abort())
                    await box.fill(LONG)
                    await box.press("Enter")
                    await expect(page.locator("#sent li").first).to_contain_text("sending part 1 of 3")
                    await asyncio.sleep(1.5)
                    assert await box.input_value() == LONG
                    assert await box.get_attribute("readonly") is not None
                    # back online: three entries, cut between sentences; the page says so, then the box empties
                    await ctx.unroute("**/entry")
                    await expect(status).to_contain_text("Your answer was sent in 3 parts", timeout=15_000)
                    await expect(page.locator("#sent li").first).to_contain_text("delivered in 3 parts")
                    assert await box.input_value() == ""
                    assert [t for _, t in await _answers(client, wid)] == parts
                    # numbered (one answer, one decision) and stamped with the question on screen at the first key
                    view = await client.get_workflow_handle(wid).query(QUERY_TRANSCRIPT, result_type=TranscriptView)
                    said = [e for e in view.entries if e.speaker == "interviewee"]
                    asked = [e.entry_id for e in view.entries if e.speaker == "interviewer" and e.text == Q1]
                    assert [(e.part, e.parts, e.continues) for e in said] == [(1, 3, False), (2, 3, True), (3, 3, True)]
                    assert {e.reply_to_question_id for e in said} == {asked[0]}

                    # refused: the text stays in the box, editable, with the reason
                    await ctx.route("**/entry", lambda route: route.fulfill(
                        status=422, content_type="application/json", body='{"error": "refused for the test"}'))
                    await box.fill("A short answer that the server refuses.")
                    await box.press("Enter")
                    await expect(status).to_contain_text("Not delivered: refused for the test")
                    assert await box.input_value() == "A short answer that the server refuses."
                    assert await box.get_attribute("readonly") is None
                    await ctx.unroute("**/entry")

                    # the section boundary and the warning before it, in the room
                    notices = page.locator("#notices li")
                    await expect(page.locator('#notices li[data-kind="section_started"][data-section-id="practice"]')
                                 ).to_have_count(1, timeout=30_000)
                    kinds = [await li.get_attribute("data-kind") for li in await notices.all()]
                    assert kinds[:4] == ["section_started", "time_warning", "section_ended", "section_started"]
                    notice = page.locator("#notice")
                    await expect(notice).to_be_visible()
                    await expect(notice).to_contain_text("Section ended: Origins")
                    await expect(notice).to_contain_text("New section: Practice")
                    await page.screenshot(path=str(tmp_path / "room-boundary.png"), full_page=True)

                    # ... and in the console
                    console = await ctx.new_page()
                    await console.goto(f"{base}/console/{wid}")
                    await console.locator("input[name=token]").fill(TOKEN)
                    await console.keyboard.press("Enter")
                    await console.wait_for_url(f"{base}/console/{wid}")
                    await expect(console.locator('#notices li[data-kind="section_ended"]')).to_contain_text(
                        "Section ended: Origins", timeout=10_000)
                    await expect(console.locator('#notices li[data-kind="time_warning"]').first).to_contain_text(
                        "0:06 left in this section (Origins)")
                    await console.set_viewport_size({"width": 1280, "height": 900})
                    await console.screenshot(path=str(tmp_path / "console-boundary.png"), full_page=True)
                finally:
                    await browser.close()
        finally:
            await runner.cleanup()
    assert (tmp_path / "room-boundary.png").stat().st_size > 5000


async def test_two_tabs_never_lose_each_others_answers(dev_env, worker, offline):
    offline.script("interview_orchestrator", *[decision(Q1, qid="q-origin")] * 40)
    client = dev_env.client
    async with worker(client) as queue:
        wid = await _start(client, queue, duration_seconds=600)
        runner, base = await _serve(client)
        url = base + room_path(SECRET, wid)
        try:
            async with playwright_api.async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                try:
                    ctx = await browser.new_context()
                    await ctx.route("**/entry", lambda route: route.abort())      # nothing gets through
                    first, second = await ctx.new_page(), await ctx.new_page()
                    for page in (first, second):
                        await page.goto(url)
                        await expect(page.locator("#question")).to_have_text(Q1, timeout=20_000)
                    await first.locator("#answer").fill("Typed in the first tab.")
                    await first.locator("#answer").press("Enter")
                    await second.locator("#answer").fill("Typed in the second tab.")
                    await second.locator("#answer").press("Enter")
                    for page in (first, second):
                        await expect(page.locator("#sent li")).to_contain_text(["sending"])
                    # the second tab reloads: what the first tab saved is still there
                    await second.reload()
                    await expect(second.locator("#sent li")).to_contain_text(["Typed in the second tab."])
                    await first.close()
                    await second.close()
                    # both tabs are gone; a new one opens with the network back: both answers are delivered
                    await ctx.unroute("**/entry")
                    third = await ctx.new_page()
                    await third.goto(url)
                    await expect(third.locator("#sent li.sent")).to_have_count(2, timeout=20_000)

                    # without Web Locks (plain http on a non-local address): a record untouched for long is a
                    # closed tab's; and the single record of the page before per-tab outboxes is adopted too
                    old = await browser.new_context()
                    await old.add_init_script(
                        "Object.defineProperty(Navigator.prototype, 'locks', {get: () => undefined})")
                    page = await old.new_page()
                    await page.goto(base + "/static/room.css")          # the room's origin, to seed its storage
                    await page.evaluate("""([wid]) => {
                        localStorage.setItem("colloquy-room:" + wid, JSON.stringify({
                          outbox: [{id: "legacy1", text: "Saved by the older page.", state: "pending"}],
                          draft: "A draft from before."}));
                        localStorage.setItem("colloquy-room:" + wid + ":tab:closedtab", JSON.stringify({v: 2,
                          outbox: [{id: "stale1", text: "Left by a tab closed long ago.", state: "pending"}],
                          draft: "", box: null, at: Date.now() - 600000}));
                        localStorage.setItem("colloquy-room:" + wid + ":tab:opentab", JSON.stringify({v: 2,
                          outbox: [], draft: "Another open tab's draft.", box: null, at: Date.now()}));
                    }""", [wid])
                    await page.goto(url)
                    assert await page.evaluate("navigator.locks === undefined")
                    await expect(page.locator("#sent li.sent")).to_have_count(2, timeout=20_000)
                    assert await page.locator("#answer").input_value() == "A draft from before."
                    keys = await page.evaluate("Object.keys(localStorage).sort()")
                    assert any(k.startswith(f"colloquy-room:{wid}:tab:") and not k.endswith(("closedtab", "opentab"))
                               for k in keys)                                  # this tab's own record
                    assert f"colloquy-room:{wid}" not in keys and f"colloquy-room:{wid}:tab:closedtab" not in keys
                    assert f"colloquy-room:{wid}:tab:opentab" in keys             # a live tab's: left alone
                finally:
                    await browser.close()
        finally:
            await runner.cleanup()
        texts = sorted(t for _, t in await _answers(client, wid))
    assert texts == ["Left by a tab closed long ago.", "Saved by the older page.", "Typed in the first tab.",
                     "Typed in the second tab."]
