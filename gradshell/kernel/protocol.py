"""The wire between the front end and the kernel: length-prefixed JSON messages.

Each message is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON
(an object). JSON, not pickle: the front end reads what an untrusted kernel writes, and
JSON can only ever build plain data. A message over `MAX_MESSAGE` bytes is refused.
"""

from __future__ import annotations

import json
import os
import re
import select
import struct
import time
from typing import Any

#: The largest message either side accepts (a runaway print is cut long before this).
MAX_MESSAGE = 64 * 1024 * 1024

#: The stream of the kernel's own styled text (a lesson's, %step's views), which the front
#: end re-colours; learner code's output streams as "out" and "err" and is shown with no
#: escapes at all.
STYLED_STREAM = "styled"

_HEADER = struct.Struct(">I")


class ProtocolError(Exception):
    """The other side sent something that is not a valid message (or hung up)."""


class Closed(ProtocolError):
    """The other side closed its end of the pipe."""


class MessageTooLarge(ProtocolError):
    """A message this side was about to send is over `MAX_MESSAGE` (nothing was sent)."""


#: Lone surrogates: a Python str may hold them (chr(0xd800), a file read with
#: surrogateescape), UTF-8 cannot.
_SURROGATES = re.compile("[\ud800-\udfff]")


def encode(message: dict[str, Any]) -> bytes:
    """One message as bytes on the wire; a lone surrogate in its text becomes U+FFFD, so
    that any str learner code makes (or a terminal hands us) can cross."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    try:
        body = text.encode("utf-8")
    except UnicodeEncodeError:
        body = _SURROGATES.sub("\ufffd", text).encode("utf-8")
    if len(body) > MAX_MESSAGE:
        raise MessageTooLarge(f"message of {len(body):,} bytes is over the limit")
    return _HEADER.pack(len(body)) + body


def write_message(fd: int, message: dict[str, Any]) -> None:
    """Send one message on file descriptor `fd` (blocking until all of it is written)."""
    data = memoryview(encode(message))
    while data:
        written = os.write(fd, data)
        data = data[written:]


class Reader:
    """Reads whole messages from a file descriptor, with an optional deadline."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = bytearray()

    def _message_in_buffer(self) -> dict[str, Any] | None:
        if len(self._buffer) < _HEADER.size:
            return None
        (size,) = _HEADER.unpack_from(self._buffer)
        if size > MAX_MESSAGE:
            raise ProtocolError(f"message of {size:,} bytes is over the limit")
        end = _HEADER.size + size
        if len(self._buffer) < end:
            return None
        body = bytes(self._buffer[_HEADER.size : end])
        del self._buffer[:end]
        try:
            message = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ProtocolError(f"malformed message: {exc}") from None
        if not isinstance(message, dict):
            raise ProtocolError("malformed message: not an object")
        return message

    def read(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next message; None if `timeout` seconds pass first. Raises Closed at EOF."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            message = self._message_in_buffer()
            if message is not None:
                return message
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                ready, _, _ = select.select([self.fd], [], [], left)
                if not ready:
                    return None
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise Closed("the other side closed the connection")
            self._buffer += chunk


__all__ = [
    "MAX_MESSAGE",
    "Closed",
    "MessageTooLarge",
    "ProtocolError",
    "Reader",
    "encode",
    "write_message",
]
