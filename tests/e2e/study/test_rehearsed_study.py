"""A rehearsed study of 10 participants in 3 languages on the dev server (real clock), through `colloquy serve`'s
pages and the CLI — the issue's "done when":

- the study starts with `review=True`: its links stay shut until the researcher approves the plan on their page;
- P001 takes part in a real browser (Playwright + Debian's chromium, a German browser): the link's page is German
  (`<html lang="de">`, catalog strings, the interview length), shows the consent text with its required checkbox;
  P001 consents, answers in the interview room, then reads back the transcript on the same link and corrects an
  answer (kept beside the original);
- P002–P008 and P010 are rehearsed (persona-driven answers, SimulatedAnswerWorkflow) in de / fr / es, each with
  consent; P002 confirms the transcript; P010 withdraws on their page (their data leaves the findings);
- P009 answers once and disappears: presence pauses the interview, the study ends it and counts it abandoned.
The researcher closes the study → analysis → findings (member checking counted, consent versions) → report.html;
`colloquy study export` writes csv, xlsx, transcripts and a .qdpx that validates against the REFI-QDA schema;
the participant's pages, the researcher page and the report pass axe-core (WCAG 2 A/AA) in Chromium.
Every printed quote is verbatim in its transcript; a scripted near-miss quote is flagged, not printed."""

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
from client.interview.cli import PersonaAnswers, RehearsalOptions, rehearse
from client.web.app import build_app
from client.web.interview.room import room_extension
from client.web.study.routes import study_extension
from models.interview.entries import Heartbeat, SubmitEntryResult, TranscriptEntry
from models.interview.names import QUERY_SESSION_STATE, UPDATE_HEARTBEAT, UPDATE_SUBMIT_ENTRY
from models.interview.workflow import SessionState
from models.study.workflow import (
    QUERY_PARTICIPANTS,
    QUERY_PROGRESS,
    UPDATE_CLOSE,
    UPDATE_OPEN_LINK,
    CloseStudy,
    Findings,
    OpenedLink,
    ParticipantView,
    StudyProgress,
)
from rules.grounding import check_quote
from tests.conftest import replay
from tests.e2e.study.test_cli import cli
from tests.workflows.study.helpers import invite, opening, start_study

