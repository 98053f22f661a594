"""`colloquy study`: one interview plan, many participants, findings across all of them (docs/study.md).

    colloquy study create "How teams run on-call" --goal "..." --quota 200 --close-in 7d --minutes 10
    colloquy study invite STUDY_ID --count 20 --language de      # prints one link per participant (shown once)
    colloquy study revoke STUDY_ID P007
    colloquy study erase STUDY_ID P007                          # delete a participant's data (their request)
    colloquy study status STUDY_ID
    colloquy study close STUDY_ID
    colloquy study report STUDY_ID --format html --out report.html
    colloquy study review STUDY_ID [--approve | --plan-file plan.json]   # a study created with --review
    colloquy study export STUDY_ID --format csv|xlsx|qdpx|transcripts --out DIR_OR_FILE

Links are `<serve base>/study/<study id>/join/<token>` (`colloquy serve` answers them). The token is made here and
printed once; the study keeps only its SHA-256, so a lost link cannot be printed again: revoke it, invite anew.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import UTC, datetime, timedelta
from pathlib import Path

import typer
from pydantic import ValidationError
from temporalio.client import WorkflowHandle

from client.common import console, run
from client.connection import NO_FLAGS, Connection, connects
from client.errors import EXIT_CODES_HELP, CliError, ExitCode
from client.study import coverage
from client.study import export as study_export
from client.study import review as study_review
from client.study.connect import study_handle, study_update
from client.web.i18n import PAGE_LANGUAGES
from client.web.voice.offered import voice_table
from models.interview.plan import PlanSnapshot
from models.study.workflow import (
    QUERY_PROGRESS,
    TASK_QUEUE,
    UPDATE_ADD_PARTICIPANTS,
    UPDATE_CLOSE,
    UPDATE_ERASE_PARTICIPANT,
    UPDATE_REVOKE_PARTICIPANT,
    WORKFLOW_TYPE,
    AddParticipants,
    CloseStudy,
    EraseParticipant,
    Invitation,
    ParticipantView,
    RevokeParticipant,
    StudyInput,
    StudyProgress,
)
from rules.voice.offered import MeasuredTableError

app = typer.Typer(help="Studies: one interview plan, many participants (links), findings across all of them.",
                  no_args_is_help=True, epilog=EXIT_CODES_HELP)
_SPAN = re.compile(r"^(\d+)([smhdw])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_span(text: str) -> timedelta:
    """'90m', '36h', '7d', '2w' → a timedelta."""
    m = _SPAN.match(text.strip())
    if not m:
        raise CliError(f"cannot read {text!r} as a time span: use e.g. 90m, 36h, 7d or 2w", ExitCode.USAGE)
    return timedelta(seconds=int(m.group(1)) * _UNITS[m.group(2)])


def new_token() -> tuple[str, str]:
    token = secrets.token_urlsafe(24)
    return token, hashlib.sha256(token.encode()).hexdigest()


def link_url(base: str, study_id: str, token: str) -> str:
    return f"{base.rstrip('/')}/study/{study_id}/join/{token}"


def default_base() -> str:
    from core.codec import serve_port

    return f"http://127.0.0.1:{serve_port()}"


_handle = study_handle


async def invite_participants(handle: WorkflowHandle, count: int, language: str | None,
                              base: str) -> list[tuple[ParticipantView, str]]:
    """Make `count` tokens, register their hashes with the study, return (participant, link)."""
    tokens = [new_token() for _ in range(count)]
    added: list[ParticipantView] = await study_update(
        handle, UPDATE_ADD_PARTICIPANTS, AddParticipants(invitations=[Invitation(token_sha256=h, language=language)
                                                                      for _, h in tokens]),
        list[ParticipantView], "it takes no new participants")
    return [(p, link_url(base, handle.id, t)) for p, (t, _) in zip(added, tokens, strict=True)]


@app.command("create")
@connects
def create_cmd(
    topic: str = typer.Argument(..., help="What the study's interviews are about."),
    goal: str = typer.Option("", "--goal", help="The research goal (the Planner's context; the findings' frame)."),
    plan_file: Path | None = typer.Option(None, "--plan-file", help="A plan (PlanSnapshot JSON) instead of the "
                                          "Planner's."),
    quota: int | None = typer.Option(None, help="Close after this many completed interviews."),
    close_in: str | None = typer.Option(None, "--close-in", help="Close after this long: 90m, 36h, 7d, 2w."),
    close_at: datetime | None = typer.Option(None, "--close-at", help="Close at this time (ISO 8601, UTC if no "
                                             "zone)."),
    minutes: float = typer.Option(10.0, help="Each interview's length in minutes."),
    language: str = typer.Option("en", help="The plan's language (participants may choose another)."),
    languages: str = typer.Option("", help="Languages participants may choose, comma-separated (default: the "
                                  "plan's and those the pages are translated into). Each needs a page catalog "
                                  "(en es fr de pt it nl ja zh ar hi sw) unless --english-pages."),
    english_pages: bool = typer.Option(False, "--english-pages", help="Accept languages without a page catalog: "
                                       "their join, consent, room and read-back pages are in English and say so."),
    analysis_language: str = typer.Option("en", help="The findings' language (translations beside quotes)."),
    abandon_after: float = typer.Option(600.0, help="Seconds a disconnected participant has before the interview "
                                        "is ended and counted abandoned."),
    review: bool = typer.Option(False, "--review", help="Show the plan and let you edit or approve it first: "
                                "links open only after approval (later: colloquy study review ID)."),
    consent_files: list[str] = typer.Option([], "--consent", help="The consent text for a language, LANG=FILE "
                                            "(repeat per language; default: the built-in texts)."),
    study_id: str | None = typer.Option(None, "--id", help="Workflow id (default study-<short id>)."),
    task_queue: str = typer.Option(TASK_QUEUE, envvar="COLLOQUY_TASK_QUEUE", help="Task queue of the workers."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Start a study (a quota, a close date, or both); prints its id, what each language gets (pages, consent,
    interviewer, voice) and what to do next."""
    from client.common import announce_agents
    from client.interview.calls import short_id
    from client.worker_check import warn_if_no_worker
    from rules.text import workflow_id as default_workflow_id

    announce_agents()  # the offline label, an unreachable provider (one rule, client/common.py)

    async def _run() -> None:
        if close_in and close_at:
            raise CliError("give --close-in or --close-at, not both", ExitCode.USAGE)
        closes = close_at.replace(tzinfo=close_at.tzinfo or UTC) if close_at else (
            datetime.now(UTC) + parse_span(close_in) if close_in else None)
        plan = None
        if plan_file is not None:
            if not plan_file.is_file():
                raise CliError(f"plan file {plan_file} not found", ExitCode.USAGE)
            plan = PlanSnapshot.model_validate_json(plan_file.read_text(encoding="utf-8"))
        try:
            inp = StudyInput(topic=topic, research_goal=goal, plan=plan, quota=quota, close_at=closes,
                             interview_seconds=round(minutes * 60), default_language=language,
                             analysis_language=analysis_language, abandon_after_seconds=abandon_after,
                             languages=[x.strip() for x in languages.split(",") if x.strip()], review=review,
                             consent=read_consent(consent_files))
        except ValidationError as exc:
            raise CliError(f"cannot start the study: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}",
                           ExitCode.USAGE) from None
        english = coverage.unsupported_pages(inp.default_language, inp.languages)
        if english and not english_pages:
            raise CliError(f"no page catalog for {', '.join(english)}: participants would get English join, consent, "
                           f"room and read-back pages (translated: {' '.join(PAGE_LANGUAGES)}); pass "
                           "--english-pages to accept that", ExitCode.USAGE)
        try:
            voice_table()                # the measured table the voice column reads: a bad one stops here
        except MeasuredTableError as exc:
            raise CliError(f"voice: {exc}", ExitCode.USAGE) from None
        client = await conn.connect()
        wid = study_id or default_workflow_id("study", topic, short_id())
        await client.start_workflow(WORKFLOW_TYPE, inp, id=wid, task_queue=task_queue,
                                    static_summary=f"study: {topic[:80]}")
        console.print(f"started [bold]{wid}[/bold]", soft_wrap=True)
        for line in coverage.coverage_lines(inp.default_language, inp.languages, list(inp.consent)):
            console.print(line, soft_wrap=True, highlight=False, markup=False)
        console.print(f"invite:     colloquy study invite {wid} --count 20", soft_wrap=True)
        console.print(f"watch:      colloquy study status {wid}   (or the page /studies/{wid} of `colloquy serve`)",
                      soft_wrap=True)
        await warn_if_no_worker(client, task_queue)
        if review:
            await study_review.review_interactively(_handle(client, wid))

    run(_run())


