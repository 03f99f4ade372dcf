"""Length-prefixed JSON frames, the judge's wire format at both ends.

RUNS INSIDE THE JUDGE SANDBOX as well as in the grader: standard library only.
A frame is a 4-byte big-endian length, then the message as ASCII JSON.
"""

from __future__ import annotations

import json
import struct

MAX_FRAME = 512 * 2**20


class JudgeProtocolError(RuntimeError):
    """The other end of the pipe broke the protocol (the grader stops this judge)."""


def frame_size(header: bytes) -> int:
    """The body length a 4-byte header announces, refused above :data:`MAX_FRAME`."""
    (size,) = struct.unpack(">I", header)
    if size > MAX_FRAME:
        raise JudgeProtocolError(f"frame of {size} bytes exceeds {MAX_FRAME}")
    return size


def read_frame(stream) -> dict | None:
    """One frame (a 4-byte big-endian length, then JSON), or None at end of stream."""
    header = stream.read(4)
    if not header:
        return None
    if len(header) != 4:
        raise JudgeProtocolError("truncated frame header")
    size = frame_size(header)
    body = stream.read(size)
    if len(body) != size:
        raise JudgeProtocolError("truncated frame")
    return json.loads(body)


def frame_bytes(message: dict) -> bytes:
    """One frame: a 4-byte big-endian length, then the message as ASCII JSON."""
    body = json.dumps(message, ensure_ascii=True, allow_nan=True).encode("ascii")
    return struct.pack(">I", len(body)) + body


def write_frame(stream, message: dict):
    stream.write(frame_bytes(message))
    stream.flush()

