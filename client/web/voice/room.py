"""The voice room: the interview room's audio doors (added to `colloquy serve` by `voice_extension`).

    POST /room/{wid}/{key}/audio?consent=yes&lang=en   a recording (audio/wav or audio/webm, at most
                                           rules.voice.clips.MAX_CLIP_BYTES): stored in the artifact store first
                                           (audio-<wid>/clip-<sha>.<ext>, encrypted at rest when payload
                                           encryption is on), then transcribed by TranscribeClipWorkflow on the
                                           interview's queue (its activity on `<queue>-audio`). Answers
                                           {"clip", "entry_id", "text", ...}: the page shows the text, editable,
                                           and sends it as an ordinary entry with `audio_clips`. The same bytes
                                           posted twice are one clip, one transcription. 202 {"pending": true}
                                           when the transcription takes longer than WAIT_S: post it again.
                                           403 without `consent=yes` (the participant's toggle) or in a
                                           language voice is not offered in (client/web/voice/offered.py),
                                           409 once the interview has ended (nothing more is recorded).
    GET  /room/{wid}/{key}/question-audio?lang=en&q=ID   the question in force, spoken (audio/*), made once per
                                           question and voice by SpeakQuestionWorkflow and cached; `q` (the
                                           page's question_id) makes the answer cacheable, 409 once another
                                           question is in force.

The CSRF header, the key in the path and the cross-site checks are the room's own (client/web/app.py)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from aiohttp import web
from temporalio.client import WorkflowFailureError
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError

from activities.voice.store import AudioStore, audio_scope
from client.web.app import public
from client.web.interview.sessions import ENDED, ROOMS, _error, _room_guard, _temporal_error
from client.web.voice.offered import voice_offered
from models.common import ArtifactRef
from models.voice.workflow import (
    SpeakInput,
    Speech,
    TranscribeInput,
    Transcript,
    clip_workflow_id,
    speech_workflow_id,
)
from rules.errors import error_message
from rules.voice.clips import MAX_CLIP_BYTES, ClipError, check_clip
from rules.voice.voices import LanguageError, primary

WAIT_S = 60.0              # an answer waits this long for its transcription (then 202: post again)
SPEECH_WAIT_S = 60.0
_CACHE = 256


def _lang(request: web.Request) -> str:
    try:
        return primary(request.query.get("lang", "en")[:40])
    except LanguageError as exc:
        raise web.HTTPBadRequest(text=f'{{"error": "{exc}"}}', content_type="application/json") from None


async def _read_clip(request: web.Request) -> bytes:
    if request.content_length is not None and request.content_length > MAX_CLIP_BYTES:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_CLIP_BYTES, actual_size=request.content_length,
                                            text=f'{{"error": "the recording is over {MAX_CLIP_BYTES:,} bytes"}}',
                                            content_type="application/json")
    chunks, size = [], 0
    while size <= MAX_CLIP_BYTES:           # read() returns what has arrived: read to the end (or past the limit)
        chunk = await request.content.read(min(1 << 20, MAX_CLIP_BYTES + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    data = b"".join(chunks)
    if len(data) > MAX_CLIP_BYTES:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_CLIP_BYTES, actual_size=len(data),
                                            text=f'{{"error": "the recording is over {MAX_CLIP_BYTES:,} bytes"}}',
                                            content_type="application/json")
    return data


class VoiceRooms:
    """Per-server memory: each interview's task queue, and the spoken questions already made."""

    def __init__(self) -> None:
        self.queues: dict[str, str] = {}
        self.spoken: OrderedDict[str, ArtifactRef] = OrderedDict()

    async def queue_of(self, request: web.Request, wid: str) -> str:
        if wid not in self.queues:
            desc = await (await request.app[ROOMS].handle(wid)).describe()
            self.queues[wid] = desc.task_queue
            if len(self.queues) > _CACHE:
                self.queues.pop(next(iter(self.queues)))
        return self.queues[wid]


VOICE = web.AppKey("colloquy_voice", VoiceRooms)


async def _result(client: Any, wid: str, start: Callable[[], Any], result_type: type, wait: float) -> Any:
    """Start (or find) the workflow `wid` and wait up to `wait` seconds for its result (TimeoutError)."""
    try:
        handle = await start()
    except WorkflowAlreadyStartedError:
        handle = client.get_workflow_handle(wid, result_type=result_type)
    return await asyncio.wait_for(handle.result(), wait)


