"""Voice numbers on this machine: the error rate per voice and language on held sentences (word error rate; character
error rate for ja and zh) for every shipped page language, the real-time factor of transcription, end of speech →
entry for a ~10 s answer (whole clip after the end vs chunks cut at pauses and transcribed while the person speaks),
new question → first audio byte. The `local` profile by default (faster-whisper with Whisper base int8, piper,
espeak-ng: `make install-voice`; COLLOQUY_WHISPER_DIR measures another Whisper model), `COLLOQUY_SPEECH_PROFILE=config`
for the error rates of a configured provider.

    python -m bench.voice [--repeats 3] [--skip-wer] [--skip-latency] [--languages en,de] [--out FILE.json]

`--out` writes the error-rate table the voice rule reads (rules/voice/offered.py: voice is offered in a language
only when its error rate is at most 0.20): `python -m bench.voice --skip-latency --out rules/voice/measured.json`
made the shipped one; an operator's own table for another model is given to serve and the CLI as
COLLOQUY_VOICE_MEASURED (docs/voice.md, "Languages").

The latencies run the real path: a dev server, the workers in this process (the audio worker with them), and
`colloquy serve`'s room + voice doors on 127.0.0.1; the clips are POSTed as the page does, each chunk as soon
as the speech it holds has been said (real time). The offline LLM profile plays the interviewer (it only has to
put a question in force). The held sentences are the project's own (bench/voice_sentences.py; never seen by the
model before).
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

from bench.voice_sentences import HELD, READINGS

LANGUAGES = ("en", "es", "fr", "de", "pt", "it", "nl", "ja", "zh", "ar", "hi", "sw")   # the shipped page languages
VOICES = [("piper", "en"), *(("espeak-ng", x) for x in LANGUAGES)]     # piper: the only installed voice is English
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

    if engine == "piper":
        return piper_wav(text)
    if language in READINGS and text in HELD[language]:      # ja, zh: spoken from their reading (voice_sentences)
        voice, readings = READINGS[language]
        return espeak_wav(readings[HELD[language].index(text)], voice)
    return espeak_wav(text, espeak_voice(language))


def seconds_of(wav_bytes: bytes) -> float:
    with wave.open(io.BytesIO(wav_bytes)) as w:
        return w.getnframes() / w.getframerate()


def wer_table(languages: list[str]) -> list[dict]:
    """Per voice and language: the error rate of the held sentences (WER; CER for ja and zh: rules/voice/wer.py)."""
    from activities.voice.backends import backend, speech_profile
    from rules.voice.wer import error_rate, metric_for

    speech = backend(speech_profile())
    rows = []
    for engine, language in VOICES:
        if language not in languages:
            continue
        pairs, audio_s, spent = [], 0.0, 0.0
        for sentence in HELD[language]:
            clip = speak(engine, language, sentence)
            started = time.perf_counter()
            heard = speech.transcribe(clip, "audio/wav", language, lambda s: None)
            spent += time.perf_counter() - started
            audio_s += seconds_of(clip)
            pairs.append((sentence, heard.text))
        rate, metric = error_rate(pairs, language), metric_for(language)
        rows.append({"voice": engine, "language": language, "sentences": len(pairs), "metric": metric,
                     "error_rate": round(rate, 3), "rtf": round(spent / audio_s, 2), "audio_s": round(audio_s, 1),
                     "heard": [h for _, h in pairs]})
        print(f"  {engine:9} {language}: {metric} {rate:.3f}  RTF {spent / audio_s:.2f}  "
              f"({len(pairs)} sentences, {audio_s:.0f} s)", flush=True)
    return rows


def model_name() -> str:
    """What heard the clips: the speech profile and, for `local`, the Whisper folder (a larger model when
    COLLOQUY_WHISPER_DIR names one)."""
    from activities.voice.backends import speech_profile

    profile = speech_profile()
    if profile == "local":
        from activities.voice.local import WHISPER_DIR_ENV

        given = os.environ.get(WHISPER_DIR_ENV, "").strip()
        return f"local: Whisper {os.path.basename(given.rstrip('/')) if given else 'base'} (int8, faster-whisper)"
    if profile == "config":
        return f"config: {os.environ.get('COLLOQUY_STT_MODEL', '?')}"
    return profile


def write_table(path: str, rows: list[dict], command: str) -> None:
    """The measured table as `rules/voice/offered.py` reads it (the shipped one: rules/voice/measured.json; an
    operator's own, for another model: COLLOQUY_VOICE_MEASURED)."""
    import json
    from datetime import UTC, datetime

    table = {"command": command, "model": model_name(), "measured": datetime.now(UTC).date().isoformat(),
             "cpus": os.cpu_count(), "rows": rows}
    with open(path, "w", encoding="utf-8") as out:
        json.dump(table, out, ensure_ascii=False, indent=1)
        out.write("\n")
    print(f"wrote {path}", flush=True)


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
    parser.add_argument("--languages", default=",".join(LANGUAGES),
                        help="comma-separated languages whose error rate is measured (default: every shipped one)")
    parser.add_argument("--out", help="write the error-rate table as JSON (rules/voice/measured.json is the "
                        "shipped one; another model's: give it to serve as COLLOQUY_VOICE_MEASURED)")
    args = parser.parse_args()
    os.environ.setdefault("COLLOQUY_SPEECH_PROFILE", "local")
    languages = [x.strip() for x in args.languages.split(",") if x.strip()]
    unknown = [x for x in languages if x not in HELD]
    if unknown:
        raise SystemExit(f"no held sentences for {', '.join(unknown)} (bench/voice_sentences.py)")
    started = time.perf_counter()
    if os.environ["COLLOQUY_SPEECH_PROFILE"] == "local":
        from activities.voice.local import whisper_model

        whisper_model()                                  # loaded once, not counted
    print(f"{model_name()} loaded in {time.perf_counter() - started:.1f} s; {os.cpu_count()} CPUs", flush=True)
    if not args.skip_wer:
        print("Error rate (held sentences; WER, CER for ja and zh) and real-time factor of transcription:",
              flush=True)
        rows = wer_table(languages)
        print("\n| voice | language | sentences | error rate | RTF |\n|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['voice']} | {r['language']} | {r['sentences']} | {r['metric']} {r['error_rate']:.3f} | "
                  f"{r['rtf']:.2f} |")
        if args.out:
            import sys

            write_table(args.out, rows, "python -m bench.voice " + " ".join(sys.argv[1:]))
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
