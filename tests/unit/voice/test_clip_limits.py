"""The voice door's limits for every container (issue 38): a WebM or Ogg answer lasts at most 300 s like a WAV one
(the limit was checked for WAV only: a 400 s WebM was taken), and a WAV whose chunk runs past its data is a clear
400, not a 500."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client.web.interview.sessions import room_path
from rules.voice.clips import MAX_CLIP_SECONDS, UNTIMED_MAX_BYTES, ClipError, check_clip
from rules.voice.containers import ogg_seconds, webm_seconds
from tests.e2e.voice.helpers import tone_wav
from tests.unit.platform.test_serve_doors import SECRET, Handle, Temporal, serving, state
from tests.unit.voice.media import el, ogg_opus, webm

#: A WAV whose first chunk declares 29 bytes and holds 4: the wave module raised RuntimeError (a 500 at the door).
CHUNK_PAST_THE_DATA = (b"RIFF\x1d\x00\x00\x00WAVE\x00\x00\x00\x00\n\x05\x00\x00\x87\xf5\x00\x00\x00\x00\x00\x00"
                       b"\x00\x00\xdd>;\x041\xa3\xe2" + b"\x00" * 16)


def test_webm_and_ogg_durations_are_read_from_the_container():
    assert webm_seconds(webm(seconds=400.0)) == pytest.approx(400.0)          # the Segment's declared Duration
    assert webm_seconds(webm(blocks_until=400)) == pytest.approx(400.5)       # a live recording: its last block
    assert webm_seconds(webm(seconds=12.0, blocks_until=400)) == pytest.approx(12.0)  # the declaration wins
    assert ogg_seconds(ogg_opus(400)) == pytest.approx(400.0) and ogg_seconds(ogg_opus(12.5)) == pytest.approx(12.5)
    assert webm_seconds(b"\x1a\x45\xdf\xa3" + b"\x00" * 100) is None and ogg_seconds(b"OggS" + b"\x00" * 60) is None


@pytest.mark.parametrize(("data", "kind"), [(webm(seconds=400.0), "audio/webm"),
                                            (webm(blocks_until=400), "audio/webm;codecs=opus"),
                                            (ogg_opus(400), "audio/ogg"), (ogg_opus(400), "audio/webm")])
def test_a_webm_or_ogg_answer_over_300_s_is_refused_like_a_wav_one(data, kind):
    with pytest.raises(ClipError, match="lasts 40[01] s; at most 300 s"):
        check_clip(data, kind)


def test_shorter_ones_pass_with_their_duration_and_an_untimed_one_is_bounded_by_size():
    assert check_clip(webm(blocks_until=120), "audio/webm").seconds == pytest.approx(120.5)
    assert check_clip(ogg_opus(299), "audio/ogg").seconds == pytest.approx(299)
    assert check_clip(b"\x1a\x45\xdf\xa3" + b"\x00" * 100, "audio/webm").seconds is None  # too small to matter
    untimed = el(0x1A45DFA3, b"\x00" * (UNTIMED_MAX_BYTES + 10))
    with pytest.raises(ClipError, match="does not say how long it lasts"):
        check_clip(untimed, "audio/webm")


def test_regression_a_wav_chunk_past_the_data_is_a_clear_refusal():
    with pytest.raises(ClipError, match="not readable: a chunk's declared size runs past the data"):
        check_clip(CHUNK_PAST_THE_DATA, "audio/wav")


@st.composite
def mangled_clips(draw) -> tuple[bytes, str]:
    kind, base = draw(st.sampled_from([("audio/wav", tone_wav(440, seconds=0.2)), ("audio/webm", webm(30.0)),
                                       ("audio/webm", webm(blocks_until=360)), ("audio/ogg", ogg_opus(20))]))
    data = bytearray(base)
    for _ in range(draw(st.integers(0, 6))):
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    if draw(st.booleans()):  # a chunk/element size anywhere, often in the headers
        at = draw(st.one_of(st.integers(4, 64), st.integers(4, max(4, len(data) - 4))))
        data[at:at + 4] = struct.pack("<I", draw(st.integers(0, 2**32 - 1)))
    return bytes(data[:draw(st.integers(0, len(data)))]), kind


@settings(max_examples=300, deadline=None)
@given(mangled_clips())
def test_any_mangled_recording_is_a_clip_within_the_limits_or_a_clear_refusal(clip):
    data, kind = clip
    try:
        found = check_clip(data, kind)
    except ClipError as exc:
        assert str(exc)
    else:  # what passes the door never lasts over the limit, and one of unknown length is small
        assert found.seconds is None or 0 <= found.seconds <= MAX_CLIP_SECONDS
        if found.content_type != "audio/wav":
            declared = webm_seconds(data) if data[:4] == b"\x1a\x45\xdf\xa3" else ogg_seconds(data)
            assert found.seconds == declared  # whatever the container says is what was checked
            assert declared is not None or len(data) <= UNTIMED_MAX_BYTES


@pytest.mark.parametrize(("body", "kind", "says"), [
    (CHUNK_PAST_THE_DATA, "audio/wav", "not readable"),
    (webm(seconds=400.0), "audio/webm", "lasts 400 s"),
    (ogg_opus(400), "audio/ogg", "lasts 400 s"),
])
async def test_the_voice_door_answers_400_with_the_reason(body, kind, says):
    handle = Handle({"session_state": state()})
    async with serving(Temporal(**{"interview-a": handle})) as http:
        r = await http.post(f"{room_path(SECRET, 'interview-a')}/audio?consent=yes", data=body,
                            headers={"Content-Type": kind, "X-Colloquy-CSRF": "page"})
        assert r.status == 400, (r.status, await r.text())
        assert says in (await r.json())["error"]
    assert handle.calls == []  # refused before anything was asked of the interview
