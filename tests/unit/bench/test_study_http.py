"""bench/study_http.py: the benchmark's participant does what a browser on the study pages does — reads the
consent form in their language, ticks it, and lands in the room the join post redirects to (the study is told the
consent text's language and hash that the page showed); after the interview, the read-back page counts as seen."""

from __future__ import annotations

import aiohttp

from bench.study_http import Browser, Visit, join, read_back
from models.study.workflow import UPDATE_OPEN_LINK, MemberCheckView
from rules.study import consent
from tests.unit.study.test_participant_pages import FakeStudy, _client, _invited


async def test_the_bench_participant_joins_as_the_page_asks():
    study = FakeStudy(_invited())
    http = await _client(study)
    try:
        async with aiohttp.ClientSession() as session:
            browser = Browser(session, str(http.make_url("")).rstrip("/"))
            visit = Visit(7, "de")
            room = await join(browser, "study-x", "tok", visit)
    finally:
        await http.close()
    assert visit.errors == []
    assert room is not None and room.startswith("/room/s--P001/") and room.endswith("?lang=de")
    assert visit.interview_id == "s--P001"
    [(name, opened)] = study.updates
    assert name == UPDATE_OPEN_LINK and opened.language == "de"
    shown_language, text = consent.text_for_texts(dict(consent.BUILT_IN), "de", "en")
    assert opened.consent.language == shown_language and opened.consent.sha256 == consent.sha256(text)


async def test_the_read_back_page_counts_and_a_refusal_says_what_the_link_answered():
    done = FakeStudy(_invited().model_copy(update={"status": "completed"}), MemberCheckView(status="completed"))
    gone = FakeStudy(_invited().model_copy(update={"status": "abandoned"}))
    for study, seen in ((done, True), (gone, False)):
        http = await _client(study)
        try:
            async with aiohttp.ClientSession() as session:
                visit = Visit(1, "en")
                await read_back(Browser(session, str(http.make_url("")).rstrip("/")), "study-x", "tok", visit,
                                limit_s=5, every=0.1)
        finally:
            await http.close()
        assert visit.read_back is seen
        assert (visit.errors == []) is seen
    assert visit.link_status == 410 and "This interview has ended." in visit.errors[0]
