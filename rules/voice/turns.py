"""When a spoken turn ends, and where a long one is cut into chunks that can be transcribed while the person
is still speaking. Levels are per-frame RMS amplitudes (0..1), as the page measures them (client/web/voice.js
applies the same rule with the same constants)."""

from __future__ import annotations

from dataclasses import dataclass

FRAME_S = 0.05
SPEECH_LEVEL = 0.02        # RMS above this is speech
END_SILENCE_S = 1.6        # this long quiet after speech ends the turn
CHUNK_PAUSE_S = 0.35       # a pause this long may cut a chunk...
CHUNK_MIN_S = 2.5          # ...once the chunk has this much audio
CHUNK_MAX_S = 12.0         # a chunk is cut here even without a pause


@dataclass(frozen=True)
class TurnRules:
    frame_s: float = FRAME_S
    speech_level: float = SPEECH_LEVEL
    end_silence_s: float = END_SILENCE_S
    chunk_pause_s: float = CHUNK_PAUSE_S
    chunk_min_s: float = CHUNK_MIN_S
    chunk_max_s: float = CHUNK_MAX_S


def turn_end(levels: list[float], rules: TurnRules = TurnRules()) -> int | None:
    """The frame index where the turn ends (after END_SILENCE_S of quiet following speech), or None: the
    person is still speaking or has not started."""
    spoke, quiet = False, 0
    need = max(1, round(rules.end_silence_s / rules.frame_s))
    for i, level in enumerate(levels):
        if level >= rules.speech_level:
            spoke, quiet = True, 0
        elif spoke:
            quiet += 1
            if quiet >= need:
                return i + 1
    return None


def chunk_cuts(levels: list[float], rules: TurnRules = TurnRules()) -> list[int]:
    """Frame indices where the audio is cut into chunks: at the first pause of CHUNK_PAUSE_S once a chunk holds
    CHUNK_MIN_S, or at CHUNK_MAX_S regardless. Every cut is strictly increasing and inside (0, len)."""
    cuts: list[int] = []
    start, quiet = 0, 0
    pause = max(1, round(rules.chunk_pause_s / rules.frame_s))
    least, most = round(rules.chunk_min_s / rules.frame_s), max(1, round(rules.chunk_max_s / rules.frame_s))
    for i, level in enumerate(levels):
        quiet = quiet + 1 if level < rules.speech_level else 0
        length = i + 1 - start
        if (quiet >= pause and length >= least) or length >= most:
            if i + 1 < len(levels):
                cuts.append(i + 1)
            start, quiet = i + 1, 0
    return cuts
