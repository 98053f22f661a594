"""The study's exports: CSV/XLSX tables (themes, quotes with participant, language, translation and the verified
flag, coverage, participants with consent), readable transcripts (corrections beside the answers), and the
REFI-QDA project (.qdpx) valid against the published Project.xsd (tests/fixtures/study/, source noted there);
`study invite --out` writes a header row."""

from __future__ import annotations

import csv
import io
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from client.study.cli import write_links
from client.study.export import write_export
from models.interview.entries import TranscriptEntry
from models.study.workflow import (
    ConsentRecord,
    Correction,
    FindingQuote,
    Findings,
    MemberChecking,
    ParticipantRecord,
    QuestionCoverage,
    StudyExport,
    Theme,
)
from rules.study import exports, qdpx

lxml_etree = pytest.importorskip("lxml.etree", reason="pip install lxml (dev extra)")
XSD = Path(__file__).parents[2] / "fixtures" / "study" / "Project.xsd"
NOW = datetime(2026, 11, 26, 12, tzinfo=UTC)


def _schema():
    return lxml_etree.XMLSchema(lxml_etree.parse(str(XSD)))


def study(answer: str = "Ich habe nachts den Pager beantwortet.", title: str = "Getting into on-call"):
    entries = {"P001": [TranscriptEntry(entry_id="q1", speaker="interviewer", text="Wie kam es dazu?"),
                        TranscriptEntry(entry_id="a1", speaker="interviewee", text=answer)],
               "P002": [TranscriptEntry(entry_id="q1", speaker="interviewer", text="How did it start?"),
                        TranscriptEntry(entry_id="a1", speaker="interviewee", text="=By accident, really.")]}
    quote = FindingQuote(participant_id="P001", text=answer, language="de", translation="I answered the pager.",
                         verified=True, check="verbatim")
    f = Findings(study_id="study-x", topic="On-call <&> \"teams\"", completed=2, themes=[
        Theme(title=title, description="How people started", participants=["P001", "P002"], count=2,
              quotes=[quote])],
        coverage=[QuestionCoverage(question_id="q-origin", text="How did it start?", interviews=2, asked=2,
                                   answered=2, depth={"none": 0, "shallow": 2, "adequate": 0, "deep": 0})],
        flagged_quotes=[FindingQuote(participant_id="P002", text="made up", check="not_found", flag="not found")],
        member_checking=MemberChecking(checked=1, corrected=1, withdrew=1))
    consent = ConsentRecord(language="de", sha256="a" * 64, at=NOW)
    ledger = StudyExport(study_id="study-x", topic=f.topic, consent={"de": "Ich stimme zu."}, participants=[
        ParticipantRecord(participant_id="P001", language="de", status="completed", consent=consent, started_at=NOW,
                          length_seconds=300, corrections=[Correction(entry_id="a1", text="Eigentlich tagsüber.",
                                                                      at=NOW)]),
        ParticipantRecord(participant_id="P002", language="en", status="completed", consent=consent),
        ParticipantRecord(participant_id="P003", language="fr", status="withdrawn")])
    return f, ledger, entries


def test_tables_csv_and_xlsx(tmp_path):
    from openpyxl import load_workbook

    f, ledger, entries = study()
    written = write_export("csv", tmp_path / "csv", f, ledger, entries)
    assert sorted(p.name for p in written) == ["coverage.csv", "participants.csv", "quotes.csv", "themes.csv"]
    quotes = list(csv.DictReader(io.StringIO((tmp_path / "csv" / "quotes.csv").read_text(encoding="utf-8"))))
    assert quotes[0]["participant"] == "P001" and quotes[0]["language"] == "de" and quotes[0]["verified"] == "True"
    assert quotes[0]["translation"] == "I answered the pager." and quotes[1]["verified"] == "False"
    people = list(csv.DictReader((tmp_path / "csv" / "participants.csv").open(encoding="utf-8")))
    assert people[0]["consent_sha256"] == "a" * 64 and people[2]["status"] == "withdrawn"
    write_export("xlsx", tmp_path / "s.xlsx", f, ledger, entries)
    wb = load_workbook(tmp_path / "s.xlsx")
    assert wb.sheetnames == ["themes", "quotes", "coverage", "participants"]
    assert wb["quotes"]["D2"].value == "Ich habe nachts den Pager beantwortet." and wb["coverage"]["A2"].value == "q-origin"


def test_transcripts_keep_the_original_beside_the_correction(tmp_path):
    f, ledger, entries = study()
    written = write_export("transcripts", tmp_path / "tx", f, ledger, entries)
    assert [p.name for p in written] == ["P001.txt", "P002.txt"]      # the withdrawn P003 has none
    text = (tmp_path / "tx" / "P001.txt").read_text(encoding="utf-8")
    assert "P001: Ich habe nachts den Pager beantwortet." in text
    assert "[corrected by the participant" in text and "Eigentlich tagsüber." in text and "sha256:" + "a" * 64 in text


def test_the_qdpx_project_validates_against_the_refi_qda_schema(tmp_path):
    f, ledger, entries = study()
    write_export("qdpx", tmp_path / "s.qdpx", f, ledger, entries, NOW)
    with zipfile.ZipFile(tmp_path / "s.qdpx") as z:
        xml = z.read("project.qde")
    doc = lxml_etree.fromstring(xml)
    schema = _schema()
    assert schema.validate(doc), schema.error_log
    ns = {"q": qdpx.NS}
    [source] = [s for s in doc.findall(".//q:TextSource", ns) if s.get("name") == "P001"]
    content = source.find("q:PlainTextContent", ns).text
    [sel] = source.findall("q:PlainTextSelection", ns)
    assert content[int(sel.get("startPosition")):int(sel.get("endPosition"))] == f.themes[0].quotes[0].text
    code = doc.find(".//q:Code", ns)
    assert sel.find("q:Coding/q:CodeRef", ns).get("targetGUID") == code.get("guid")
    assert code.get("name") == "Getting into on-call"
    assert len(doc.findall(".//q:TextSource", ns)) == 2


@settings(max_examples=25, deadline=None)
@example(answer="0", title="\x08")            # found by Hypothesis: a control character broke the XML
@example(answer="line one\r\nline two", title="t")
@given(answer=st.text(min_size=1, max_size=80).filter(str.strip),
       title=st.text(min_size=1, max_size=40).filter(str.strip))
def test_any_text_makes_a_valid_project_with_the_quote_at_its_position(answer, title):
    """Property: whatever the participants said and the themes are called (markup, quotes, any script), the
    project validates and each selection's positions cut the quote out of its source's text."""
    f, ledger, entries = study(answer, title)
    texts = exports.transcripts(ledger, entries)
    xml = qdpx.project_xml(f, ledger, texts, NOW)
    doc = lxml_etree.fromstring(xml)
    assert _schema().validate(doc)
    ns = {"q": qdpx.NS}
    for source in doc.findall(".//q:TextSource", ns):
        content = source.find("q:PlainTextContent", ns).text
        for sel in source.findall("q:PlainTextSelection", ns):
            assert content[int(sel.get("startPosition")):int(sel.get("endPosition"))] == qdpx.xml_safe(answer)


def test_invite_links_file_has_one_header_row(tmp_path):
    out = tmp_path / "links.csv"
    write_links(out, [("P001", "http://x/study/s/join/a")])
    write_links(out, [("P002", "http://x/study/s/join/b")])
    rows = list(csv.reader(out.open(encoding="utf-8")))
    assert rows == [["participant", "link"], ["P001", "http://x/study/s/join/a"], ["P002", "http://x/study/s/join/b"]]
