"""Output to a stream that cannot encode gradcalc's symbols (PYTHONIOENCODING=ascii, a
Latin-1 console): the symbols are spelled in ASCII (`∂y/∂x` as `dy/dx`, `✓` as `ok`)
and anything else is escaped, so no view ends in an encoding error."""

from __future__ import annotations

import codecs
import sys

#: how each of gradcalc's own symbols is spelled where it cannot be encoded
ASCII = {"∂": "d", "·": "*", "×": "*", "−": "-", "✓": "ok", "✗": "x", "→": "->",
         "←": "<-", "≤": "<=", "≥": ">=", "≠": "!=", "≈": "~", "²": "^2", "³": "^3",
         "ᵀ": "^T", "√": "sqrt", "π": "pi", "θ": "theta", "∇": "grad", "…": "...",
         "—": "--", "–": "-", "‖": "||", "│": "|", "─": "-", "━": "-", "•": "*"}
HANDLER = "gradcalc-ascii"


def _spell(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start:error.end]
    return "".join(ASCII.get(c) or (f"\\u{ord(c):04x}" if ord(c) < 0x10000
                                    else f"\\U{ord(c):08x}") for c in text), error.end


def tolerate_narrow_streams() -> None:
    """Give stdout and stderr the ASCII spelling when their encoding cannot write `∂`."""
    try:
        codecs.lookup_error(HANDLER)
    except LookupError:
        codecs.register_error(HANDLER, _spell)
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            "∂✓·".encode(encoding)
        except (UnicodeEncodeError, LookupError):
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                reconfigure(errors=HANDLER)
