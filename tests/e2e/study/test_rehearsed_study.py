"""A rehearsed study of 20 participants on the dev server (real clock), through `colloquy serve`'s pages:

- P001 takes part in a real browser (Playwright + Debian's chromium): opens their link, chooses German, answers in
  the interview room; the researcher page shows the study live and links the report at the end;
- P002–P018 are rehearsed (persona-driven answers, SimulatedAnswerWorkflow) in en / fr / es;
- P019 answers once and disappears: presence pauses the interview, the study ends it and counts it abandoned;
- P020's link is revoked: the browser is refused.
Quota 18 completed → the study closes → analysis (digests, theme merge, reduce, synthesis) → findings.json,
findings.md and report.html. Every printed quote is verbatim in its transcript; a scripted near-miss quote is
flagged, not printed as a quote; the offline double's "translations" are labelled as none."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
import uuid
from pathlib import Path

import pytest
from aiohttp import web

from activities.artifacts import store
from activities.rehearsal.interviewee import Persona
from client.interview import PersonaAnswers, RehearsalOptions, rehearse
from client.room import room_extension
from client.study_web import study_extension
from client.webapp import build_app
from models.interview import (
    QUERY_SESSION_STATE,
    QUERY_TRANSCRIPT,
    UPDATE_HEARTBEAT,
    UPDATE_SUBMIT_ENTRY,
    Heartbeat,
    SessionState,
    SubmitEntryResult,
    TranscriptEntry,
    TranscriptView,
)
from models.study import (
    QUERY_PARTICIPANTS,
    QUERY_PROGRESS,
    UPDATE_OPEN_LINK,
    UPDATE_REVOKE_PARTICIPANT,
    Findings,
    OpenedLink,
    OpenLink,
    ParticipantView,
    RevokeParticipant,
    StudyProgress,
)
from rules.grounding import check_quote
from tests.conftest import replay
from tests.workflows.study.helpers import invite, start_study

playwright_api = pytest.importorskip("playwright.async_api", reason="pip install playwright (dev extra)")
CHROMIUM = shutil.which("chromium")
pytestmark = [pytest.mark.dev_server,
              pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is needed (make test installs it)")]

TOKEN = "researcher-token-for-tests"
SECRET = b"study-room-secret-for-tests"
LABEL = "[de — not translated: offline test double]"
GERMAN = ["Ich bin zufällig dazu gekommen: Ich habe nachts immer den Pager beantwortet, und nach einem Jahr war es "
          "meine Aufgabe.",
          "Wir haben jeden Alarm gelöscht, auf den neunzig Tage lang niemand reagiert hat, und die Pages um siebzig "
          "Prozent reduziert."]
MADE_UP: list[str] = []


def near_miss_digest(req) -> dict:  # noqa: ANN001
    """A digest whose quote is the participant's last answer with one word changed (a scripted near miss)."""
    words = [e["text"] for e in req.context["entries"] if e["speaker"] == "interviewee"][-1].split()
    words[len(words) // 2] = "banana"
    MADE_UP.append(" ".join(words))
    return {"themes": [{"title": "Getting into on-call", "stance": "It was an accident",
                        "quotes": [{"text": MADE_UP[-1]}]}], "not_in_plan": []}


def personas() -> list[Persona]:
    """Four voices; persona lines repeat across participants, so positions can be counted (8 / 5 / 3 / 1)."""
    return [
        Persona(name="Ana", role="SRE", stories=["We were told on-call was temporary and it never was."],
                opinions=["Paging people for noise is a management failure."]),
        Persona(name="Ben", role="developer", stories=["I volunteered because the pay bump covered my rent."],
                opinions=["Alert budgets fixed our rotation within a quarter."]),
        Persona(name="Chi", role="team lead", stories=["Nobody volunteered so I took the pager to protect my team."],
                opinions=["We only fixed alerts after someone quit over them."]),
        Persona(name="Dee", role="contractor", stories=["My contract made me the on-call person from day one."],
                opinions=["Honestly the pager never bothered me at all."]),
    ]


async def _serve(client) -> tuple[web.AppRunner, str]:  # noqa: ANN001
    async def temporal():  # noqa: ANN202
        return client

    app = build_app(TOKEN, None, [], extensions=[room_extension(temporal, SECRET, poll_s=0.2),
                                                 study_extension(temporal, SECRET)])
    runner = web.AppRunner(app, shutdown_timeout=2)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]


