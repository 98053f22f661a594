"""The voice path's two small workflows, started by `colloquy serve` (client/web/voice/room.py) on the interview's
task queue; their activities run on `<queue>-audio` (models.voice.workflow.audio_queue), so audio workers scale apart.

- `TranscribeClipWorkflow` (id `<interview>-clip-<clip key>`): the stored clip → its transcript. The id is the
  clip's identity: a clip posted twice finds this run (or its result) and is transcribed once. A worker killed
  mid-transcription stops heartbeating; the attempt is retried on another audio worker (or the same restarted).
- `SpeakQuestionWorkflow` (id `<interview>-speak-<question>-<voice>`): the question's audio, made once.

Neither touches the interview's own history: the page sends the (edited) transcript as an ordinary entry with
a reference to the clip (client/web/voice/room.py)."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.voice import ERRORS
    from models.voice.workflow import SpeakInput, Speech, TranscribeInput, Transcript, audio_queue

RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), backoff_coefficient=2.0,
                    maximum_interval=timedelta(seconds=10), maximum_attempts=6, non_retryable_error_types=list(ERRORS))


@workflow.defn(name="TranscribeClipWorkflow")
class TranscribeClipWorkflow:
    @workflow.run
    async def run(self, inp: TranscribeInput) -> Transcript:
        return await workflow.execute_activity(
            "voice_transcribe", inp, result_type=Transcript, task_queue=audio_queue(workflow.info().task_queue),
            schedule_to_start_timeout=timedelta(minutes=10), start_to_close_timeout=timedelta(minutes=15),
            heartbeat_timeout=timedelta(seconds=10), retry_policy=RETRY)


@workflow.defn(name="SpeakQuestionWorkflow")
class SpeakQuestionWorkflow:
    @workflow.run
    async def run(self, inp: SpeakInput) -> Speech:
        return await workflow.execute_activity(
            "voice_speak", inp, result_type=Speech, task_queue=audio_queue(workflow.info().task_queue),
            schedule_to_start_timeout=timedelta(minutes=5), start_to_close_timeout=timedelta(minutes=3),
            retry_policy=RETRY)


WORKFLOWS = [TranscribeClipWorkflow, SpeakQuestionWorkflow]
