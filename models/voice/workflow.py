"""Payloads of the voice path (workflows/voice/workflow.py, activities/voice/): references to audio, never audio bytes
(a clip lives in the artifact store; histories hold its ArtifactRef)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from models.common import ArtifactRef, IdStr, LineStr, TextStr

QUEUE_SUFFIX = "-audio"   # transcription and speech run on `<queue>-audio` (`colloquy worker --role audio`)


def audio_queue(task_queue: str) -> str:
    return task_queue if task_queue.endswith(QUEUE_SUFFIX) else task_queue + QUEUE_SUFFIX


def clip_workflow_id(workflow_id: str, clip_key: str) -> str:
    """One transcription per clip of an interview: a clip posted twice finds the same workflow."""
    return f"{workflow_id}-clip-{clip_key}"


def speech_workflow_id(workflow_id: str, question_id: str, voice_key: str) -> str:
    return f"{workflow_id}-speak-{question_id}-{voice_key}"


class TranscribeInput(BaseModel):
    interview_id: IdStr
    clip: ArtifactRef = Field(description="The recording, already in the artifact store (audio-<interview id>)")
    language: IdStr = "en"
    clip_key: IdStr


class Transcript(BaseModel):
    text: TextStr
    language: IdStr
    audio_seconds: float = 0.0
    profile: IdStr = Field(description="offline | local | config: which speech backend made it")
    engine: LineStr = Field(description="What transcribed it (model), or the offline double's label")


class SpeakInput(BaseModel):
    interview_id: IdStr
    question_id: IdStr
    text: LineStr
    language: IdStr = "en"


class Speech(BaseModel):
    audio: ArtifactRef
    profile: IdStr
    engine: LineStr
    cached: bool = False