async def _rehearsed(client, queue: str, study, token_hash: str, language: str, persona: Persona,  # noqa: ANN001
                     gate: asyncio.Semaphore) -> None:
    async with gate:
        opened = await study.execute_update(UPDATE_OPEN_LINK, OpenLink(token_sha256=token_hash, language=language),
                                            result_type=OpenedLink)
        report = await rehearse(client, opened.interview_id, PersonaAnswers(
            client, opened.interview_id, "on-call", persona, task_queue=queue, max_turns=2),
            RehearsalOptions(fresh_question_timeout=15, poll_seconds=0.1, start_timeout=60))
        assert report.turns == 2 and report.closed_by_client, report


async def _abandoning(client, study, token_hash: str) -> str:  # noqa: ANN001
    """Opens the link, turns presence on, answers the first question, then is gone."""
    opened = await study.execute_update(UPDATE_OPEN_LINK, OpenLink(token_sha256=token_hash, language="en"),
                                        result_type=OpenedLink)
    h = client.get_workflow_handle(opened.interview_id)
    await h.execute_update(UPDATE_HEARTBEAT, Heartbeat(client_id="p019-tab"), result_type=SessionState)
    deadline = time.monotonic() + 30
    while not (s := await h.query(QUERY_SESSION_STATE, result_type=SessionState)).next_question:
        assert time.monotonic() < deadline, "no first question for P019"
        await asyncio.sleep(0.1)
    await h.execute_update(UPDATE_SUBMIT_ENTRY, TranscriptEntry(entry_id="q1", speaker="interviewer",
                                                                text=s.next_question), result_type=SubmitEntryResult)
    await h.execute_update(UPDATE_SUBMIT_ENTRY, TranscriptEntry(entry_id="a1", speaker="interviewee",
                                                                text="I have to go, sorry, the baby is awake now."),
                           result_type=SubmitEntryResult)
    return opened.interview_id


