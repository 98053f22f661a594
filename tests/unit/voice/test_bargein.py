"""Barge-in (issue 35, item 5): speech that starts while the question plays stops it and is kept in full; the
question's own audio (what the echo canceller leaves of it) never stops it."""

from __future__ import annotations

import array
import importlib.util
import math
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.voice import bargein, turns
from rules.voice.bargein import BARGE_IN_LEVEL, Action, BargeInRules, Onset, decide
from rules.voice.turns import SPEECH_LEVEL
from tests.e2e.voice.helpers import pcm_of

RULES = BargeInRules()
NEED, PRE = RULES.barge_in_frames, RULES.pre_roll_frames
LEVELS = st.lists(st.one_of(st.floats(0, 0.03), st.floats(0.03, 0.3)), max_size=80)


def frames(draw_levels: list[float], playing: list[bool]) -> tuple[list[float], list[bool]]:
    n = min(len(draw_levels), len(playing))
    return draw_levels[:n], playing[:n]


def test_speech_over_the_question_stops_it_and_is_kept_from_before_its_onset():
    levels = [0.0] * 10 + [0.1] * 8 + [0.0] * 4
    stop, kept = decide(levels, [True] * len(levels))
    assert stop == 10 + NEED - 1                          # stopped once the speech has lasted BARGE_IN_S
    assert kept == list(range(10 - PRE, len(levels)))     # the onset, and the pre-roll before it, kept


def test_echo_of_the_question_under_the_bar_never_stops_it():
    levels = [0.035, 0.02, 0.039, 0.01] * 30              # residual echo: above SPEECH_LEVEL, under BARGE_IN_LEVEL
    assert decide(levels, [True] * len(levels)) == (None, [])
    blips = ([0.2] * (NEED - 1) + [0.0]) * 10             # loud but shorter than BARGE_IN_S each time
    assert decide(blips, [True] * len(blips)) == (None, [])


def test_a_loud_run_that_outlasts_the_question_starts_the_answer_without_losing_its_start():
    levels = [0.0] * 6 + [0.1] * 5
    playing = [True] * 7 + [False] * 4                    # the question ends one frame into the speech
    stop, kept = decide(levels, playing)
    if NEED > 2:
        assert stop is None
    assert kept[0] == 6 - PRE and kept == list(range(kept[0], len(levels)))


def _loud(levels: list[float], playing: list[bool], i: int) -> bool:
    return levels[i] >= (BARGE_IN_LEVEL if playing[i] else SPEECH_LEVEL)


def _start(levels: list[float], playing: list[bool]) -> int | None:
    onset = Onset()
    for i, (level, on) in enumerate(zip(levels, playing, strict=True)):
        if onset.feed(i, level, on)[0] in (Action.START, Action.BARGE_IN):
            return i
    return None


@settings(max_examples=300, deadline=None)
@given(LEVELS, st.lists(st.booleans(), max_size=80))
def test_no_frame_after_the_onset_is_dropped(levels, playing):
    """Once the answer starts, every frame from its loud run on is kept (with at most PRE_ROLL_S before it), in one
    unbroken stretch to the end; the playback is stopped only at that start, and only if the question plays."""
    levels, playing = frames(levels, playing)
    stop, kept = decide(levels, playing)
    first = _start(levels, playing)
    if first is None:
        assert (stop, kept) == (None, [])
        return
    assert kept == list(range(kept[0], len(levels)))
    run_start = first
    while run_start > 0 and _loud(levels, playing, run_start - 1):
        run_start -= 1
    assert kept[0] <= run_start and run_start - kept[0] <= PRE
    assert stop is None or (stop == first and playing[stop])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0, BARGE_IN_LEVEL, exclude_max=True), max_size=80))
def test_the_question_alone_never_stops_itself(levels):
    """Whatever the question's echo does under BARGE_IN_LEVEL, the playback goes on and nothing is kept."""
    assert decide(levels, [True] * len(levels)) == (None, [])


@settings(max_examples=300, deadline=None)
@given(LEVELS, st.lists(st.booleans(), max_size=80))
def test_sustained_speech_over_the_question_always_stops_it(levels, playing):
    levels, playing = frames(levels, playing)
    stop, kept = decide(levels, playing)
    for i in range(len(levels) - NEED + 1):
        if all(playing[j] and levels[j] >= BARGE_IN_LEVEL for j in range(i, i + NEED)):
            assert kept and kept[0] <= i                  # started by then: stopped, or begun before
            break


# ----------------------------------------------------------------------------- real speech against the bar
def _frame_levels(wav: bytes, gain: float = 1.0) -> list[float]:
    pcm, rate = pcm_of(wav)
    samples = array.array("h", pcm)
    n = max(1, round(rate * RULES.frame_s))
    return [math.sqrt(sum((gain * x / 32768) ** 2 for x in samples[i:i + n]) / len(samples[i:i + n]))
            for i in range(0, len(samples), n)]


def test_the_bar_against_real_speech():
    """piper's speech clears the bar within its first half second; the same question's audio as residual echo
    (-20 dB: what is left after a modest echo canceller and the room) never does."""
    if importlib.util.find_spec("piper") is None:
        pytest.skip("piper is not installed (make install-voice)")
    from activities.voice.local import piper_wav

    question = piper_wav("Could you walk me through the very first week you spent on call for the payments team?")
    echo = _frame_levels(question, gain=0.1)
    assert decide(echo, [True] * len(echo)) == (None, [])
    speech = _frame_levels(piper_wav("I started carrying the pager by accident."))
    stop, kept = decide(speech, [True] * len(speech))
    assert stop is not None and stop * RULES.frame_s <= 0.5 and kept[0] == 0


def test_the_page_applies_the_same_constants():
    """client/web/voice.js carries the rule's constants in its `R` object: they must not drift apart."""
    script = (Path(__file__).resolve().parents[3] / "client" / "web" / "voice.js").read_text()
    found = {k: float(v) for k, v in re.findall(r"\b(\w+): (\d+(?:\.\d+)?)\b", script.split("const R = {")[1]
                                                                        .split("};")[0])}
    assert found == {"speech": turns.SPEECH_LEVEL, "endSilence": turns.END_SILENCE_S, "chunkPause": turns.CHUNK_PAUSE_S,
                     "chunkMin": turns.CHUNK_MIN_S, "chunkMax": turns.CHUNK_MAX_S, "preRoll": bargein.PRE_ROLL_S,
                     "maxTurn": 280.0, "bargeLevel": bargein.BARGE_IN_LEVEL, "bargeIn": bargein.BARGE_IN_S}
