"""The REFI-QDA project (`.qdpx`, the exchange standard NVivo, ATLAS.ti and MAXQDA import): a zip holding
`project.qde` in the `urn:QDA-XML:project:1.0` namespace —

    Users       one user: Colloquy (the coder of every selection)
    CodeBook    one code per theme (its description)
    Sources     one TextSource per participant: their readable transcript as PlainTextContent (rules/study/
                exports.py), with one PlainTextSelection per quote (start/end positions in characters of that
                text; a quote's further lines indented as there) coded with its theme (Coding/CodeRef); the translation goes in the selection's Description,
                after "Corrected by the participant…" for a quote taken from a corrected answer (its selection is
                the correction, printed beside the answer it corrects)
    Description the study's topic, research goal, member checking and consent versions

GUIDs are UUID5s of the study and the item, so the same findings export the same project.
Validated in tests against the published schema (tests/fixtures/study/Project.xsd).
"""

from __future__ import annotations

import io
import re
import uuid
import zipfile
from datetime import datetime
from xml.etree import ElementTree as ET

from models.study.workflow import Findings, StudyExport
from rules.study.words import continued, plural

NS = "urn:QDA-XML:project:1.0"
CORRECTED_NOTE = "Corrected by the participant when they read back their transcript: the quote is their correction"
# characters XML 1.0 cannot carry: replaced one for one (U+FFFD), so positions in a text stay the same; a CR
# becomes LF (a parser turns CRs into LFs, which would shift every position after one)
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_safe(text: str) -> str:
    return _ILLEGAL.sub("\ufffd", text.replace("\r", "\n"))


def _guid(study_id: str, *parts: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "colloquy:" + study_id + ":" + ":".join(parts)))


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    e = ET.SubElement(parent, f"{{{NS}}}{tag}", {k: xml_safe(v) for k, v in attrs.items() if v is not None})
    if text is not None:
        e.text = xml_safe(text)
    return e


def project_xml(f: Findings, ledger: StudyExport, texts: dict[str, str], now: datetime) -> bytes:
    ET.register_namespace("", NS)
    sid = f.study_id
    user = _guid(sid, "user")
    stamp = now.isoformat(timespec="seconds")
    root = ET.Element(f"{{{NS}}}Project", {"name": xml_safe(f"Colloquy study: {f.topic}"[:200]), "origin": "Colloquy",
                                            "creatingUserGUID": user, "creationDateTime": stamp})
    _el(_el(root, "Users"), "User", guid=user, name="Colloquy")
    codes = {t.title: _guid(sid, "theme", t.title) for t in f.themes}
    if f.themes:
        book = _el(_el(root, "CodeBook"), "Codes")
        for t in f.themes:
            code = _el(book, "Code", guid=codes[t.title], name=t.title, isCodable="true")
            if t.description:
                _el(code, "Description", t.description)
    if texts:
        sources = _el(root, "Sources")
        records = {p.participant_id: p for p in ledger.participants}
        for pid, text in sorted(texts.items()):
            src = _el(sources, "TextSource", guid=_guid(sid, "source", pid), name=pid, creatingUser=user,
                      creationDateTime=stamp)
            p = records.get(pid)
            if p is not None and p.consent is not None:
                _el(src, "Description", f"language {p.language}; consent {p.consent.at.isoformat()} "
                                        f"({p.consent.language}, sha256:{p.consent.sha256})")
            text = xml_safe(text)
            _el(src, "PlainTextContent", text)
            for n, (title, q) in enumerate((t.title, q) for t in f.themes for q in t.quotes
                                           if q.participant_id == pid and q.verified):
                quoted = xml_safe(continued(q.text))     # as the transcript text holds it (lines indented)
                start = text.find(quoted)
                if start < 0:
                    continue
                sel = _el(src, "PlainTextSelection", guid=_guid(sid, "quote", pid, str(n), title), name=title,
                          startPosition=str(start), endPosition=str(start + len(quoted)), creatingUser=user,
                          creationDateTime=stamp)
                about = [CORRECTED_NOTE] if q.corrected else []
                if q.translation:
                    about.append(q.translation)
                if about:
                    _el(sel, "Description", "\n".join(about))
                coding = _el(sel, "Coding", guid=_guid(sid, "coding", pid, str(n), title), creatingUser=user,
                             creationDateTime=stamp)
                _el(coding, "CodeRef", targetGUID=codes[title])
    mc = f.member_checking
    about = [f"Topic: {f.topic}", f"Research goal: {f.research_goal}" if f.research_goal else "",
             f"{plural(f.completed, 'completed interview')}; member checking: {mc.checked} checked, "
             f"{mc.corrected} corrected, {mc.withdrew} withdrew",
             *(f"Consent text {c.language} sha256:{c.sha256}: {plural(c.participants, 'participant')}"
               for c in f.consent)]
    _el(root, "Description", "\n".join(x for x in about if x))
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def to_qdpx(f: Findings, ledger: StudyExport, texts: dict[str, str], now: datetime) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("project.qde", project_xml(f, ledger, texts, now))
    return out.getvalue()
