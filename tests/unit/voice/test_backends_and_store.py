"""Speech profiles, the offline double (scripted by the test, labelled, never guessing), the config profile's
calls to litellm (stubbed here), and the audio store: encrypted at rest with the payload keys, retention."""

from __future__ import annotations

import os
import time
import uuid
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from temporalio.exceptions import ApplicationError

from activities.voice.backends import (
    OFFLINE_LABEL,
    ConfigSpeech,
    OfflineSpeech,
    SpeechConfigError,
    SpeechError,
    backend,
    speech_profile,
)
from activities.voice.store import MAGIC, AudioStore
from core.codec import Keyring
from tests.e2e.voice.helpers import script_clips, tone_wav


def test_profiles():
    assert speech_profile({}) == "offline"
    assert speech_profile({"COLLOQUY_PROFILE": "local"}) == "local"
    assert speech_profile({"COLLOQUY_PROFILE": "local", "COLLOQUY_SPEECH_PROFILE": "config"}) == "config"
    with pytest.raises(SpeechConfigError, match="offline, local, config"):
        speech_profile({"COLLOQUY_SPEECH_PROFILE": "cloud"})
    assert backend("offline").profile == "offline"


def test_offline_double_answers_only_what_the_test_scripted(tmp_path):
    clip, other = tone_wav(440), tone_wav(880)
    double = OfflineSpeech(script_clips(tmp_path / "s.json", {clip: {"text": "scripted words", "language": "de"}}))
    heard = double.transcribe(clip, "audio/wav", "en", lambda s: None)
    assert (heard.text, heard.language, heard.engine) == ("scripted words", "de", OFFLINE_LABEL)
    with pytest.raises(SpeechError, match="never guesses"):
        double.transcribe(other, "audio/wav", "en", lambda s: None)
    with pytest.raises(SpeechError, match="never guesses"):
        OfflineSpeech().transcribe(clip, "audio/wav", "en", lambda s: None)   # no script at all
    spoken = double.synthesize("How did it start?", "en")
    assert spoken.audio[:4] == b"RIFF" and OFFLINE_LABEL.encode() in spoken.audio
    assert spoken.audio == double.synthesize("How did it start?", "en").audio     # deterministic


def test_config_profile_calls_litellm(monkeypatch):
    import litellm

    calls = []
    monkeypatch.setattr(litellm, "transcription", lambda **kw: calls.append(kw) or SimpleNamespace(text=" hi "))
    monkeypatch.setattr(litellm, "speech", lambda **kw: calls.append(kw) or SimpleNamespace(content=b"ID3 mp3"))
    speech = ConfigSpeech({"COLLOQUY_STT_MODEL": "openai/whisper-1", "COLLOQUY_TTS_MODEL": "openai/tts-1"})
    assert speech.transcribe(b"RIFF", "audio/webm", "de-AT", lambda s: None).text == "hi"
    assert calls[0]["model"] == "openai/whisper-1" and calls[0]["language"] == "de"
    assert calls[0]["file"][0] == "clip.webm"
    spoken = speech.synthesize("Wie fing es an?", "de")
    assert (spoken.content_type, calls[1]["voice"], calls[1]["input"]) == ("audio/mpeg", "alloy", "Wie fing es an?")
    with pytest.raises(SpeechConfigError, match="COLLOQUY_STT_MODEL"):
        ConfigSpeech({}).transcribe(b"", "audio/wav", "en", lambda s: None)


def test_audio_is_encrypted_at_rest_when_payload_encryption_is_on(tmp_path, monkeypatch):
    clip = tone_wav(440)
    monkeypatch.delenv("COLLOQUY_CODEC_KEYS_FILE", raising=False)
    plain = AudioStore(tmp_path / "a").put("audio-x", "clip-1.wav", clip, "audio/wav")
    assert (tmp_path / "a" / "audio-x" / "clip-1.wav").read_bytes() == clip
    keys = Keyring.generate().save(tmp_path / "keys.json")
    monkeypatch.setenv("COLLOQUY_CODEC_KEYS_FILE", str(keys))
    store = AudioStore(tmp_path / "b")
    ref = store.put("audio-x", "clip-1.wav", clip, "audio/wav")
    raw = (tmp_path / "b" / "audio-x" / "clip-1.wav").read_bytes()
    assert raw.startswith(MAGIC) and clip[100:200] not in raw
    assert ref.sha256 == plain.sha256 and store.get(ref) == clip
    monkeypatch.delenv("COLLOQUY_CODEC_KEYS_FILE")
    with pytest.raises(ApplicationError, match="encrypted"):
        store.get(ref)


def test_retention_sweeps_old_audio_only(tmp_path):
    store = AudioStore(tmp_path)
    old = store.put("audio-x", "clip-old.wav", tone_wav(440), "audio/wav")
    store.put("audio-x", "clip-new.wav", tone_wav(441), "audio/wav")
    store.files.put("x", "transcript.json", "[]")                       # not audio: never swept
    then = time.time() - 40 * 86400
    os.utime(store.files.path_for("audio-x", "clip-old.wav"), (then, then))
    assert store.sweep(days=None) == 0
    assert store.sweep(now=datetime.now(UTC) + timedelta(seconds=1), days=30) == 1
    assert store.ref("audio-x", "clip-old.wav", "audio/wav") is None and old.name == "clip-old.wav"
    assert store.ref("audio-x", "clip-new.wav", "audio/wav") is not None
    assert store.files.path_for("x", "transcript.json").exists()


def test_audio_lives_in_object_storage_when_the_artifact_store_is_s3(tmp_path, seaweed, monkeypatch):
    """`colloquy serve` (stateless, issue 25) writes a clip that an audio worker on another host reads: with the
    artifact store on S3 the clip goes there, not to the serving host's disk."""
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "local"))
    monkeypatch.delenv("COLLOQUY_CODEC_KEYS_FILE", raising=False)
    for name, value in seaweed.env(prefix=f"voice-{uuid.uuid4().hex[:8]}").items():
        monkeypatch.setenv(name, value)
    clip = tone_wav(440)
    ref = AudioStore().put("audio-x", "clip-1.wav", clip, "audio/wav")
    assert ref.uri.startswith("s3://colloquy/voice-") and not (tmp_path / "local").exists()
    other_host = AudioStore()
    assert other_host.get(ref) == clip and other_host.exists("audio-x", "clip-1.wav")
    assert not other_host.exists("audio-x", "clip-2.wav")
    again = other_host.ref("audio-x", "clip-1.wav", "audio/wav")
    assert again is not None and (again.uri, again.sha256) == (ref.uri, ref.sha256)
    assert other_host.sweep(days=0) == 0                    # object storage: the bucket's lifecycle rule expires
    assert other_host.get(ref) == clip