@public
async def room_audio(request: web.Request) -> web.Response:
    wid, rooms, voice = _room_guard(request), request.app[ROOMS], request.app[VOICE]
    if request.query.get("consent") != "yes":
        return _error(403, "audio is recorded only after the participant agrees (tick 'Record my voice')")
    language = _lang(request)
    if not voice_offered(language):
        return _error(403, f"voice is not offered in {language}: its measured error rate is over the threshold "
                           "(docs/voice.md); the answer is typed")
    data = await _read_clip(request)
    try:
        clip = check_clip(data, request.content_type)
    except ClipError as exc:
        return _error(415 if "send the recording as" in str(exc) else 400, str(exc))
    try:
        s = await rooms.state(wid)
        if s.status in ENDED:
            return _error(409, "the interview has ended: nothing more is recorded")
        queue = await voice.queue_of(request, wid)
    except (RPCError, ConnectionError, OSError) as exc:
        return _temporal_error(exc)
    ref = await asyncio.to_thread(AudioStore().put, audio_scope(wid), clip.name, data, clip.content_type)
    client = await rooms.client()
    cid = clip_workflow_id(wid, clip.key)
    inp = TranscribeInput(interview_id=wid, clip=ref, language=language, clip_key=clip.key)
    try:
        heard: Transcript = await _result(client, cid, lambda: client.start_workflow(
            "TranscribeClipWorkflow", inp, id=cid, task_queue=queue, result_type=Transcript,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
            static_summary=f"transcribe {clip.name} of {wid}"), Transcript, WAIT_S)
    except TimeoutError:
        return web.json_response({"pending": True, "clip": clip.name}, status=202)
    except WorkflowFailureError as exc:
        return _error(422, f"the recording could not be transcribed: {error_message(exc)}")
    except (RPCError, ConnectionError, OSError) as exc:
        return _temporal_error(exc)
    return web.json_response({"clip": clip.name, "entry_id": clip.entry_id, "text": heard.text,
                              "language": heard.language, "seconds": clip.seconds or heard.audio_seconds,
                              "profile": heard.profile, "engine": heard.engine})


@public
async def question_audio(request: web.Request) -> web.StreamResponse:
    wid, rooms, voice = _room_guard(request), request.app[ROOMS], request.app[VOICE]
    language = _lang(request)
    try:
        s = await rooms.state(wid)
        if s.status in ENDED or not s.next_question or not s.question_event_id:
            return _error(404, "no question is in force")
        queue = await voice.queue_of(request, wid)
    except (RPCError, ConnectionError, OSError) as exc:
        return _temporal_error(exc)
    qid = str(s.question_event_id)
    asked = request.query.get("q")
    if asked is not None and asked != qid:
        return _error(409, "that question is no longer in force: ask for the current one")
    cache_key = f"{wid}/{qid}/{language}"
    ref = voice.spoken.get(cache_key)
    if ref is None:
        client = await rooms.client()
        sid = speech_workflow_id(wid, qid, language)
        inp = SpeakInput(interview_id=wid, question_id=qid, text=s.next_question, language=language)
        try:
            spoken: Speech = await _result(client, sid, lambda: client.start_workflow(
                "SpeakQuestionWorkflow", inp, id=sid, task_queue=queue, result_type=Speech,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
                static_summary=f"speak question {qid} of {wid}"), Speech, SPEECH_WAIT_S)
        except TimeoutError:
            return _error(503, "the question's audio is still being made: try again")
        except WorkflowFailureError as exc:
            return _error(422, f"the question could not be spoken: {error_message(exc)}")
        except (RPCError, ConnectionError, OSError) as exc:
            return _temporal_error(exc)
        ref = spoken.audio
        voice.spoken[cache_key] = ref
        while len(voice.spoken) > _CACHE:
            voice.spoken.popitem(last=False)
    try:
        audio = await asyncio.to_thread(AudioStore().get, ref)
    except Exception as exc:  # noqa: BLE001 - a vanished or unreadable file: made again next time
        voice.spoken.pop(cache_key, None)
        return _error(404, f"the question's audio is not readable here: {error_message(exc)}")
    return web.Response(body=audio, content_type=ref.content_type, headers={
        # ?q=<question id> names one question: cacheable; without it, the question of the moment: never cached
        "Cache-Control": "private, max-age=3600" if asked else "no-store", "X-Content-Type-Options": "nosniff",
        "X-Colloquy-Question-Id": qid})


def voice_extension() -> Callable[[web.Application], None]:
    def extend(app: web.Application) -> None:
        app[VOICE] = VoiceRooms()
        app.router.add_post("/room/{wid}/{key}/audio", room_audio)
        app.router.add_get("/room/{wid}/{key}/question-audio", question_audio)

    return extend


__all__ = ["voice_extension"]
