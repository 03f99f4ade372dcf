"""How much ``nbg collect`` reads from one download at most, counted as it is read.

A zip's header can lie about an entry's size, and a few kilobytes on disk can expand to gigabytes
(a zip bomb): :class:`ByteBudget` counts the bytes actually decompressed, chunk by chunk, against
the per-notebook limit (``c.Nbg.collect_max_file_bytes``: that file is rejected) and the whole
download's (``c.Nbg.collect_max_bytes``: the download is refused, :class:`DownloadRefused`).
"""

from __future__ import annotations

from grading.core.errors import NbgError

CHUNK = 1 << 20  # bytes decompressed at a time, so a lying entry is stopped within a chunk of a limit


class DownloadRefused(NbgError):
    """The whole download is refused and nothing was written (``nbg collect`` exits 1)."""


class ByteBudget:
    """The bytes one download may still yield; counts what is actually read."""

    def __init__(self, source, max_bytes, max_file_bytes):
        self.source, self.left, self.max_bytes, self.max_file_bytes = source, max_bytes, max_bytes, max_file_bytes

    def refuse(self, what):
        return DownloadRefused(
            f"{self.source}: {what}, over the limit of {self.max_bytes:,} bytes (c.Nbg.collect_max_bytes): "
            "nothing was collected. A download that small on disk expanding this far is a zip bomb; if it is "
            "a genuine class's download, raise c.Nbg.collect_max_bytes in the course's nbgrader_config.py")

    def read(self, handle, name):
        """Read ``handle`` to its end, counting each chunk against both limits."""
        chunks, size = [], 0
        while chunk := handle.read(CHUNK):
            size += len(chunk)
            if size > self.max_file_bytes:
                raise ValueError(f"over the {self.max_file_bytes}-byte limit (c.Nbg.collect_max_file_bytes) "
                                 "once decompressed, whatever the zip's header says")
            self.left -= len(chunk)
            if self.left < 0:
                raise self.refuse(f"reading {name} took the notebooks read past {self.max_bytes:,} bytes")
            chunks.append(chunk)
        return b"".join(chunks)
