"""Shared bits of the study tests: a short plan, link tokens, starting a study."""

from __future__ import annotations

import hashlib
import secrets

from temporalio.client import Client, WorkflowHandle

from models.interview.plan import PlanSnapshot, QuestionSnapshot, SectionSnapshot
from models.study.workflow import (
    UPDATE_ADD_PARTICIPANTS,
    AddParticipants,
    ConsentGiven,
    Invitation,
    OpenLink,
    ParticipantView,
    StudyInput,
    StudyResult,
)
from rules.study import consent


def short_plan() -> PlanSnapshot:
    return PlanSnapshot(topic="How teams run on-call", research_goal="What makes on-call bearable",
                        angle="practitioners", sections=[
                            SectionSnapshot(id="origins", title="Getting into on-call", questions=[
                                QuestionSnapshot(id="q-origin", text="How did you end up carrying the pager?",
                                                 priority=1)]),
                            SectionSnapshot(id="alerts", title="Alert fatigue", questions=[
                                QuestionSnapshot(id="q-alerts", text="What did you do about noisy alerts?",
                                                 priority=1)])])


def token() -> tuple[str, str]:
    t = secrets.token_urlsafe(24)
    return t, hashlib.sha256(t.encode()).hexdigest()


async def start_study(client: Client, queue: str, wid: str, **fields) -> WorkflowHandle:
    fields.setdefault("plan", short_plan())
    return await client.start_workflow("StudyWorkflow", StudyInput(topic="How teams run on-call", **fields), id=wid,
                                       task_queue=queue, result_type=StudyResult)


async def invite(handle: WorkflowHandle, n: int, language: str | None = None) -> list[tuple[str, str]]:
    """n participants: [(participant id, token)]."""
    tokens = [token() for _ in range(n)]
    added = await handle.execute_update(UPDATE_ADD_PARTICIPANTS, AddParticipants(invitations=[
        Invitation(token_sha256=h, language=language) for _, h in tokens]), result_type=list[ParticipantView])
    return [(p.participant_id, t) for p, (t, _) in zip(added, tokens, strict=True)]


def sha(t: str) -> str:
    return hashlib.sha256(t.encode()).hexdigest()


def opening(token_hash: str, language: str | None = None) -> OpenLink:
    """Opening a link with the participant's consent to the built-in text in their language (as the page sends)."""
    lang = language or "en"
    text = consent.BUILT_IN.get(lang, consent.BUILT_IN["en"])
    lang = lang if lang in consent.BUILT_IN else "en"
    return OpenLink(token_sha256=token_hash, language=language,
                    consent=ConsentGiven(language=lang, sha256=consent.sha256(text)))
