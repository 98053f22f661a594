"""The voice path's pure rules: word error rate, clips, turns and chunks, voices per language, retention."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.voice.clips import MAX_CLIP_BYTES, ClipError, canonical_type, check_clip, clip_key
from rules.voice.retention import expired, parse_days
from rules.voice.turns import TurnRules, chunk_cuts, turn_end
from rules.voice.voices import LanguageError, primary, voice_for
from rules.voice.wer import corpus_wer, edit_distance, word_error_rate, words
from tests.e2e.voice.helpers import tone_wav

WORDS = st.lists(st.sampled_from(["the", "pager", "went", "off", "at", "three", "night", "queue"]), max_size=12)


# ------------------------------------------------------------------------------------------------ WER
def test_wer_known_cases():
    assert word_error_rate("I kept answering the pager.", "i kept answering the pager") == 0.0
    assert word_error_rate("a dinghy on the lake", "a dingy on the lake") == pytest.approx(0.2)
    assert word_error_rate("one two three four", "one three four five six") == pytest.approx(3 / 4)
    assert word_error_rate("", "") == 0.0 and word_error_rate("", "noise") == 1.0
    assert words("Don't – stop: it's well-known!") == ["don't", "stop", "it's", "well", "known"]
    assert corpus_wer([("a b", "a b"), ("c d e f", "c x e f")]) == pytest.approx(1 / 6)


@settings(max_examples=60, deadline=None)
@given(WORDS, WORDS)
def test_wer_is_a_distance(ref, hyp):
    """Zero for itself, symmetric edits, bounded by the longer side, triangle inequality through []."""
    assert edit_distance(ref, ref) == 0
    assert edit_distance(ref, hyp) == edit_distance(hyp, ref)
    assert abs(len(ref) - len(hyp)) <= edit_distance(ref, hyp) <= max(len(ref), len(hyp))
    if ref:
        assert word_error_rate(" ".join(ref), " ".join(hyp)) == edit_distance(ref, hyp) / len(ref)


# ---------------------------------------------------------------------------------------------- clips
def test_clips_identity_and_refusals():
    wav = tone_wav(440)
    clip = check_clip(wav, "audio/wav")
    assert clip.key == clip_key(wav) and clip.name == f"clip-{clip.key}.wav" and clip.entry_id == f"voice-{clip.key}"
    assert clip.seconds == pytest.approx(0.5)
    assert check_clip(wav, "audio/x-wav; codecs=1").key == clip.key       # aliases, parameters
    assert check_clip(b"\x1a\x45\xdf\xa3" + b"\x00" * 100, "audio/webm;codecs=opus").content_type == "audio/webm"
    for data, kind, says in [(wav, "text/plain", "audio/wav or audio/webm"), (b"", "audio/wav", "empty"),
                             (b"\x1a\x45\xdf\xa3" + b"\x00" * 100, "audio/wav", "first bytes"),
                             (wav, "audio/webm", "first bytes"),
                             (b"RIFF\x00\x00\x00\x00WAVEjunk" + b"\x00" * 64, "audio/wav", "not readable")]:
        with pytest.raises(ClipError, match=says):
            check_clip(data, kind)
    with pytest.raises(ClipError, match="at most"):
        check_clip(wav, "audio/wav", max_bytes=100)
    with pytest.raises(ClipError, match="lasts"):
        check_clip(tone_wav(440, seconds=2.0), "audio/wav", max_seconds=1.0)
    assert MAX_CLIP_BYTES >= 10 * 1024 * 1024
    assert canonical_type("AUDIO/WAVE") == "audio/wav"


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(["audio/wav", "audio/webm", "audio/ogg", "video/mp4", ""]))
def test_any_body_is_a_clip_or_a_clear_refusal(data, kind):
    try:
        clip = check_clip(data, kind)
    except ClipError as exc:
        assert str(exc)
    else:
        assert clip.size == len(data) and clip.key == clip_key(data)


# ---------------------------------------------------------------------------------------------- turns
def frames(*spans: tuple[float, float]) -> list[float]:
    """(seconds, level) spans as 50 ms frames."""
    return [level for seconds, level in spans for _ in range(round(seconds / 0.05))]


def test_a_turn_ends_after_quiet_following_speech():
    assert turn_end(frames((1.0, 0.0))) is None                          # not started: never ends
    assert turn_end(frames((0.5, 0.0), (3.0, 0.2), (1.0, 0.0))) is None  # a pause shorter than the end
    end = turn_end(frames((0.5, 0.0), (3.0, 0.2), (2.0, 0.0)))
    assert end == round((0.5 + 3.0 + 1.6) / 0.05)


def test_chunks_are_cut_at_pauses_and_at_most_max():
    speech = frames((3.0, 0.2), (0.4, 0.0), (3.0, 0.2), (0.1, 0.0), (2.0, 0.2))
    assert chunk_cuts(speech) == [round(3.35 / 0.05)]                   # the first long-enough pause
    assert chunk_cuts(frames((30.0, 0.2))) == [240, 480]                  # no pause: every 12 s


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), max_size=600), st.floats(0.5, 5), st.floats(0.1, 1))
def test_cuts_are_increasing_inside_and_bounded(levels, least, pause):
    rules = TurnRules(chunk_min_s=least, chunk_pause_s=pause)
    cuts = chunk_cuts(levels, rules)
    assert cuts == sorted(set(cuts)) and all(0 < c < len(levels) for c in cuts)
    bounds = [0, *cuts, len(levels)]
    assert all(b - a <= round(rules.chunk_max_s / rules.frame_s) for a, b in zip(bounds, bounds[1:], strict=False))


# --------------------------------------------------------------------------------------------- voices
def test_voices_per_language():
    assert voice_for("en") == voice_for("en-GB") and voice_for("en").engine == "piper"
    assert voice_for("en", prefer="espeak-ng").name == "en-us"
    assert (voice_for("de").engine, voice_for("de").name, voice_for("de").language) == ("espeak-ng", "de", "de")
    assert voice_for("pt-BR").name == "pt-br" and voice_for("zh").name == "cmn"
    assert primary("pt_BR") == "pt"
    with pytest.raises(LanguageError):
        primary("not a language")


# ------------------------------------------------------------------------------------------ retention
def test_retention():
    now = datetime(2026, 11, 26, tzinfo=UTC)
    assert parse_days(None) is None and parse_days("") is None and parse_days("0") is None
    assert parse_days("30") == 30.0
    with pytest.raises(ValueError):
        parse_days("-1")
    assert expired(now - timedelta(days=31), now, 30.0) and not expired(now - timedelta(days=29), now, 30.0)
    assert not expired(now - timedelta(days=3650), now, None)
