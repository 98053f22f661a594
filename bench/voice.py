"""Voice numbers on this machine: word error rate per voice and language on held sentences, the real-time factor
of transcription, end of speech → entry for a ~10 s answer (whole clip after the end vs chunks cut at pauses
and transcribed while the person speaks), new question → first audio byte. Local profile only (faster-whisper
with Whisper base int8, piper, espeak-ng): `make install-voice`.

    python -m bench.voice [--repeats 3] [--skip-wer] [--skip-latency]

The latencies run the real path: a dev server, the workers in this process (the audio worker with them), and
`colloquy serve`'s room + voice doors on 127.0.0.1; the clips are POSTed as the page does, each chunk as soon
as the speech it holds has been said (real time). The offline LLM profile plays the interviewer (it only has to
put a question in force). The held sentences are the project's own (never seen by the model before).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import statistics
import time
import uuid
import wave

HELD = {
    "en": ["The kettle was still warm when the second alarm went off in the hallway.",
           "We moved the deploy window to Tuesday mornings so that nobody worked late on Fridays.",
           "She kept a notebook of every outage and read it again before each planning meeting.",
           "Most of the noise came from one flaky health check that nobody wanted to own.",
           "After the migration the reports loaded in seconds instead of minutes."],
    "de": ["Am Montag haben wir die alte Datenbank endlich abgeschaltet.",
           "Die meisten Fehler kamen aus einem einzigen Dienst, den niemand kannte.",
           "Nach dem Umzug war das Team ruhiger und schlief wieder durch."],
    "fr": ["Le lundi matin, nous avons enfin arrêté l'ancienne base de données.",
           "La plupart des alertes venaient d'un seul service que personne ne connaissait.",
           "Après le déménagement, l'équipe dormait de nouveau toute la nuit."],
    "es": ["El lunes por la mañana por fin apagamos la base de datos antigua.",
           "Casi todas las alertas venían de un solo servicio que nadie conocía.",
           "Después de la mudanza el equipo volvió a dormir toda la noche."],
}
VOICES = [("piper", "en"), ("espeak-ng", "en"), ("espeak-ng", "de"), ("espeak-ng", "fr"), ("espeak-ng", "es")]
TEN_SECONDS = [
    "I took over the pager the week our lead left, and for the first month I slept with the laptop open. "
    "Then we wrote down every alert and deleted half of them, and the nights got quiet again.",
    "The best change we made was boring: one runbook page per alert, written by whoever got woken up. "
    "Within a quarter the pages were short, accurate and nobody dreaded the rotation any more.",
    "Our worst incident started with a certificate that expired on a Sunday morning. It took four hours "
    "because the only person who knew the renewal steps was on a plane to Lisbon.",
]


def speak(engine: str, language: str, text: str) -> bytes:
    from activities.voice.local import espeak_wav, piper_wav
    from rules.voice.voices import espeak_voice

    return piper_wav(text) if engine == "piper" else espeak_wav(text, espeak_voice(language))


def seconds_of(wav_bytes: bytes) -> float:
    with wave.open(io.BytesIO(wav_bytes)) as w:
        return w.getnframes() / w.getframerate()


def wer_table() -> list[dict]:
    from activities.voice.local import LocalSpeech, whisper_model
    from rules.voice.wer import corpus_wer

    whisper_model()                                  # loaded once, not counted
    local = LocalSpeech()
    rows = []
    for engine, language in VOICES:
        pairs, audio_s, spent = [], 0.0, 0.0
        for sentence in HELD[language]:
            clip = speak(engine, language, sentence)
            started = time.perf_counter()
            heard = local.transcribe(clip, "audio/wav", language, lambda s: None)
            spent += time.perf_counter() - started
            audio_s += seconds_of(clip)
            pairs.append((sentence, heard.text))
        rows.append({"voice": engine, "language": language, "sentences": len(pairs), "wer": corpus_wer(pairs),
                     "rtf": spent / audio_s, "audio_s": audio_s})
        print(f"  {engine:9} {language}: WER {rows[-1]['wer']:.3f}  RTF {rows[-1]['rtf']:.2f}  "
              f"({len(pairs)} sentences, {audio_s:.0f} s)", flush=True)
    return rows


def levels(wav_bytes: bytes, frame_s: float) -> tuple[list[float], bytes, int]:
    import array

    with wave.open(io.BytesIO(wav_bytes)) as w:
        rate, pcm = w.getframerate(), w.readframes(w.getnframes())
    samples = array.array("h", pcm)
    step = int(rate * frame_s)
    out = []
    for i in range(0, len(samples), step):
        block = samples[i:i + step]
        out.append((sum(x * x for x in block) / max(1, len(block))) ** 0.5 / 32768)
    return out, pcm, rate


def wav_of(pcm: bytes, rate: int) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm)
    return buf.getvalue()


async def serve_voice(client) -> tuple:  # noqa: ANN001
    """`colloquy serve`'s room and voice doors on 127.0.0.1 (a free port) for this client."""
    import secrets

    from aiohttp import web

    from client.web.app import build_app
    from client.web.interview.room import room_extension
    from client.web.voice.room import voice_extension

    async def temporal():  # noqa: ANN202
        return client

    secret = secrets.token_bytes(16)
    app = build_app(secrets.token_urlsafe(24), None, [],
                    extensions=[room_extension(temporal, secret, poll_s=0.2), voice_extension()])
    runner = web.AppRunner(app, shutdown_timeout=2)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}", secret


