"""Barge-in: speech that starts while the question is being spoken stops the playback and is kept in full as the
start of the answer. Frame by frame, as the page measures them (client/web/voice.js applies the same rule with the
same constants): each frame has its RMS level (0..1) and whether the question was playing.

- Before the person speaks, only a short pre-roll (PRE_ROLL_S) is held, so the first syllables are not cut.
- With no question playing, a frame at SPEECH_LEVEL starts the answer (rules/voice/turns.py).
- While the question plays, the microphone also hears what is left of it after the browser's echo canceller
  (getUserMedia's echoCancellation). So speech must be louder (BARGE_IN_LEVEL) and last (BARGE_IN_S of
  consecutive loud frames) before it stops the playback: residual echo stays under that bar, a spoken word clears
  it. The frames of that loud run and the pre-roll before it are all kept, none dropped.
- Speech softer than BARGE_IN_LEVEL during the question does not stop it (and is not kept); it is heard once the
  question has ended.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from rules.voice.turns import FRAME_S, SPEECH_LEVEL

PRE_ROLL_S = 0.3           # audio kept from before the onset of speech
BARGE_IN_LEVEL = 0.04      # while the question plays, RMS at or above this may be speech (2× SPEECH_LEVEL)...
BARGE_IN_S = 0.2           # ...once it has lasted this long without a break: then the playback stops


class Action(StrEnum):
    WAIT = "wait"          # nothing said yet: the frame is held in the pre-roll (or the loud run) for now
    START = "start"        # the answer starts here (no question playing): held frames and this one are kept
    BARGE_IN = "barge-in"  # the answer starts over the question: stop the playback; held frames and this one kept
    KEEP = "keep"          # the answer goes on: the frame is kept


@dataclass(frozen=True)
class BargeInRules:
    frame_s: float = FRAME_S
    speech_level: float = SPEECH_LEVEL
    barge_in_level: float = BARGE_IN_LEVEL
    barge_in_s: float = BARGE_IN_S
    pre_roll_s: float = PRE_ROLL_S

    @property
    def barge_in_frames(self) -> int:
        return max(1, round(self.barge_in_s / self.frame_s))

    @property
    def pre_roll_frames(self) -> int:
        return max(0, round(self.pre_roll_s / self.frame_s))


@dataclass
class Onset:
    """The decision over a stream of frames, one at a time. `kept` returns the frames handed over by the last
    `feed` (the held frames once the answer starts, then each frame)."""

    rules: BargeInRules = field(default_factory=BargeInRules)
    started: bool = False
    run: int = 0                                   # consecutive loud frames before the start
    held: list[int] = field(default_factory=list)  # indices of held frames (pre-roll + loud run)

    def feed(self, index: int, level: float, playing: bool) -> tuple[Action, list[int]]:
        if self.started:
            return Action.KEEP, [index]
        self.held.append(index)
        self.run = self.run + 1 if level >= (self.rules.barge_in_level if playing else self.rules.speech_level) \
            else 0
        if self.run and (not playing or self.run >= self.rules.barge_in_frames):
            self.started, kept, self.held = True, self.held, []
            return (Action.BARGE_IN if playing else Action.START), kept
        del self.held[:max(0, len(self.held) - self.rules.pre_roll_frames - self.run)]
        return Action.WAIT, []


def decide(levels: list[float], playing: list[bool], rules: BargeInRules = BargeInRules()) -> tuple[int | None,
                                                                                                    list[int]]:
    """Over a whole stream: the frame at which the playback is stopped (None: never) and the frames kept."""
    onset, stop, kept = Onset(rules), None, []
    for i, (level, on) in enumerate(zip(levels, playing, strict=True)):
        action, frames = onset.feed(i, level, on)
        kept += frames
        if action is Action.BARGE_IN:
            stop = i
    return stop, kept