async def test_a_rehearsed_study_of_twenty_participants(dev_env, worker, offline, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    offline.script("study_digest", near_miss_digest)
    client = dev_env.client
    wall = time.monotonic()
    async with worker(client) as queue:
        sid = f"study-e2e-{uuid.uuid4().hex[:6]}"
        study = await start_study(client, queue, sid, quota=18, interview_seconds=300, cycle_seconds=1,
                                  presence_timeout_seconds=2, abandon_after_seconds=2, check_seconds=0.5,
                                  languages=["en", "de", "fr", "es"], theme_batch=5)
        people = await invite(study, 20)
        hashes = {pid: __import__("hashlib").sha256(t.encode()).hexdigest() for pid, t in people}
        links = dict(people)
        await study.execute_update(UPDATE_REVOKE_PARTICIPANT, RevokeParticipant(participant_id="P020"))
        abandoned_iid = await _abandoning(client, study, hashes["P019"])
        gate = asyncio.Semaphore(6)
        cast = personas()
        weights = [0] * 8 + [1] * 5 + [2] * 3 + [3] * 1          # 17 rehearsed participants
        langs = ["en", "fr", "es"]
        rehearsals = asyncio.gather(*(
            _rehearsed(client, queue, study, hashes[f"P{n:03d}"], langs[n % 3], cast[weights[n - 2]], gate)
            for n in range(2, 19)))
        runner, base = await _serve(client)
        try:
            async with playwright_api.async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                try:
                    page = await browser.new_page()
                    refused = await page.goto(f"{base}/study/{sid}/join/{links['P020']}")
                    assert refused is not None and refused.status == 403
                    await playwright_api.expect(page.locator("#refused")).to_have_text("This link has been revoked.")

                    await page.goto(f"{base}/study/{sid}/join/{links['P001']}")
                    await page.locator("#language").select_option("de")
                    await page.locator("#start").click()
                    await page.wait_for_url(f"{base}/room/**")
                    question = page.locator("#question")
                    await playwright_api.expect(question).to_contain_text(LABEL, timeout=30_000)
                    first = await question.text_content()
                    for n, answer in enumerate(GERMAN):
                        await page.locator("#answer").fill(answer)
                        await page.locator("#send").click()
                        await playwright_api.expect(page.locator("#sent li").nth(n)).to_contain_text(
                            "delivered", timeout=15_000)
                        if n == 0:
                            await playwright_api.expect(question).not_to_have_text(first or "", timeout=30_000)
                    # the interviewer closes the conversation (000 closing detection ends it)
                    p001 = client.get_workflow_handle(f"{sid}--P001")
                    await p001.execute_update(UPDATE_SUBMIT_ENTRY, TranscriptEntry(
                        entry_id="close", speaker="interviewer", text="Thank you so much for your time and for "
                        "sharing all of this. This has been a wonderful conversation."), result_type=SubmitEntryResult)
                    await playwright_api.expect(page.locator("#banner")).to_contain_text("ended", timeout=20_000)

                    # the researcher page: live progress, then the report
                    ctx = await browser.new_context()
                    researcher = await ctx.new_page()
                    await researcher.goto(f"{base}/studies/{sid}")
                    await researcher.locator("input[name=token]").fill(TOKEN)
                    await researcher.keyboard.press("Enter")
                    await researcher.wait_for_url(f"{base}/studies/{sid}")
                    await playwright_api.expect(researcher.locator("#n-invited")).to_have_text("20", timeout=10_000)
                    await rehearsals
                    await playwright_api.expect(researcher.locator("body")).to_have_attribute("data-phase", "done",
                                                                                                timeout=120_000)
                    await playwright_api.expect(researcher.locator("#n-completed")).to_have_text("18")
                    await playwright_api.expect(researcher.locator("#n-abandoned")).to_have_text("1")
                    await playwright_api.expect(researcher.locator("#p-P020")).to_have_attribute("data-status",
                                                                                                 "revoked")
                    await playwright_api.expect(researcher.locator("#themes tbody tr").first).to_be_visible()
                    await researcher.screenshot(path=str(tmp_path / "researcher.png"), full_page=True)
                    href = await researcher.locator("#report-link").get_attribute("href")
                    report_page = await ctx.new_page()     # signed in (the cookie)
                    shown = await report_page.goto(base + str(href))
                    assert shown is not None and shown.status == 200
                    await playwright_api.expect(report_page.locator("#coverage")).to_be_visible()
                    await report_page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
                finally:
                    await browser.close()
        finally:
            await runner.cleanup()
            if not rehearsals.done():
                rehearsals.cancel()
        result = await study.result()
        progress = await study.query(QUERY_PROGRESS, result_type=StudyProgress)
        ledger = {p.participant_id: p for p in await study.query(QUERY_PARTICIPANTS,
                                                                  result_type=list[ParticipantView])}
        p001_view = await client.get_workflow_handle(f"{sid}--P001").query(QUERY_TRANSCRIPT, result_type=TranscriptView)
        history = await study.fetch_history()
        await replay(study)
    wall = time.monotonic() - wall

    assert result.status == "completed" and result.completed == 18 and result.abandoned == 1
    assert result.revoked == 1 and result.invited == 20 and result.closed_reason == "quota reached (18 completed)"
    assert ledger["P019"].status == "abandoned" and ledger["P019"].exit_reason == "abandoned (disconnected)"
    assert ledger["P019"].interview_id == abandoned_iid
    assert ledger["P001"].language == "de" and ledger["P001"].status == "completed"
    assert progress.languages == {"de": 1, "en": 7, "es": 6, "fr": 5}
    assert progress.median_length_seconds is not None
    # the participant saw the questions in their language's slot, labelled as not translated; answers as given
    assert [e.text for e in p001_view.entries if e.speaker == "interviewee"] == GERMAN
    assert all(e.text.startswith(LABEL) for e in p001_view.entries if e.entry_id.startswith("room-q-"))

    assert result.outputs is not None
    findings = Findings.model_validate_json(store().get(result.outputs.findings_json))
    html = store().get(result.outputs.report_html)
    md = store().get(result.outputs.findings_md)
    origin = next(t for t in findings.themes if t.title == "Getting into on-call")
    assert origin.count == 18
    cov = {c.question_id: c for c in findings.coverage}
    assert cov["q-origin"].asked == 18 and cov["q-origin"].answered == 18 and cov["q-origin"].interviews == 18
    assert findings.disagreements and findings.minority_views
    assert any("offline test double" in n for n in findings.notes)
    # every printed quote is verbatim in its participant's transcript; the German one says it was not translated
    quotes = [q for t in findings.themes for q in t.quotes]
    assert quotes and all(q.verified for q in quotes)
    for q in quotes:
        entries = json.loads(store().get(q.transcript))  # type: ignore[arg-type]
        assert check_quote(q.text, [e["text"] for e in entries if e["speaker"] == "interviewee"]).verified
        assert f"“{q.text}”" in md
    german = [q for q in quotes if q.participant_id == "P001"]
    assert german and german[0].translation is None and german[0].translation_note == "not translated: offline test double"
    # the scripted near miss is flagged and printed nowhere as a quote
    near_miss = MADE_UP[0]
    flagged = [q for q in findings.flagged_quotes if q.text == near_miss]
    assert flagged and flagged[0].check == "near_miss" and "1 word differs" in flagged[0].flag
    assert f"“{near_miss}”" not in md and f"“{near_miss}”" not in html and near_miss in md
    assert "<table" in html and "hsl(140" in html and 'href="#t-P' in html and 'id="t-P' in html
    assert history is not None
    print(f"\n20-participant study: {wall:.1f}s wall, {len(history.events)} events in the last run, "
          f"analysis {result.analysis_seconds:.1f}s")
