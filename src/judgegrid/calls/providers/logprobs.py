"""The score token's alternatives: where a judge's JSON reply writes its score, and what else it
might have written there, read from the per-token log-probabilities a provider returns.

A judge answers ``{"verdict": "pass", "reason": "..."}``; G-Eval's weighting needs the
probabilities of the first token of the value (``pass``), not of the key or the quotes. Tokens
split text oddly (``":`` then `` "`` then ``pass``, or `` "pass`` in one piece), so the tokens'
bytes are laid end to end, the value's first character is found in that text, and the token
that holds it is the score token. Its alternatives are returned with the part of the chosen
token that lies before the value (a quote, a space) taken off each of them, so they read as
values: ``{"pass": -0.1, "fail": -2.4}``.

Both shapes litellm hands over are read: objects (``ChoiceLogprobs.content[i]``, with
``token``, ``bytes``, ``logprob``, ``top_logprobs``) and the same as plain dicts (a batch line).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

# What may stand between a token's start and the value in it without changing what the
# alternatives mean: ``"pass`` or `` 4`` chosen, ``fail`` or ``3`` among the alternatives.
_FILLER = ' "\t\n\r'


def score_alternatives(tokens: Sequence[Any] | None, field: str) -> dict[str, float] | None:
    """The alternatives at the first token of ``field``'s value (value text → log-probability),
    or None when there are no tokens or the value cannot be found among them."""
    if not tokens:
        return None
    pieces = [token_bytes(t) for t in tokens]
    start = value_start(b"".join(pieces), field)
    if start is None:
        return None
    offset = 0
    for token, piece in zip(tokens, pieces, strict=True):
        if offset + len(piece) > start:
            prefix = piece[: start - offset].decode("utf-8", "replace")
            return alternatives_after(token, prefix)
        offset += len(piece)
    return None


def value_start(text: bytes, field: str) -> int | None:
    """The byte offset of the first character of ``field``'s value in a JSON text (inside the
    quotes of a string value); None when the key, or anything after it, is not there."""
    key = re.escape(field.encode("utf-8"))
    found = re.search(rb'"' + key + rb'"\s*:\s*"?', text)
    if found is None or found.end() >= len(text):
        return None
    return found.end()


def alternatives_after(token: Any, prefix: str) -> dict[str, float]:
    """A token's alternatives with ``prefix`` (the chosen token's text before the value) taken
    off; an alternative that does not continue the same way is another path through the text,
    dropped, unless the prefix is only quotes and spaces, and so is one that is only quotes and
    spaces (the value has not begun). Alternatives that read as the same value are added up."""
    candidates = [(text_of(a), _get(a, "logprob")) for a in (_get(token, "top_logprobs") or [])]
    chosen = text_of(token)
    if chosen not in {text for text, _ in candidates}:
        candidates.append((chosen, _get(token, "logprob")))
    out: dict[str, float] = {}
    for text, logprob in candidates:
        value = _without_prefix(text, prefix)
        if not value or logprob is None or not math.isfinite(float(logprob)):
            continue
        out[value] = _log_add(out[value], float(logprob)) if value in out else float(logprob)
    return out


def _without_prefix(text: str, prefix: str) -> str | None:
    """The value an alternative begins (quotes and spaces before it taken off; empty when it
    is only those), or None when it leaves the chosen token's path before the value."""
    if text.startswith(prefix):
        rest = text[len(prefix) :]
    elif not prefix.strip(_FILLER):
        rest = text
    else:
        return None
    return rest.lstrip(_FILLER)


def token_bytes(token: Any) -> bytes:
    """A token's bytes as the provider gave them (a token may end inside a character), else
    its text in UTF-8."""
    raw = _get(token, "bytes")
    if raw:
        return bytes(raw)
    return str(_get(token, "token") or "").encode("utf-8")


def text_of(token: Any) -> str:
    raw = _get(token, "bytes")
    if raw:
        return bytes(raw).decode("utf-8", "replace")
    return str(_get(token, "token") or "")


def token_entry(piece: bytes, logprob: float) -> dict[str, Any]:
    """One token (or alternative) as OpenAI's ``logprobs.content`` gives it."""
    return {"token": piece.decode("utf-8", "replace"), "bytes": list(piece), "logprob": logprob}


def reply_tokens(choice: Any) -> list[Any] | None:
    """The per-token log-probabilities of one choice of a litellm response, None if none came."""
    logprobs = _get(choice, "logprobs")
    content = _get(logprobs, "content") if logprobs is not None else None
    return list(content) if content else None


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _log_add(a: float, b: float) -> float:
    """log(exp(a) + exp(b)), without overflow."""
    high, low = max(a, b), min(a, b)
    return high + math.log1p(math.exp(low - high))
