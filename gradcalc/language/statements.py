"""Statement splitting: lines such as `a; while c: b` rewritten into lines Python accepts.

Beyond Python, a compound statement may follow `;` or another header's `:` on one line:
`y = x; while c: y = y*2; z = y` puts everything after `while c:` into the loop body
(as Python does for `while c: a; b`); `elif`/`else` after `;` belong to the innermost
open `if`.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterator

from gradcalc.language.text import LineIndex

_COMPOUND = {"if", "elif", "else", "while", "for", "def", "class", "with", "try",
             "except", "finally", "async"}
_CONTINUATION = {"elif", "else", "except", "finally"}
_SKIP = {tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT}


def _logical_lines(tokens: list[tokenize.TokenInfo]) -> list[list[tokenize.TokenInfo]]:
    lines: list[list[tokenize.TokenInfo]] = []
    line: list[tokenize.TokenInfo] = []
    for tok in tokens:
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if line:
                lines.append(line)
            line = []
        elif tok.type not in _SKIP:
            line.append(tok)
    return lines


def _pieces(line: list[tokenize.TokenInfo]) -> list[tuple[str | None, int, int]] | None:
    """(compound keyword or None, first token, last token) per statement or header;
    None if Python accepts the line as it is (no header except possibly the first)."""
    if any(tok.type == tokenize.ERRORTOKEN for tok in line):
        return None
    ends = [k for k in _top_level(line, 0, len(line)) if line[k].string == ";"]
    pieces: list[tuple[str | None, int, int]] = []
    seg_start = 0
    for seg_end in [*ends, len(line)]:
        i = seg_start
        while i < seg_end:
            kw = line[i].string if line[i].type == tokenize.NAME else None
            colon = None
            if kw in _COMPOUND:
                colon = next((k for k in _top_level(line, i, seg_end)
                              if line[k].string == ":"), None)
            if colon is None:
                pieces.append((None, i, seg_end - 1))
                break
            pieces.append((kw, i, colon))
            i = colon + 1
        seg_start = seg_end + 1
    heads = [p for p in pieces[1:] if p[0] is not None]
    return pieces if heads else None


def _top_level(line: list[tokenize.TokenInfo], start: int, stop: int) -> Iterator[int]:
    """Indices of operator tokens outside brackets in line[start:stop]."""
    depth = 0
    for k in range(start, stop):
        tok = line[k]
        if tok.type == tokenize.OP:
            depth += (tok.string in "([{") - (tok.string in ")]}")
            if depth == 0:
                yield k


def split_statements(text: str, tokens: list[tokenize.TokenInfo] | None = None
                     ) -> tuple[str, list[int]]:
    """Rewrite lines such as `a; while c: b` into indented lines Python accepts.

    Returns the new text and, per character (plus an end entry), its offset in `text`.
    Lines the tokenizer cannot read are left as they are, for ast.parse to report.
    """
    if tokens is None:  # else: the notation pass's tokens of this very text
        tokens = []
        try:
            tokens.extend(tokenize.generate_tokens(io.StringIO(text).readline))
        except Exception:  # the lines read so far are still rewritten; ast.parse reports it
            pass
    lines = LineIndex(text)
    out: list[str] = []
    origin: list[int] = []
    cursor = 0

    def copy(a: int, b: int) -> None:
        out.append(text[a:b])
        origin.extend(range(a, b))

    for line in _logical_lines(tokens):
        pieces = _pieces(line)
        if pieces is None:
            continue
        first = lines.offset(*line[0].start)
        line_start = lines.offset(line[0].start[0], 0)
        indent = text[line_start:first]
        step = "\t" if "\t" in indent else "    "
        copy(cursor, line_start)
        levels = [[indent, False]]  # [indentation, last statement was a header]
        for n, (kw, a, b) in enumerate(pieces):
            if kw in _CONTINUATION:
                while len(levels) > 1 and not levels[-1][1]:
                    levels.pop()
            start, end = lines.offset(*line[a].start), lines.offset(*line[b].end)
            if n:
                out.append("\n")
                origin.append(start)
            out.append(levels[-1][0])
            origin.extend([start] * len(levels[-1][0]))
            copy(start, end)
            levels[-1][1] = kw is not None
            if kw is not None:
                levels.append([levels[-1][0] + step, False])
        cursor = lines.offset(*line[-1].end)
    copy(cursor, len(text))
    origin.append(len(text))
    return "".join(out), origin
