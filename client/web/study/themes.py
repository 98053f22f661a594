"""Theme editing on the researcher page (signed in): rename, merge or split a theme of the final findings; the
findings, findings.md and report.html are re-rendered from the edited themes (rules/study/themes.py — no model
runs again) and kept beside the originals in the study's artifact folder (findings-edited.json, findings-edited.md,
report-edited.html): the originals stay as the analysis wrote them. The page and its report links show the edited
version once there is one.

    POST /api/studies/{sid}/themes     {action: rename|merge|split, theme, title, others, participants}
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from aiohttp import web
from temporalio.exceptions import ApplicationError

from client.web.guard import as_model, json_object
from models.common import ArtifactRef
from models.interview.entries import TranscriptEntry
from models.study.workflow import Correction, Findings, StudyOutputs
from rules.study.ledger import StudyError
from rules.study.themes import ThemeEdit, edit_themes

EDITED = {"findings.json": "findings-edited.json", "findings.md": "findings-edited.md",
          "report": "report-edited.html"}


def edited_text(sid: str, name: str) -> str | None:
    """The edited version of an output (None: the researcher has not edited the themes)."""
    from activities.artifacts import store

    try:  # either backend: the local folder or the shared object store
        return store().read_optional(sid, EDITED[name])
    except ApplicationError:
        return None


def current_findings(sid: str, outputs: StudyOutputs) -> Findings:
    from activities.artifacts import store

    text = edited_text(sid, "findings.json")
    return Findings.model_validate_json(text if text is not None else store().get(outputs.findings_json))


def _save(sid: str, f: Findings, corrections: Mapping[str, list[Correction]] | None = None) -> None:
    """`corrections`: participant id -> their corrections (the report's transcripts show the answers as
    corrected, as the analysis read them)."""
    from activities.artifacts import store
    from activities.interview.common import load_transcript
    from rules.study.corrections import corrected_entries
    from rules.study.report import to_html, to_markdown

    quoted: dict[str, ArtifactRef] = {q.participant_id: q.transcript for t in f.themes for q in t.quotes
                                      if q.verified and q.transcript}
    transcripts: dict[str, list[TranscriptEntry]] = {}
    corrected: dict[str, set[str]] = {}
    for pid, ref in quoted.items():
        transcripts[pid], corrected[pid] = corrected_entries(load_transcript(ref), (corrections or {}).get(pid, []))
    s = store()
    s.put(sid, EDITED["findings.md"], to_markdown(f), "text/markdown")
    s.put(sid, EDITED["report"], to_html(f, transcripts, corrected), "text/html")
    s.put(sid, EDITED["findings.json"], f.model_dump_json(indent=1), "application/json")   # last: marks it done


async def edit_theme(request: web.Request, outputs: StudyOutputs | None,
                     corrections: Mapping[str, list[Correction]] | None = None) -> web.Response:
    sid = request.match_info["sid"]
    edit = as_model(ThemeEdit, await json_object(request), "theme edit")
    if outputs is None:
        return web.json_response({"error": f"study {sid} has no final findings yet: themes can be edited after "
                                           "the analysis"}, status=409)
    try:
        f = await asyncio.to_thread(current_findings, sid, outputs)
        edited = edit_themes(f, edit)
        await asyncio.to_thread(_save, sid, edited, corrections)
    except StudyError as exc:
        return web.json_response({"error": str(exc)}, status=400)
    except ApplicationError as exc:
        return web.json_response({"error": f"the findings are not readable by this server: {exc}"}, status=404)
    return web.json_response({"findings": edited.model_dump(mode="json")})
