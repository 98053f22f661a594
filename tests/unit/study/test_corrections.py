"""Issue 36, item 2: a participant's correction (the read-back page) is their words. The analysis reads the
corrected answer (rules/study/corrections.py): quotes are checked against it and marked `corrected` in the report
(findings.md, report.html), the CSV/XLSX quotes table (a column) and the .qdpx project (the selection's
description); a quote in the words the participant replaced is neither quoted nor listed as flagged; the page says
which answer's correction was saved."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from activities.artifacts import store
from activities.study.storage import _ground
from client.study.export import write_export
from models.common import ArtifactRef
from models.interview.entries import TranscriptEntry
from models.study.workflow import (
    Correction,
    FindingQuote,
    Findings,
    LinkView,
    MemberCheckView,
    Theme,
)
from rules.grounding import check_quote
from rules.study import qdpx
from rules.study.corrections import corrected_entries
from rules.study.report import to_html, to_markdown
from tests.unit.study.test_exports import XSD, study
from tests.unit.study.test_participant_pages import FakeStudy, _client

NOW = datetime(2026, 11, 26, 12, tzinfo=UTC)
SAID = "Ich habe nachts den Pager beantwortet."
MEANT = "Eigentlich tagsüber."
ENTRIES = [TranscriptEntry(entry_id="q1", speaker="interviewer", text="Wie kam es dazu?"),
           TranscriptEntry(entry_id="a1", speaker="interviewee", text=SAID),
           TranscriptEntry(entry_id="q2", speaker="interviewer", text="Und dann?"),
           TranscriptEntry(entry_id="a2", speaker="interviewee", text="Dann kam der Alarm.")]


def _put(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ArtifactRef:
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    return store().put("s", "transcript-P001.json", json.dumps([e.model_dump(mode="json") for e in ENTRIES]),
                       "application/json")


def _findings(ref: ArtifactRef, *texts: str) -> Findings:
    return Findings(study_id="s", topic="t", themes=[Theme(title="Origins", participants=["P001"], count=1, quotes=[
        FindingQuote(participant_id="P001", text=t, language="de", transcript=ref) for t in texts])])


# ------------------------------------------------------------------------------------------------ analysis
def test_the_corrected_answer_replaces_the_original_for_the_analysis_only():
    fixed, changed = corrected_entries(ENTRIES, [Correction(entry_id="a1", text="first try"),
                                                 Correction(entry_id="a1", text=MEANT),
                                                 Correction(entry_id="q2", text="not an answer")])
    assert [e.text for e in fixed] == ["Wie kam es dazu?", MEANT, "Und dann?", "Dann kam der Alarm."]
    assert changed == {"a1"} and ENTRIES[1].text == SAID        # the latest wins; the transcript is untouched


def test_a_quote_of_the_correction_is_verified_and_marked_corrected(tmp_path, monkeypatch):
    ref = _put(tmp_path, monkeypatch)
    f = _findings(ref, MEANT, "Dann kam der Alarm.")
    _ground(f, {"P001": [Correction(entry_id="a1", text=MEANT, at=NOW)]})
    [corrected, other] = f.themes[0].quotes
    assert corrected.verified and corrected.corrected and corrected.entry_id == "a1"
    assert other.verified and not other.corrected and other.entry_id == "a2"
    assert not f.flagged_quotes


def test_the_words_a_participant_replaced_are_neither_quoted_nor_flagged(tmp_path, monkeypatch):
    ref = _put(tmp_path, monkeypatch)
    f = _findings(ref, SAID)
    _ground(f, {"P001": [Correction(entry_id="a1", text=MEANT, at=NOW)]})
    assert f.themes[0].quotes == [] and f.flagged_quotes == []


# ------------------------------------------------------------------------------------------------- exports
def _corrected_study():
    f, ledger, entries = study()
    f.themes[0].quotes[0].text, f.themes[0].quotes[0].corrected = "Eigentlich tagsüber.", True
    return f, ledger, entries


def test_the_report_marks_a_corrected_quote():
    f, _, entries = _corrected_study()
    md = to_markdown(f)
    assert "> “Eigentlich tagsüber.” [de] — P001 *(corrected by the participant)*" in md
    html = to_html(f, {"P001": corrected_entries(entries["P001"], [Correction(entry_id="a1", text=MEANT)])[0]},
                   {"P001": {"a1"}})
    assert '“Eigentlich tagsüber.”</span> — <a href="#t-P001">P001</a> <em class="corrected">(corrected by the ' \
           'participant)</em>' in html
    assert f'id="t-P001-a1"><b>P001</b>: {MEANT} <em class="corrected">' in html


def test_csv_and_xlsx_have_a_corrected_column(tmp_path):
    from openpyxl import load_workbook

    f, ledger, entries = _corrected_study()
    write_export("csv", tmp_path / "csv", f, ledger, entries)
    rows = list(csv.DictReader(io.StringIO((tmp_path / "csv" / "quotes.csv").read_text(encoding="utf-8"))))
    assert rows[0]["quote"] == MEANT and rows[0]["corrected"] == "True" and rows[1]["corrected"] == "False"
    write_export("xlsx", tmp_path / "s.xlsx", f, ledger, entries)
    sheet = load_workbook(tmp_path / "s.xlsx")["quotes"]
    head = [c.value for c in sheet[1]]
    assert sheet.cell(2, head.index("corrected") + 1).value is True


def test_the_qdpx_selection_is_the_correction_and_says_so(tmp_path):
    lxml_etree = pytest.importorskip("lxml.etree", reason="pip install lxml (dev extra)")
    f, ledger, entries = _corrected_study()
    write_export("qdpx", tmp_path / "s.qdpx", f, ledger, entries, NOW)
    with zipfile.ZipFile(tmp_path / "s.qdpx") as z:
        doc = lxml_etree.fromstring(z.read("project.qde"))
    schema = lxml_etree.XMLSchema(lxml_etree.parse(str(XSD)))
    assert schema.validate(doc), schema.error_log
    ns = {"q": qdpx.NS}
    [source] = [s for s in doc.findall(".//q:TextSource", ns) if s.get("name") == "P001"]
    content = source.find("q:PlainTextContent", ns).text
    [sel] = source.findall("q:PlainTextSelection", ns)
    assert content[int(sel.get("startPosition")):int(sel.get("endPosition"))] == MEANT
    assert sel.find("q:Description", ns).text == qdpx.CORRECTED_NOTE + "\nI answered the pager."


# --------------------------------------------------------------------------------------------------- page
def _view(ref: ArtifactRef, checked: datetime | None) -> MemberCheckView:
    return MemberCheckView(status="completed", participant_id="P001", language="de", transcript=ref,
                           checked_at=checked, corrections=[Correction(entry_id="a2", text="Kein Alarm.", at=NOW)])


@pytest.mark.parametrize(("lang", "says"), [
    ("en", "Your correction to answer 2 was saved; the analysis will use your words."),
    ("de", "Ihre Korrektur zu Antwort 2 wurde gespeichert; die Auswertung verwendet Ihre Worte."),
    ("ja", "回答2への訂正を保存しました。")])
async def test_the_page_says_which_correction_was_saved(tmp_path, monkeypatch, lang, says):
    ref = _put(tmp_path, monkeypatch)
    http = await _client(FakeStudy(LinkView(status="completed", participant_id="P001", language=lang),
                                   _view(ref, NOW)))      # a first correction also marks the transcript read back
    try:
        page = await (await http.get(f"/study/s/join/tok?lang={lang}", headers={"Accept-Language": lang})).text()
        assert says in page and "You confirmed" not in page
    finally:
        await http.close()


async def test_confirming_after_a_correction_says_confirmed(tmp_path, monkeypatch):
    ref = _put(tmp_path, monkeypatch)
    http = await _client(FakeStudy(LinkView(status="completed", participant_id="P001", language="en"),
                                   _view(ref, NOW + timedelta(minutes=1))))
    try:
        page = await (await http.get("/study/s/join/tok?lang=en")).text()
        assert "You confirmed your answers on" in page and "Your correction to answer" not in page
    finally:
        await http.close()


# --------------------------------------------------------------------------------------------- property
@settings(max_examples=60, deadline=None)
@given(said=st.lists(st.text(min_size=3, max_size=40).filter(str.strip), min_size=1, max_size=4),
       fixes=st.lists(st.tuples(st.integers(0, 3), st.text(min_size=1, max_size=40).filter(str.strip)), max_size=5))
def test_a_corrected_answer_is_never_quoted_in_its_original_words(said, fixes):
    """Property: whatever was said and corrected, the answers the analysis checks quotes against never hold a
    corrected answer's original words — unless the correction repeats them (then they are still the
    participant's words)."""
    entries = [TranscriptEntry(entry_id=f"a{i}", speaker="interviewee", text=t) for i, t in enumerate(said)]
    corrections = [Correction(entry_id=f"a{i}", text=t) for i, t in fixes]
    fixed, changed = corrected_entries(entries, corrections)
    assert {e.entry_id for e in fixed if e.text != next(o.text for o in entries if o.entry_id == e.entry_id)} \
        <= changed
    texts = [e.text for e in fixed]
    theirs = [e.text for e in entries if e.entry_id not in changed] + [c.text.strip() for c in corrections]
    for e in entries:
        if e.entry_id in changed and check_quote(e.text, texts).verified:
            assert check_quote(e.text, theirs).verified, (e.text, texts)


def test_an_edited_report_shows_the_corrected_answers_too(tmp_path, monkeypatch):
    """The researcher's theme edit re-renders the report: its transcripts are the answers as corrected."""
    from client.web.study.themes import EDITED, _save

    ref = _put(tmp_path, monkeypatch)
    f = _findings(ref, MEANT)
    f.themes[0].quotes[0].verified, f.themes[0].quotes[0].corrected = True, True
    _save("s", f, {"P001": [Correction(entry_id="a1", text=MEANT, at=NOW)]})
    html = store().read_optional("s", EDITED["report"]) or ""
    assert f'id="t-P001-a1"><b>P001</b>: {MEANT} <em class="corrected">' in html and SAID not in html
