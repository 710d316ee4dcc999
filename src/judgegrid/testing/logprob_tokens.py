"""Scripted log-probabilities: a reply's tokens as a provider would return them (OpenAI's
``logprobs.content``), with the alternatives a test chose at the score token.

The scripted provider of the tests and the fault server both answer a request that asks for
``logprobs`` with these. The score token is the first token of the reply's first value (a judge
writes its score first: ``{"verdict": "pass", ...}``); every other token is certain (log-
probability 0, no alternative). Tokens are words, runs of spaces and single other characters,
cut so that the score value starts a token.
"""

from __future__ import annotations

import re
from typing import Any

from judgegrid.calls.providers.logprobs import token_entry, value_start

_PIECE = re.compile(r"\w+|\s+|[^\w\s]", re.UNICODE)
_FIRST_KEY = re.compile(r'\s*\{\s*"((?:[^"\\]|\\.)*)"')


def scripted_logprobs(
    text: str, alternatives: dict[str, float] | None, top: int | None = None
) -> dict[str, Any] | None:
    """A choice's ``logprobs`` for ``text``: ``alternatives`` (value text → log-probability,
    the chosen value among them, else it gets 0) at the score token, at most ``top`` of them
    (the most likely); None when ``alternatives`` is None (the provider gives none)."""
    if alternatives is None:
        return None
    start = score_offset(text)
    head, tail = (text, "") if start is None else (text[:start], text[start:])
    content, offset = [], 0
    for piece in _PIECE.findall(head) + _PIECE.findall(tail):
        at_score = start is not None and offset == start
        content.append(_token(piece, alternatives if at_score else {}, top))
        offset += len(piece)
    return {"content": content}


def score_offset(text: str) -> int | None:
    """Where the value of a JSON reply's first key begins (characters), if it is an object."""
    first = _FIRST_KEY.match(text)
    if first is None:
        return None
    found = value_start(text.encode("utf-8"), first.group(1))
    return None if found is None else len(text.encode("utf-8")[:found].decode("utf-8"))


def _token(piece: str, alternatives: dict[str, float], top: int | None) -> dict[str, Any]:
    chosen = float(alternatives.get(piece, 0.0))
    ranked = sorted({**alternatives, piece: chosen}.items(), key=lambda kv: -kv[1])
    return {
        **token_entry(piece.encode("utf-8"), chosen),
        "top_logprobs": [token_entry(t.encode("utf-8"), lp) for t, lp in ranked[:top]],
    }