def read_consent(items: list[str]) -> dict[str, str]:
    """--consent de=consent-de.txt ... → {language: text}."""
    texts = {}
    for item in items:
        lang, sep, path = item.partition("=")
        if not sep or not lang.strip() or not path.strip():
            raise CliError(f"--consent takes LANG=FILE (e.g. de=consent-de.txt), not {item!r}", ExitCode.USAGE)
        file = Path(path.strip())
        if not file.is_file():
            raise CliError(f"consent file {file} not found", ExitCode.USAGE)
        texts[lang.strip()] = file.read_text(encoding="utf-8")
    return texts




@app.command("invite")
@connects
def invite_cmd(
    study_id: str = typer.Argument(..., help="The study's workflow id."),
    count: int = typer.Option(1, min=1, max=1000, help="How many participants (one link each)."),
    language: str | None = typer.Option(None, help="Their language (default: they choose on the link's page); "
                                        "one with a page catalog unless --english-pages."),
    english_pages: bool = typer.Option(False, "--english-pages", help="Accept a language without a page catalog: "
                                       "their pages are in English and say so."),
    base_url: str | None = typer.Option(None, "--base-url", envvar="COLLOQUY_PUBLIC_URL",
                                        help="Where `colloquy serve` is reached (default http://127.0.0.1:8234)."),
    out: Path | None = typer.Option(None, "--out", help="Also write 'participant,link' rows to this CSV file (a "
                                    "header row first when the file is new)."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Add participants; prints one unguessable link each. Links are shown once (the study keeps only a hash)."""
    async def _run() -> None:
        if language and not english_pages and coverage.unsupported_pages(language, []):
            raise CliError(f"no page catalog for {language}: their pages would be English (translated: "
                           f"{' '.join(PAGE_LANGUAGES)}); pass --english-pages to accept that", ExitCode.USAGE)
        client = await conn.connect()
        invited = await invite_participants(_handle(client, study_id), count, language, base_url or default_base())
        for p, link in invited:
            console.print(f"{p.participant_id}  {link}", soft_wrap=True, highlight=False)
        if out is not None:
            write_links(out, [(p.participant_id, link) for p, link in invited])

    run(_run())


def write_links(out: Path, rows: list[tuple[str, str]]) -> None:
    """Append the links as CSV rows; a new (or empty) file gets the header row `participant,link` first."""
    import csv

    new = not out.exists() or out.stat().st_size == 0
    with out.open("a", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(["participant", "link"])
        w.writerows(rows)


@app.command("revoke")
@connects
def revoke_cmd(
    study_id: str = typer.Argument(..., help="The study's workflow id."),
    participant: str = typer.Argument(..., help="The participant id (P001, ...)."),
    reason: str = typer.Option("revoked by the researcher", help="Why (kept in the ledger)."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Revoke a participant's link: opening it is refused from now on; an interview already running is ended and
    left out of the findings (revoking is withdrawing)."""
    async def _run() -> None:
        client = await conn.connect()
        p = await study_update(_handle(client, study_id), UPDATE_REVOKE_PARTICIPANT,
                               RevokeParticipant(participant_id=participant, reason=reason), ParticipantView,
                               "nothing to revoke")
        console.print(f"{p.participant_id}: {p.status}")

    run(_run())


@app.command("erase")
@connects
def erase_cmd(
    study_id: str = typer.Argument(..., help="The study's workflow id."),
    participant: str = typer.Argument(..., help="The participant id (P001, ...)."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Erase a participant's data, as their own withdrawal does (until the study closes): their interview's
    histories, artifacts, audio and, with payload encryption on, their data key (docs/study.md, "Erasure")."""
    async def _run() -> None:
        client = await conn.connect()
        p = await study_update(_handle(client, study_id), UPDATE_ERASE_PARTICIPANT,
                               EraseParticipant(participant_id=participant), ParticipantView, "nothing to erase")
        console.print(f"{p.participant_id}: {p.status}; their data is being erased (`colloquy study status` "
                      "shows when)")

    run(_run())


def _print_progress(p: StudyProgress) -> None:
    quota = f" of {p.quota}" if p.quota else ""
    console.print(f"[bold]{p.study_id}[/bold] — {p.topic}", soft_wrap=True)
    console.print(f"phase: {p.phase}" + (f" (closed: {p.closed_reason})" if p.closed_reason else "")
                  + (f", closes {p.close_at:%Y-%m-%d %H:%M} UTC" if p.close_at and p.open else ""), highlight=False)
    console.print(f"invited {p.invited} · started {p.started} · running {p.running} · completed {p.completed}{quota}"
                  f" · abandoned {p.abandoned} · revoked {p.revoked}"
                  + (f" · withdrawn {p.withdrawn}" if p.withdrawn else ""), highlight=False)
    median = f"{p.median_length_seconds:.0f}s" if p.median_length_seconds is not None else "-"
    langs = ", ".join(f"{k} {v}" for k, v in p.languages.items()) or "-"
    console.print(f"median interview length {median} · languages {langs} · digests {p.digests}", highlight=False)
    if p.outputs is not None:
        console.print(f"report: colloquy study report {p.study_id} --format html --out report.html "
                      f"({p.outputs.quotes_verified} verified quotes, {p.outputs.quotes_flagged} flagged)",
                      soft_wrap=True, highlight=False)


@app.command("status")
@connects
def status_cmd(
    study_id: str = typer.Argument(..., help="The study's workflow id."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Progress: invited, started, running, completed, abandoned, revoked, median length, languages."""
    async def _run() -> None:
        client = await conn.connect()
        _print_progress(await _handle(client, study_id).query(QUERY_PROGRESS, result_type=StudyProgress))

    run(_run())


@app.command("close")
@connects
def close_cmd(
    study_id: str = typer.Argument(..., help="The study's workflow id."),
    reason: str = typer.Option("closed by the researcher", help="Why (shown in the findings)."),
    end_running: bool = typer.Option(False, "--end-running", help="Also end the interviews still running."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Close now: no new participants; the analysis runs when the running interviews have finished."""
    async def _run() -> None:
        client = await conn.connect()
        _print_progress(await study_update(_handle(client, study_id), UPDATE_CLOSE,
                                           CloseStudy(reason=reason, end_running=end_running), StudyProgress,
                                           "it is closed already"))

    run(_run())


@app.command("report")
@connects
def report_cmd(
    study_id: str = typer.Argument(..., help="The study's workflow id."),
    fmt: str = typer.Option("md", "--format", help="md | html | json."),
    out: Path | None = typer.Option(None, "--out", help="Write to this file (default: print)."),
    wait: bool = typer.Option(False, "--wait", help="Wait for the analysis to finish."),
    task_queue: str = typer.Option(TASK_QUEUE, envvar="COLLOQUY_TASK_QUEUE", help="Task queue of the workers "
                                   "(the report is read through them)."),
    conn: Connection = NO_FLAGS,
) -> None:
    """The findings (markdown, JSON or the self-contained HTML report), read from the artifact store through
    Temporal. Before the analysis: exit code 4 (or --wait)."""
    from client.artifacts import read_artifact

    if fmt not in ("md", "html", "json"):
        raise typer.BadParameter("--format must be md, html or json")

    async def _run() -> None:
        client = await conn.connect()
        h = _handle(client, study_id)
        if wait:
            outputs = (await h.result()).outputs
        else:
            progress = await h.query(QUERY_PROGRESS, result_type=StudyProgress)
            outputs = progress.outputs
            if outputs is None:
                raise CliError(f"study {study_id} has no report yet ({progress.phase}, {progress.completed} "
                               f"completed): close it, or use --wait", ExitCode.REFUSED)
        if outputs is None:
            raise CliError(f"study {study_id} ended without a report", ExitCode.FAILED)
        ref = {"md": outputs.findings_md, "html": outputs.report_html, "json": outputs.findings_json}[fmt]
        text = await read_artifact(client, ref, task_queue)
        if out is not None:
            out.write_text(text, encoding="utf-8")
            console.print(f"wrote {out} ({len(text)} characters)")
        else:
            console.out(text, highlight=False)

    run(_run())


app.command("review")(study_review.review_cmd)
app.command("export")(study_export.export_cmd)
