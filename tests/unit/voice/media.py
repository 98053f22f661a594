"""Small WebM and Ogg (Opus) recordings for the tests, built byte by byte: a declared Duration, or clusters of
blocks up to a time (what a browser's MediaRecorder writes: Segment and Clusters of unknown size), or Ogg pages up
to a granule position. The audio itself is filler: only the containers are read."""

from __future__ import annotations

import struct

UNKNOWN_SIZE = b"\x01\xff\xff\xff\xff\xff\xff\xff"


def el(eid: int, body: bytes, unknown: bool = False) -> bytes:
    """One EBML element: its id, an 8-byte size (or the unknown size), its body."""
    size = UNKNOWN_SIZE if unknown else b"\x01" + len(body).to_bytes(7, "big")
    return eid.to_bytes((eid.bit_length() + 7) // 8, "big") + size + body


def webm(seconds: float | None = None, blocks_until: float | None = None, cluster_s: int = 20) -> bytes:
    """A WebM with a declared Duration of `seconds` and/or clusters (one every `cluster_s`) up to `blocks_until`."""
    head = el(0x1A45DFA3, el(0x4282, b"webm"))
    info = el(0x2AD7B1, (1_000_000).to_bytes(3, "big"))
    if seconds is not None:
        info += el(0x4489, struct.pack(">d", seconds * 1000))
    clusters = b""
    t = 0
    while blocks_until is not None and t <= blocks_until * 1000:
        blocks = b"".join(el(0xA3, b"\x81" + struct.pack(">h", d) + b"\x80" + b"\x00" * 20) for d in (0, 500))
        clusters += el(0x1F43B675, el(0xE7, t.to_bytes(4, "big")) + blocks, unknown=True)
        t += cluster_s * 1000
    return head + el(0x18538067, el(0x1549A966, info) + el(0x1654AE6B, b"\x00" * 10) + clusters, unknown=True)


def ogg_page(granule: int, serial: int, seq: int, packet: bytes, flags: int = 0) -> bytes:
    lacing = [255] * (len(packet) // 255) + [len(packet) % 255]
    return (b"OggS" + bytes([0, flags]) + struct.pack("<qIII", granule, serial, seq, 0) + bytes([len(lacing)])
            + bytes(lacing) + packet)


def ogg_opus(seconds: float, pre_skip: int = 312) -> bytes:
    """An Ogg Opus stream of `seconds` (its last granule position), pages every 10 s."""
    head = b"OpusHead" + bytes([1, 1]) + struct.pack("<HI", pre_skip, 48000) + b"\x00\x00\x00"
    pages = [ogg_page(0, 7, 0, head, flags=2), ogg_page(0, 7, 1, b"OpusTags" + b"\x00" * 8)]
    granule, seq = 0, 2
    while granule < seconds * 48000:
        granule = min(granule + 48000 * 10, int(seconds * 48000))
        pages.append(ogg_page(granule + pre_skip, 7, seq, b"\x00" * 100))
        seq += 1
    return b"".join(pages)