playwright_api = pytest.importorskip("playwright.async_api", reason="pip install playwright (dev extra)")
CHROMIUM = shutil.which("chromium")
pytestmark = [pytest.mark.dev_server,
              pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is needed (make test installs it)")]

TOKEN = "researcher-token-for-tests"
SECRET = b"study-room-secret-for-tests"
LABEL = "[de — not translated: offline test double]"
AXE = Path(__file__).parents[3] / "node_modules" / "axe-core" / "axe.min.js"     # `npm install` (package.json)
XSD = Path(__file__).parents[2] / "fixtures" / "study" / "Project.xsd"
AXED: list[str] = []
GERMAN = ["Ich bin zufällig dazu gekommen: Ich habe nachts immer den Pager beantwortet, und nach einem Jahr war es "
          "meine Aufgabe.",
          "Wir haben jeden Alarm gelöscht, auf den neunzig Tage lang niemand reagiert hat, und die Pages um siebzig "
          "Prozent reduziert."]
MADE_UP: list[str] = []
NEAR_MISS_FOR = "P002"      # stays, confirms, corrects nothing: their one digest stands in the findings


def near_miss_digest(req) -> dict | None:  # noqa: ANN001
    """P002's digest quotes their last answer with one word changed (a scripted near miss); any other participant's
    is the double's own (None). Digests run in the order interviews end, which a busy machine changes: CI once
    digested P001 first, whose digest is redone after the correction, and a near miss scripted on the first call
    was rightly gone from the findings."""
    if f"participant {NEAR_MISS_FOR}," not in req.prompt:
        return None
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
        opened = await study.execute_update(UPDATE_OPEN_LINK, opening(token_hash, language), result_type=OpenedLink)
        report = await rehearse(client, opened.interview_id, PersonaAnswers(
            client, opened.interview_id, "on-call", persona, task_queue=queue, max_turns=2),
            RehearsalOptions(fresh_question_timeout=15, poll_seconds=0.1, start_timeout=60))
        assert report.turns == 2 and report.closed_by_client, report


async def _abandoning(client, study, token_hash: str) -> str:  # noqa: ANN001
    """Opens the link, turns presence on, answers the first question, then is gone."""
    opened = await study.execute_update(UPDATE_OPEN_LINK, opening(token_hash, "es"), result_type=OpenedLink)
    h = client.get_workflow_handle(opened.interview_id)
    await h.execute_update(UPDATE_HEARTBEAT, Heartbeat(client_id="p009-tab"), result_type=SessionState)
    deadline = time.monotonic() + 30
    while not (s := await h.query(QUERY_SESSION_STATE, result_type=SessionState)).next_question:
        assert time.monotonic() < deadline, "no first question for P009"
        await asyncio.sleep(0.1)
    await h.execute_update(UPDATE_SUBMIT_ENTRY, TranscriptEntry(entry_id="q1", speaker="interviewer",
                                                                text=s.next_question), result_type=SubmitEntryResult)
    await h.execute_update(UPDATE_SUBMIT_ENTRY, TranscriptEntry(entry_id="a1", speaker="interviewee",
                                                                text="Tengo que irme, el bebé se ha despertado."),
                           result_type=SubmitEntryResult)
    return opened.interview_id


async def _axe(page, what: str) -> None:  # noqa: ANN001
    """axe-core's WCAG 2 A/AA rules on the page as shown: no violation."""
    if not AXE.is_file():
        return
    await page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    passed, found = await page.evaluate("""async () => {
        const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a',
                                                                           'wcag21aa']}});
        return [r.passes.length, r.violations.map(
            v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).slice(0, 3).join(', '))]; }""")
    assert found == [] and passed >= 5, f"axe-core on {what}: {found} ({passed} rules passed)"
    AXED.append(what)


async def _until(study, check, timeout: float = 90.0) -> dict[str, ParticipantView]:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while True:
        ledger = {p.participant_id: p for p in await study.query(QUERY_PARTICIPANTS,
                                                                  result_type=list[ParticipantView])}
        if check(ledger):
            return ledger
        assert time.monotonic() < deadline, {k: v.status for k, v in ledger.items()}
        await asyncio.sleep(0.3)


async def test_a_rehearsed_study_of_ten_participants_in_three_languages(dev_env, worker, offline, tmp_path: Path,
                                                                      monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    offline.script("study_digest", *[near_miss_digest] * 12)      # 8 digests, 1 redone, a margin
    client = dev_env.client
    conn = ["--address", client.service_client.config.target_host]
    wall = time.monotonic()
    marks: dict[str, float] = {}

    def mark(name: str) -> None:
        marks[name] = round(time.monotonic() - wall, 1)

    async with worker(client) as queue:
        sid = f"study-e2e-{uuid.uuid4().hex[:6]}"
        study = await start_study(client, queue, sid, quota=100, interview_seconds=300, cycle_seconds=1,
                                  presence_timeout_seconds=2, abandon_after_seconds=2, check_seconds=0.5,
                                  languages=["de", "fr", "es"], theme_batch=5, review=True)
        people = await invite(study, 10)
        hashes = {pid: __import__("hashlib").sha256(t.encode()).hexdigest() for pid, t in people}
        links = dict(people)
        cast = personas()
        gate = asyncio.Semaphore(6)
        langs = {2: "fr", 3: "es", 4: "de", 5: "fr", 6: "es", 7: "de", 8: "fr", 10: "fr"}
        weights = {2: 0, 3: 0, 4: 0, 5: 1, 6: 1, 7: 2, 8: 3, 10: 0}
        rehearsals: asyncio.Future | None = None
        runner, base = await _serve(client)
        try:
            async with playwright_api.async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                try:
                    # the researcher reviews and approves the plan: the links open
                    ctx = await browser.new_context(bypass_csp=True)
                    researcher = await ctx.new_page()
                    await researcher.goto(f"{base}/studies/{sid}")
                    await researcher.locator("input[name=token]").fill(TOKEN)
                    await researcher.keyboard.press("Enter")
                    await researcher.wait_for_url(f"{base}/studies/{sid}")
                    await playwright_api.expect(researcher.locator("#plan-state")).to_contain_text("waiting")
                    german_ctx = await browser.new_context(locale="de-DE", bypass_csp=True)
                    page = await german_ctx.new_page()
                    shut = await page.goto(f"{base}/study/{sid}/join/{links['P001']}")
                    assert shut is not None and shut.status == 409
                    await _axe(researcher, "the researcher page (plan review)")
                    await researcher.locator("#plan-approve").click()
                    await playwright_api.expect(researcher.locator("#plan-state")).to_contain_text("approved")
                    mark("approved")

                    rehearsals = asyncio.gather(*(
                        _rehearsed(client, queue, study, hashes[f"P{n:03d}"], langs[n], cast[weights[n]], gate)
                        for n in langs))
                    abandoned_iid = await _abandoning(client, study, hashes["P009"])

                    # P001: the page in German, consent, the interview room
                    await page.goto(f"{base}/study/{sid}/join/{links['P001']}")
                    assert await page.locator("html").get_attribute("lang") == "de"
                    await playwright_api.expect(page.locator("#length")).to_contain_text("etwa 5 Minuten")
                    await playwright_api.expect(page.locator("#start")).to_have_text("Interview starten")
                    await _axe(page, "the start page")
                    await page.locator("#consent").check()
                    await page.locator("#start").click()
                    await page.wait_for_url(f"{base}/room/**")
                    question = page.locator("#question")
                    await playwright_api.expect(question).to_contain_text(LABEL, timeout=30_000)
                    first = await question.text_content()
                    for n, answer in enumerate(GERMAN):
                        await page.locator("#answer").fill(answer)
                        await page.locator("#send").click()
                        # the room speaks the participant's German: "angekommen" (delivered), class `sent`
                        await playwright_api.expect(page.locator("#sent li").nth(n)).to_contain_text(
                            "angekommen", timeout=15_000)
                        await playwright_api.expect(page.locator("#sent li").nth(n)).to_have_class("sent")
                        if n == 0:
                            await playwright_api.expect(question).not_to_have_text(first or "", timeout=30_000)
                    p001 = client.get_workflow_handle(f"{sid}--P001")
                    await p001.execute_update(UPDATE_SUBMIT_ENTRY, TranscriptEntry(
                        entry_id="close", speaker="interviewer", text="Thank you so much for your time and for "
                        "sharing all of this. This has been a wonderful conversation."), result_type=SubmitEntryResult)
                    await playwright_api.expect(page.locator("#banner")).to_contain_text("Das Interview ist beendet", timeout=20_000)
                    await rehearsals
                    await _until(study, lambda ps: all(ps[f"P{n:03d}"].status == "completed" for n in (1, 2, 10))
                                 and ps["P009"].status == "abandoned")

                    mark("interviews done")
                    # member checking: P001 corrects an answer, P002 confirms, P010 withdraws
                    await page.goto(f"{base}/study/{sid}/join/{links['P001']}")
                    await playwright_api.expect(page.locator("#transcript")).to_contain_text(GERMAN[0])
                    await _axe(page, "the member-checking page")
                    form = page.locator("form.correct").first
                    await form.locator("textarea").fill("Eigentlich war es Absicht, nicht Zufall.")
                    await form.locator("button").click()
                    await playwright_api.expect(page.locator(".correction").first).to_contain_text(
                        "Eigentlich war es Absicht", timeout=15_000)
                    await playwright_api.expect(page.locator("#transcript")).to_contain_text(GERMAN[0])
                    other = await browser.new_page()
                    await other.goto(f"{base}/study/{sid}/join/{links['P002']}?lang=fr")
                    await other.locator("#confirm").click()
                    await playwright_api.expect(other.locator("#check-status")).to_contain_text("confirmé",
                                                                                                timeout=15_000)
                    await other.goto(f"{base}/study/{sid}/join/{links['P010']}")
                    other.on("dialog", lambda d: asyncio.ensure_future(d.accept()))
                    await other.locator("#withdraw").click()
                    await playwright_api.expect(other.locator("#refused")).to_contain_text("retiré", timeout=15_000)

                    mark("member checks")
                    await study.execute_update(UPDATE_CLOSE, CloseStudy(reason="enough interviews"))
                    await playwright_api.expect(researcher.locator("body")).to_have_attribute("data-phase", "done",
                                                                                                timeout=120_000)
                    await playwright_api.expect(researcher.locator("#n-completed")).to_have_text("8")
                    await playwright_api.expect(researcher.locator("#n-abandoned")).to_have_text("1")
                    await playwright_api.expect(researcher.locator("#n-withdrawn")).to_have_text("1")
                    await playwright_api.expect(researcher.locator("#p-P010")).to_have_attribute("data-status",
                                                                                                 "withdrawn")
                    mark("analysed")
                    # theme editing: a rename re-renders the findings and the report (no model runs again)
                    await researcher.locator("#edit-action").select_option("rename")
                    await researcher.locator("#edit-theme").select_option("Getting into on-call")
                    await researcher.locator("#edit-title").fill("How people came to on-call")
                    await researcher.locator("#edit-apply").click()
                    await playwright_api.expect(researcher.locator("#themes tbody")).to_contain_text(
                        "How people came to on-call", timeout=10_000)
                    await _axe(researcher, "the researcher page (done)")
                    await researcher.screenshot(path=str(tmp_path / "researcher.png"), full_page=True)
                    href = await researcher.locator("#report-link").get_attribute("href")
                    report_page = await ctx.new_page()     # signed in (the cookie)
                    shown = await report_page.goto(base + str(href))
                    assert shown is not None and shown.status == 200
                    await playwright_api.expect(report_page.locator("#coverage")).to_be_visible()
                    await playwright_api.expect(report_page.locator("#themes")).to_contain_text(
                        "How people came to on-call")
                    await _axe(report_page, "report.html")
                finally:
                    await browser.close()
        finally:
            await runner.cleanup()
            if rehearsals is not None and not rehearsals.done():
                rehearsals.cancel()
        result = await study.result()
        progress = await study.query(QUERY_PROGRESS, result_type=StudyProgress)
        ledger = {p.participant_id: p for p in await study.query(QUERY_PARTICIPANTS,
                                                                  result_type=list[ParticipantView])}
        mark("pages")
        exported = {}
        for fmt in ("csv", "xlsx", "qdpx", "transcripts"):
            out = tmp_path / f"export.{fmt}"
            code, said = await cli("export", sid, "--format", fmt, "--out", str(out), "--task-queue", queue, *conn)
            assert code == 0, said
            exported[fmt] = out
        mark("exports")
        history = await study.fetch_history()
        await replay(study)
    wall = time.monotonic() - wall

    assert result.status == "completed" and result.completed == 8 and result.abandoned == 1, result
    assert progress.withdrawn == 1 and progress.languages == {"de": 3, "es": 3, "fr": 3}, progress
    assert ledger["P009"].status == "abandoned" and ledger["P009"].interview_id == abandoned_iid
    assert ledger["P009"].length_seconds is not None and ledger["P009"].length_seconds >= 2
    assert all(ledger[f"P{n:03d}"].consented_at is not None for n in range(1, 11))
    assert ledger["P001"].corrections == 1 and ledger["P002"].checked and ledger["P010"].status == "withdrawn"

    assert result.outputs is not None
    findings = Findings.model_validate_json(store().get(result.outputs.findings_json))
    html = store().get(result.outputs.report_html)
    md = store().get(result.outputs.findings_md)
    mc = findings.member_checking
    assert (mc.checked, mc.corrected, mc.withdrew) == (2, 1, 1)
    assert {c.language for c in findings.consent} == {"de", "fr", "es"} and sum(c.participants for c in
                                                                                findings.consent) == 9
    assert all("P010" not in t.participants for t in findings.themes) and findings.completed == 8
    origin = next(t for t in findings.themes if t.title == "Getting into on-call")
    assert origin.count == 8
    quotes = [q for t in findings.themes for q in t.quotes]
    assert quotes and all(q.verified for q in quotes)
    for q in quotes:
        entries = json.loads(store().get(q.transcript))  # type: ignore[arg-type]
        said = [e["text"] for e in entries if e["speaker"] == "interviewee"]
        if q.corrected:      # the participant's correction replaced the answer for analysis (issue 36 item 2)
            said = ["Eigentlich war es Absicht, nicht Zufall."]
        assert check_quote(q.text, said).verified
        assert f"“{q.text}”" in md
    corrected = [q for q in quotes if q.corrected]    # the correction is quoted in its new words, marked
    assert [q.text for q in corrected] == ["Eigentlich war es Absicht, nicht Zufall."]
    assert "corrected by the participant" in md
    assert len(MADE_UP) == 1, MADE_UP
    near_miss = MADE_UP[0]
    flagged = [q for q in findings.flagged_quotes if q.text == near_miss]
    assert flagged and flagged[0].check == "near_miss" and "1 word differs" in flagged[0].flag
    assert f"“{near_miss}”" not in md and f"“{near_miss}”" not in html and near_miss in md
    assert "<svg" in html and "<main>" in html and "Member checking" in html

    # the exports: tables, transcripts (the correction beside the original), a valid REFI-QDA project
    quotes_csv = (exported["csv"] / "quotes.csv").read_text(encoding="utf-8")
    assert "participant,language,quote,translation" in quotes_csv.splitlines()[0].replace("theme,", "")
    assert (exported["xlsx"]).read_bytes()[:2] == b"PK"
    p001 = (exported["transcripts"] / "P001.txt").read_text(encoding="utf-8")
    assert GERMAN[0] in p001 and "Eigentlich war es Absicht" in p001 and "Consent: given" in p001
    assert not (exported["transcripts"] / "P010.txt").exists()
    lxml_etree = pytest.importorskip("lxml.etree")
    with __import__("zipfile").ZipFile(exported["qdpx"]) as z:
        doc = lxml_etree.fromstring(z.read("project.qde"))
    schema = lxml_etree.XMLSchema(lxml_etree.parse(str(XSD)))
    assert schema.validate(doc), schema.error_log
    ns = {"q": "urn:QDA-XML:project:1.0"}
    assert len(doc.findall(".//q:TextSource", ns)) == 8 and doc.findall(".//q:PlainTextSelection", ns)
    assert history is not None
    print(f"\n10-participant study: {wall:.1f}s wall ({marks}), {len(history.events)} events, analysis "
          f"{result.analysis_seconds:.1f}s, axe-core on {len(AXED)} pages" if AXED else
          ", axe-core skipped (npm install puts it in node_modules/)")