async def latencies(repeats: int) -> dict[str, list[float]]:
    import aiohttp

    from activities.llm import offline
    from bench.interview_common import artifacts_in_tmp, dev_server, quiet, workers
    from client.web.interview.sessions import room_path
    from models.interview.workflow import InterviewInput
    from rules.voice.turns import FRAME_S, TurnRules, chunk_cuts

    quiet()
    offline.reset()
    os.environ["COLLOQUY_SPEECH_PROFILE"] = "local"
    os.environ.setdefault("COLLOQUY_PROFILE", "offline")
    results: dict[str, list[float]] = {"whole": [], "chunked": [], "chunks": [], "answer_s": [], "question_ttfb": []}
    async with artifacts_in_tmp(), dev_server() as env, workers(env.client) as queue:
        runner, base, secret = await serve_voice(env.client)
        try:
            async with aiohttp.ClientSession() as http:
                page = {"X-Colloquy-CSRF": "page"}
                for n in range(repeats):
                    wid = f"bench-voice-{uuid.uuid4().hex[:6]}"
                    await env.client.start_workflow("InterviewWorkflow", InterviewInput(
                        topic=f"On-call, round {n}", duration_seconds=900, cycle_seconds=2, write_essay=False),
                        id=wid, task_queue=queue)
                    room = base + room_path(secret, wid)
                    qid = None
                    while qid is None:                           # the first question in force (planned offline)
                        async with http.get(room + "/state") as r:
                            shown = await r.json()
                            qid = shown.get("question_id") if shown.get("question") else None
                        await asyncio.sleep(0.2)
                    started = time.perf_counter()                # new question → first audio byte
                    async with http.get(room + f"/question-audio?q={qid}") as r:
                        first = await r.content.readany()
                        if r.status != 200:
                            raise SystemExit(f"question-audio: HTTP {r.status} {first[:300]!r}")
                    results["question_ttfb"].append(time.perf_counter() - started)

                    answer = speak("piper", "en", TEN_SECONDS[n % len(TEN_SECONDS)])
                    lv, pcm, rate = levels(answer, FRAME_S)
                    rules = TurnRules()
                    speech = [i for i, x in enumerate(lv) if x >= rules.speech_level]
                    end_of_speech = (speech[-1] + 1) * FRAME_S
                    results["answer_s"].append(end_of_speech)

                    async def post(clip: bytes, room: str = room) -> dict:
                        for _ in range(20):
                            async with http.post(room + "/audio?consent=yes", data=clip,
                                                 headers={**page, "Content-Type": "audio/wav"}) as r:
                                if r.status == 200:
                                    return await r.json()
                                assert r.status == 202, await r.text()
                        raise AssertionError("no transcript")

                    async def entry(texts: list[str], clips: list[str], eid: str, room: str = room) -> None:
                        async with http.post(room + "/entry", json={"entry_id": eid, "text": " ".join(texts),
                                                                    "audio_clips": clips}, headers=page) as r:
                            assert r.status == 200, await r.text()

                    # (a) the whole answer posted once the person has stopped speaking
                    await asyncio.sleep(end_of_speech)           # the person speaks (real time)
                    t0 = time.perf_counter()
                    got = await post(answer)
                    await entry([got["text"]], [got["clip"]], got["entry_id"])
                    results["whole"].append(time.perf_counter() - t0)

                    # (b) chunks cut at pauses (the page's rule), each posted as soon as it has been said — in a
                    # second interview: a chunk holding the whole answer must not find (a)'s transcription
                    wid = f"bench-voice-{uuid.uuid4().hex[:6]}-b"
                    await env.client.start_workflow("InterviewWorkflow", InterviewInput(
                        topic=f"On-call, round {n}b", duration_seconds=900, cycle_seconds=2, write_essay=False),
                        id=wid, task_queue=queue)
                    room = base + room_path(secret, wid)
                    bytes_per_frame = int(rate * FRAME_S) * 2
                    cuts = [c for c in chunk_cuts(lv, rules) if c * FRAME_S < end_of_speech]
                    bounds = [0, *cuts, len(lv)]
                    spoken_at = time.perf_counter()
                    tasks = []
                    for a, b in zip(bounds, bounds[1:], strict=False):
                        ready = min(b * FRAME_S, end_of_speech)
                        await asyncio.sleep(max(0.0, spoken_at + ready - time.perf_counter()))
                        tasks.append(asyncio.create_task(post(wav_of(pcm[a * bytes_per_frame:b * bytes_per_frame],
                                                                     rate), room)))
                    t0 = time.perf_counter()                     # end of speech
                    parts = await asyncio.gather(*tasks)
                    await entry([p["text"] for p in parts], [p["clip"] for p in parts], parts[0]["entry_id"], room)
                    results["chunked"].append(time.perf_counter() - t0)
                    results["chunks"].append(len(parts))
                    print(f"  answer {n + 1}: {end_of_speech:.1f} s of speech; end of speech → entry: whole clip "
                          f"{results['whole'][-1]:.2f} s, {len(parts)} chunks {results['chunked'][-1]:.2f} s; "
                          f"new question → first audio byte {results['question_ttfb'][-1]:.2f} s", flush=True)
        finally:
            await runner.cleanup()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="answers timed (each ~10 s of speech)")
    parser.add_argument("--skip-wer", action="store_true")
    parser.add_argument("--skip-latency", action="store_true")
    args = parser.parse_args()
    from activities.voice.local import whisper_model

    started = time.perf_counter()
    whisper_model()
    print(f"Whisper base (int8) loaded in {time.perf_counter() - started:.1f} s; {os.cpu_count()} CPUs", flush=True)
    if not args.skip_wer:
        print("Word error rate (held sentences) and real-time factor of transcription:", flush=True)
        rows = wer_table()
        print("\n| voice | language | sentences | WER | RTF |\n|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['voice']} | {r['language']} | {r['sentences']} | {r['wer']:.3f} | {r['rtf']:.2f} |")
    if not args.skip_latency:
        print("\nLatencies (real path: serve → Temporal → audio worker → entry):", flush=True)
        res = asyncio.run(latencies(args.repeats))
        med = statistics.median
        print("\n| measure | median | max |\n|---|---|---|")
        print(f"| answer length (speech) | {med(res['answer_s']):.1f} s | {max(res['answer_s']):.1f} s |")
        print(f"| end of speech → entry, whole clip | {med(res['whole']):.2f} s | {max(res['whole']):.2f} s |")
        print(f"| end of speech → entry, chunked ({med(res['chunks']):.0f} chunks) | {med(res['chunked']):.2f} s | "
              f"{max(res['chunked']):.2f} s |")
        print(f"| new question → first audio byte | {med(res['question_ttfb']):.2f} s | "
              f"{max(res['question_ttfb']):.2f} s |")
        print("(hands-free turns add the silence that ends them, 1.6 s; push-to-talk ends on release)")


if __name__ == "__main__":
    main()
