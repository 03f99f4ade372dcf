"""Length-prefixed JSON frames, the judge's wire format at both ends.

RUNS INSIDE THE JUDGE SANDBOX as well as in the grader: standard library only.
A frame is a 4-byte big-endian length, then the message as ASCII JSON, at most
:data:`MAX_FRAME` bytes. The cap is in bytes of the frame, not characters: ASCII
JSON writes one character as up to 12 bytes (``\\ud83d\\ude00``), so the
grader checks what it relays from a kernel as the frame it becomes
(:class:`FrameTooLarge`, the student's failure).
"""

from __future__ import annotations

import json
import struct

MAX_FRAME = 64 * 2**20  # answers are capped at 16 MiB; ASCII JSON may triple them


class JudgeProtocolError(RuntimeError):
    """The other end of the pipe broke the protocol (the grader stops this judge)."""


class JudgeTimeout(JudgeProtocolError):
    """The judge did not answer in time."""


class CallbackStuck(Exception):
    """A test's function that the student's code called did not stop at the cell's time limit (its
    alarm cannot interrupt compiled code): the student's timeout, not the grader's failure."""


class FrameTooLarge(JudgeProtocolError):
    """A message would be a frame larger than :data:`MAX_FRAME` (nothing was sent)."""


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
    if len(body) > MAX_FRAME:
        raise FrameTooLarge(f"{len(body)} bytes, more than {MAX_FRAME}")
    return struct.pack(">I", len(body)) + body


def write_frame(stream, message: dict):
    stream.write(frame_bytes(message))
    stream.flush()

