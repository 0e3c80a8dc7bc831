"""HTTP content codings (RFC 9110 §8.4.1) undone one piece of the body at a time.

The fetcher reads the raw bytes in pieces and checks its deadline between them (issue 17);
urllib3's own decoding reads on, past any deadline, for as long as the compressed bytes decode
to nothing (a gzip header's comment dripped a byte a second). Only what ACCEPTED advertises is
undone: gzip and deflate, with the standard library's zlib.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

ACCEPTED = "gzip, deflate"  # the Accept-Encoding the fetcher sends: what Decoder undoes


class UnknownCoding(Exception):
    """The answer is in a coding tally did not ask for and cannot undo (e.g. br)."""


class CorruptBody(Exception):
    """The compressed bytes are not valid gzip/deflate."""


class CutBody(Exception):
    """The body ended inside the compressed stream: the download was cut."""


class _Zlib:
    """One coding's stream: gzip (members one after another) or deflate (zlib-wrapped, or raw
    as some servers send it, like urllib3 and browsers accept)."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self._gzip = coding in ("gzip", "x-gzip")
        self._obj = self._new()
        self._raw_tried = self._gzip  # deflate: zlib-wrapped first, then raw
        self._started = b""  # deflate's first bytes, kept to try again as raw deflate
        self._ended = False
        self._fed = False

    def _new(self) -> zlib._Decompress:
        return zlib.decompressobj(16 + zlib.MAX_WBITS if self._gzip else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> bytes:
        out = bytearray()
        self._fed = self._fed or bool(data)
        while data and not self._ended:
            if not self._raw_tried:
                self._started += data
            try:
                out += self._obj.decompress(data)
            except zlib.error as exc:
                if self._raw_tried:
                    raise CorruptBody(f"corrupt {self.coding} body ({exc})") from None
                self._raw_tried, data, self._started = True, self._started, b""
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
                continue
            if out:
                self._raw_tried, self._started = True, b""
            data = b""
            if self._obj.eof:
                rest = self._obj.unused_data
                if self._gzip and rest.startswith(b"\x1f\x8b"):  # the next member
                    self._obj, data = self._new(), rest
                else:  # the stream's end: what follows (padding, garbage) is not the page
                    self._ended = True
        return bytes(out)

    def end(self) -> bytes:
        if self._fed and not self._obj.eof:  # (an empty body is empty, whatever its coding)
            raise CutBody(f"the {self.coding} body ends before its end")
        return b""


class Decoder:
    """Undoes the codings of a Content-Encoding header, in the reverse of their order."""

    def __init__(self, header: str | None) -> None:
        codings = [c.strip().lower() for c in (header or "").split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        unknown = [c for c in codings if c not in ("gzip", "x-gzip", "deflate")]
        if unknown:
            raise UnknownCoding(", ".join(unknown))
        self._streams: Sequence[_Zlib] = [_Zlib(c) for c in reversed(codings)]

    @property
    def encoded(self) -> bool:
        return bool(self._streams)

    def feed(self, data: bytes) -> bytes:
        for stream in self._streams:
            data = stream.feed(data)
        return data

    def end(self) -> bytes:
        """What is left once the raw body is all read; CutBody when a stream is incomplete."""
        tail = b""
        for stream in self._streams:
            tail = stream.feed(tail) + stream.end()
        return tail
