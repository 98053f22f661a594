"""How long a compressed recording lasts, from its container alone (no decoding, no library): WebM (Matroska's EBML:
the Segment's declared Duration, else the last block's time) and Ogg (Opus or Vorbis: the last page's granule
position). None when the container does not say (a truncated or unusual file); rules/voice/clips.py then bounds
the clip by its size instead.

Both readers walk the bytes once, never trust a declared size beyond the data, and stop at the first thing they
cannot read: any input gives a number of seconds ≥ 0 or None, never an exception."""

from __future__ import annotations

import struct

# ------------------------------------------------------------------------------------------------ WebM (EBML)
SEGMENT, INFO, CLUSTER = 0x18538067, 0x1549A966, 0x1F43B675
TIMECODE_SCALE, DURATION, CLUSTER_TIMECODE = 0x2AD7B1, 0x4489, 0xE7
SIMPLE_BLOCK, BLOCK_GROUP, BLOCK = 0xA3, 0xA0, 0xA1
#: Elements whose children are read in place (the rest are skipped by their size). Cluster and Segment are often
#: of unknown size in a live recording (MediaRecorder): reading children in place needs no size for them.
_MASTERS = frozenset({SEGMENT, INFO, CLUSTER, BLOCK_GROUP})


def _vint(data: bytes, pos: int, keep_marker: bool) -> tuple[int, int, bool] | None:
    """(value, next position, all value bits set = unknown size) of the EBML variable-size integer at pos."""
    if pos >= len(data) or data[pos] == 0:
        return None
    first = data[pos]
    length = 8 - first.bit_length() + 1
    if pos + length > len(data):
        return None
    value = first if keep_marker else first & (0xFF >> length)
    for b in data[pos + 1:pos + length]:
        value = (value << 8) | b
    unknown = not keep_marker and value == (1 << (7 * length)) - 1
    return value, pos + length, unknown


def webm_seconds(data: bytes) -> float | None:
    """The duration a WebM file declares (Info/Duration x TimecodeScale), else the time of its last block; None
    when neither can be read."""
    scale, duration, cluster_at, last = 1_000_000, None, 0, None
    pos = 0
    while pos < len(data):
        head = _vint(data, pos, keep_marker=True)
        size = _vint(data, head[1], keep_marker=False) if head else None
        if head is None or size is None:
            break
        element, body, (length, end_of_header, unknown) = head[0], size[1], size
        if element in _MASTERS:
            pos = end_of_header
            continue
        if unknown or body + length > len(data):
            if element in (SIMPLE_BLOCK, BLOCK) and not unknown:
                length = len(data) - body  # a cut-off last block still says when it starts
            else:
                break
        value = data[body:body + length]
        if element == TIMECODE_SCALE and 0 < length <= 8:
            scale = int.from_bytes(value, "big") or scale
        elif element == DURATION and length in (4, 8):
            duration = struct.unpack(">f" if length == 4 else ">d", value)[0]
        elif element == CLUSTER_TIMECODE and 0 < length <= 8:
            cluster_at = int.from_bytes(value, "big")
        elif element in (SIMPLE_BLOCK, BLOCK):
            track = _vint(value, 0, keep_marker=False)
            if track is not None and track[1] + 2 <= len(value):
                at = cluster_at + struct.unpack(">h", value[track[1]:track[1] + 2])[0]
                last = at if last is None else max(last, at)
        pos = body + length
    if duration is not None and duration == duration and 0 <= duration < 1e15:  # not NaN, not absurd
        return duration * scale / 1e9
    return max(0, last) * scale / 1e9 if last is not None else None


# ------------------------------------------------------------------------------------------------ Ogg
def ogg_seconds(data: bytes) -> float | None:
    """The duration of the first logical stream of an Ogg file: (last granule position - pre-skip) / 48000 for
    Opus, last granule position / sample rate for Vorbis; None for another codec or unreadable pages."""
    pos, serial, rate, pre_skip, granule = 0, None, None, 0, None
    while pos + 27 <= len(data) and data[pos:pos + 4] == b"OggS":
        segments = data[pos + 26]
        table = data[pos + 27:pos + 27 + segments]
        if len(table) < segments:
            break
        body = pos + 27 + segments
        length = sum(table)
        page_granule, page_serial = struct.unpack("<qI", data[pos + 6:pos + 18])
        if serial is None:
            serial = page_serial
            packet = data[body:body + length]
            if packet[:8] == b"OpusHead" and len(packet) >= 12:
                rate, pre_skip = 48000, struct.unpack("<H", packet[10:12])[0]
            elif packet[:7] == b"\x01vorbis" and len(packet) >= 16:
                rate = struct.unpack("<I", packet[12:16])[0]
            else:
                return None
        elif page_serial == serial and page_granule >= 0:
            granule = page_granule if granule is None else max(granule, page_granule)
        if body + length > len(data):
            break
        pos = body + length
    if not rate or granule is None:
        return None
    return max(0, granule - pre_skip) / rate
