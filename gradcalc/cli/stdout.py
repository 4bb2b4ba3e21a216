"""Standard output as the commands write it: error text made printable, a stream of
chunks that a closed pipe (`| head`) ends quietly."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

import typer

#: an error message is cut to this length (user text in it is already quoted and cut)
MAX_MESSAGE_CHARS = 2_000


def printable(message: str) -> str:
    """The message with every non-printable character (ESC and other controls, bidi and
    zero-width marks, surrogates) as a \\uXXXX escape, so user text quoted in an error can
    never drive the terminal; line breaks stay."""
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[:MAX_MESSAGE_CHARS] + "..."
    if message.isprintable():
        return message
    return "".join(c if c == "\n" or c.isprintable() else
                   f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"
                   for c in message)


class Stdout:
    """Standard output for a stream of chunks (text, or bytes to its buffer): a closed
    pipe (`| head`) ends the output quietly (the reader has what it wanted)."""

    takes_bytes = True

    def write(self, text: str | bytes) -> None:
        try:
            if isinstance(text, bytes):
                sys.stdout.flush()
                if hasattr(sys.stdout, "buffer"):
                    sys.stdout.buffer.write(text)
                else:  # a test's captured output
                    sys.stdout.write(text.decode())
            else:
                sys.stdout.write(text)
        except BrokenPipeError:
            pipe_closed()
            raise typer.Exit(0) from None

    def flush(self) -> None:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            pipe_closed()
            raise typer.Exit(0) from None


def write_all(chunks: Iterable[str]) -> None:
    """Each chunk to stdout as it is ready; a closed pipe (`| head`) ends the output quietly:
    the reader has what it wanted."""
    try:
        for chunk in chunks:
            sys.stdout.write(chunk)
            sys.stdout.flush()
    except BrokenPipeError:
        pipe_closed()


def pipe_closed() -> None:
    """Standard output's reader has gone (`| head`): what is still to be written, and
    Python's flush at exit, go to /dev/null instead of raising again."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
