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
    ConsentVersion,
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
            # the quote as the transcript holds it: its further lines indented (no forged speaker line)
            assert content[int(sel.get("startPosition")):int(sel.get("endPosition"))] == \
                qdpx.xml_safe(exports.continued(answer))


def test_invite_links_file_has_one_header_row(tmp_path):
    out = tmp_path / "links.csv"
    write_links(out, [("P001", "http://x/study/s/join/a")])
    write_links(out, [("P002", "http://x/study/s/join/b")])
    rows = list(csv.reader(out.open(encoding="utf-8")))
    assert rows == [["participant", "link"], ["P001", "http://x/study/s/join/a"], ["P002", "http://x/study/s/join/b"]]


# ------------------------------------------------------------------ issue 36, item 5: the exports' smaller defects
def test_csv_has_a_bom_and_guards_every_formula_lead_owasp(tmp_path):
    """Excel reads a CSV without a BOM as the locale's code page (ja/ar/es garbled); OWASP's CSV injection list is
    = + - @ TAB CR."""
    f, ledger, entries = study()
    f.themes[0].description = "\tcmd"
    f.themes[0].quotes[0].translation = "\r=1+1"
    write_export("csv", tmp_path / "csv", f, ledger, entries)
    raw = (tmp_path / "csv" / "themes.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    themes = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert themes[0]["description"] == "'\tcmd"
    quotes = list(csv.DictReader((tmp_path / "csv" / "quotes.csv").open(encoding="utf-8-sig", newline="")))
    assert quotes[0]["translation"] == "'\r=1+1"
    assert [q["quote"] for q in quotes if q["participant"] == "P001"][0] == "Ich habe nachts den Pager beantwortet."


def test_xlsx_keeps_text_verbatim_as_strings_and_dates_as_dates(tmp_path):
    from openpyxl import load_workbook

    f, ledger, entries = study()
    f.themes[0].description = "=HYPERLINK(\"http://x\")"
    write_export("xlsx", tmp_path / "s.xlsx", f, ledger, entries)
    wb = load_workbook(tmp_path / "s.xlsx")
    cell = wb["themes"]["B2"]
    assert cell.value == "=HYPERLINK(\"http://x\")" and cell.data_type == "s"      # verbatim, never a formula
    started = wb["participants"]["D2"]
    assert started.is_date and started.value == NOW.replace(tzinfo=None)


def test_a_multi_line_answer_cannot_forge_a_speaker_line(tmp_path):
    answer = "Fine.\nInterviewer: And did you lie?\r\nP001: Yes.\u2028P002: me too"
    f, ledger, entries = study(answer)
    text = exports.transcripts(ledger, entries)["P001"]
    speakers = [line.split(":")[0] for line in text.splitlines()[text.splitlines().index(""):] if line
                and not line[0].isspace()]
    assert speakers == ["Interviewer", "P001"]            # one question, one answer: the rest is indented
    assert "P001: Fine.\n    Interviewer: And did you lie?\n    P001: Yes.\n    P002: me too" in text


def test_a_multi_line_quote_is_still_selected_in_the_qdpx_source():
    answer = "Fine.\nInterviewer: And did you lie?"
    f, ledger, entries = study(answer)
    doc = lxml_etree.fromstring(qdpx.project_xml(f, ledger, exports.transcripts(ledger, entries), NOW))
    assert _schema().validate(doc)
    ns = {"q": qdpx.NS}
    [source] = [s for s in doc.findall(".//q:TextSource", ns) if s.get("name") == "P001"]
    content = source.find("q:PlainTextContent", ns).text
    assert not any(line.startswith("Interviewer: And") for line in content.splitlines())
    [sel] = source.findall("q:PlainTextSelection", ns)
    assert content[int(sel.get("startPosition")):int(sel.get("endPosition"))] == exports.continued(answer)


def test_one_participant_is_one_participant():
    from rules.study.report import to_markdown

    f, ledger, _ = study()
    f.member_checking = MemberChecking(checked=1, corrected=1, withdrew=1)
    f.consent = [ConsentVersion(language="de", sha256="a" * 64, participants=1)]
    md = to_markdown(f)
    assert "1 participant read back" in md and "1 participants" not in md
    xml = qdpx.project_xml(f, ledger, {}, NOW).decode()
    assert ": 1 participant\n" in xml or ": 1 participant<" in xml
    assert "1 participants" not in xml
    from rules.study.report import to_html

    page = to_html(f)
    assert "1 participant agreed" in page and "participant(s)" not in page


@settings(max_examples=25, deadline=None)
@example(answer="=1+2", title="@SUM(A1)")
@example(answer="beep\x07", title="t")          # a control character: openpyxl refuses it in a cell
@given(answer=st.text(min_size=1, max_size=60).filter(str.strip), title=st.text(min_size=1, max_size=30).filter(str.strip))
def test_any_text_round_trips_through_xlsx_as_text(tmp_path_factory, answer, title):
    """Property: whatever a quote or a theme says, the workbook is written and each reads back as the same text
    (a character a worksheet cannot hold as U+FFFD), a string cell, never a formula."""
    from openpyxl import load_workbook

    f, ledger, entries = study(answer, title)
    out = tmp_path_factory.mktemp("x") / "s.xlsx"
    write_export("xlsx", out, f, ledger, entries)
    ws = load_workbook(out)["quotes"]
    assert ws["A2"].data_type == "s" and ws["D2"].data_type == "s"
    assert _lines(ws["A2"].value) == _lines(exports.xlsx_text(title))
    assert _lines(ws["D2"].value) == _lines(exports.xlsx_text(answer))


def _lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")
