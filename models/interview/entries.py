"""Interview pipeline: the live entries — what a client sends (an utterance, a control, a heartbeat, an
assistant question) and what it reads back (the transcript).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from models.common import (
    ArtifactRef,
    IdStr,
    LineStr,
    TextStr,
)

#: The most parts one answer may be sent in (a 400,000-character answer at the default 8,000 per entry).
MAX_ANSWER_PARTS = 50


# ------------------------------------------------------------------------------------- live entries
class TranscriptEntry(BaseModel):
    """One utterance (or code submission). Clients fill entry_id/speaker/text/kind/client_timestamp; the engine
    fills the rest (seq, received_at, section_id, late)."""

    entry_id: IdStr = Field(description="Client-chosen unique id; a repeated id is ignored (idempotency)")
    speaker: IdStr = Field(description="interviewer | interviewee (aliases: expert, candidate)")
    text: TextStr
    kind: IdStr = Field(default="message", description="message | code")
    client_timestamp: datetime | None = None
    seq: int = 0
    received_at: datetime | None = None
    elapsed_seconds: float | None = None
    section_id: IdStr | None = None
    late: bool = False
    session_id: IdStr | None = Field(default=None, description="Workflow id it was recorded in (merged transcripts)")
    reply_to_section_id: IdStr | None = Field(
        default=None, description="Client: the section whose question was on screen when this was typed (decides "
                                  "the late grace: a late answer counts for the previous section only if it "
                                  "answers that section's question)")
    reply_to_question_id: IdStr | None = Field(
        default=None, description="Client: the question (its entry id, `question-N`: SessionState.question_entry_id) "
                                  "on screen when the person began this answer (first keystroke, first speech). The "
                                  "engine files the answer with that question, the late grace included: an answer "
                                  "to an earlier question never displaces the question in force")
    answer_id: IdStr | None = Field(default=None, description="Client: one answer sent in parts (longer than "
                                    "max_entry_chars, rules/interview/answer_parts.py): the id shared by its parts "
                                    "(the first part's entry id)")
    part: int | None = Field(default=None, ge=1, le=MAX_ANSWER_PARTS, description="Client: which part of the "
                             "answer this is (1-based, with `answer_id` and `parts`)")
    parts: int | None = Field(default=None, ge=1, le=MAX_ANSWER_PARTS, description="Client: how many parts the "
                              "answer has: the engine decides once, after the last")
    continues: bool = Field(default=False, description="Engine: a later part of an answer, or a late answer to an "
                            "earlier question — it neither answers nor displaces the question in force")
    client_id: str | None = Field(default=None, max_length=200,
                                  description="The sending client (with client_seq: entries land in the client's order)")
    client_seq: int | None = Field(default=None, ge=1, description="The client's own increasing number for its "
                                   "entries: one lower than an entry already recorded from it is refused (out of order)")
    audio: list[IdStr] | None = Field(default=None, max_length=60, description="A spoken answer: the recordings "
                                      "it was transcribed from (`audio-<interview id>/clip-<sha>.<ext>` in the "
                                      "artifact store, client/voice_room.py)")


class WindowLine(BaseModel):
    """One transcript entry as an agent reads it: who said what (code fenced). Live-agent inputs carry these,
    not whole entries — ids, clocks and client numbers are the engine's business, not the model's. A whole
    `TranscriptEntry` (an input scheduled before this type existed) parses as one."""

    speaker: str
    text: str
    kind: str = "message"


class SubmitEntryResult(BaseModel):
    entry: TranscriptEntry
    duplicate: bool = False
    status: str
    phase: str
    section_id: str | None = None
    next_question: str | None = None
    interviewer_instructions: str = ""


class SessionControl(BaseModel):
    action: IdStr = Field(description="pause | resume | disconnect | reconnect | candidate_done | end")
    reason: LineStr | None = None
    client_timestamp: datetime | None = None


class Heartbeat(BaseModel):
    """Presence (update `heartbeat`): a client that shows the session says it is still there."""

    client_id: str = Field(min_length=1, max_length=200, description="One id per open page / terminal")
    role: Literal["interviewee", "interviewer"] = "interviewee"
    seq: int = Field(default=0, ge=0, description="The client's heartbeat counter (for logs)")


class AssistantQuery(BaseModel):
    query_id: IdStr
    text: TextStr


class AssistantAnswer(BaseModel):
    query_id: str
    text: str
    flagged: bool = False
    flag_reason: str | None = None
    duplicate: bool = False


class TranscriptView(BaseModel):
    entries: list[TranscriptEntry]
    total_entries: int
    archived: list[ArtifactRef] = Field(default_factory=list, description="Older entries (continue-as-new)")
