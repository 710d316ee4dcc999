"""Secrets are never echoed: a key-like value is shown as ``sk-…1234`` in every message, and a
URL's credentials as ``***``.

A key can reach a message in three ways: written where a key does not belong (the matrix's
``api_key_env`` holding the key itself, ``extra: {api_key: …}``), inside a provider's error
text, and inside a URL (``https://user:KEY@host/v1``, ``?key=KEY``, as some gateways take it).
``redact_value`` shortens a value known to be secret; ``redact_url`` masks a URL's userinfo and
its secret-named query parameters; ``redact_text`` does both to any text (URLs, the prefixes
providers use, long unbroken tokens mixing letters and digits). ``looks_like_key`` is the one
rule of what is key-shaped: a value ``redact_text`` would change. ``redact_stored`` is what a
value becomes before it is written (the run database, the resolved matrix): secret-named fields
shortened, URLs masked, and HTTP headers (``extra_headers``) masked by name (``Authorization``,
``x-api-key``) or by a key-shaped value.

Two places apply them, where data leaves the process: the stores' write paths (``store``) and
the terminal (``cli``). The real URL is still the one called (``calls.providers.gateway``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

# Field names whose values are secrets wherever they occur (matrix options, provider arguments).
SECRET_FIELDS = frozenset({"api_key", "apikey", "key", "token", "password", "secret"})
# Query (and fragment) parameters whose values are secrets: gateways' keys, OAuth tokens and
# codes, signed URLs' signatures; and any name ending in one of SECRET_SUFFIXES
# (``subscription-key``, ``x-goog-api-key``, ``refresh_token``, ``client_secret``).
SECRET_PARAMS = SECRET_FIELDS | {
    "access_token",
    "auth",
    "code",
    "credential",
    "credentials",
    "passwd",
    "pwd",
    "sig",
    "signature",
}
SECRET_SUFFIXES = ("_key", "_token", "_secret", "_password", "_signature", "_sig")
# Headers that carry credentials whatever their value looks like (beside SECRET_PARAMS' names:
# ``api-key``, ``x-api-key``, ``x-goog-api-key``), and the provider arguments that hold headers.
SECRET_HEADERS = frozenset({"authorization", "proxy_authorization", "cookie"})
HEADER_FIELDS = frozenset({"extra_headers", "headers", "default_headers"})
MASK = "***"
# An environment variable named where a secret goes (a header's value): ``${GATEWAY_KEY}``.
ENV_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

# A URL with a scheme, up to the first space, quote or bracket (as it appears in a message).
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>()\[\]{}]+")

_PREFIXED = re.compile(
    r"(?<![A-Za-z0-9])(?:sk|pk|rk|hf|ghp|gho|ghs|glpat|xox[abpr]|AIza|AKIA|ya29)[-_.]?"
    r"[A-Za-z0-9_\-]{12,}"
)
# The unbroken run a key needs: a provider's prefix says much already, a bare token less.
_PREFIXED_RUN, _LONG_RUN = 10, 16
_LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-/.])[A-Za-z0-9_\-]{32,}(?![A-Za-z0-9_\-/.])")


def redact_value(value: Any) -> str:
    """A secret shortened to what identifies it to its owner: ``sk-…1234``."""
    text = str(value)
    if len(text) < 12:
        return "…"
    head = text[:3]
    return f"{head}…{text[-4:]}"


def _looks_like_key(token: str, min_run: int = 16) -> bool:
    """A token is a key when it mixes letters and digits and has an unbroken run of at least
    ``min_run`` characters: not a hex digest (40 or 64 hex digits: a commit, a content
    address), and not words and numbers joined by - or _ (a UUID,
    ``claude-3-5-sonnet-20241022-strict``, ``hf-mistral-7b-instruct-v0.2``)."""
    has_digit = any(c.isdigit() for c in token)
    has_letter = any(c.isalpha() for c in token)
    is_hex_digest = len(token) in (40, 64) and all(c in "0123456789abcdef" for c in token)
    longest_run = max(len(part) for part in re.split(r"[-_.]", token))
    return has_digit and has_letter and not is_hex_digest and longest_run >= min_run


def _redact_if_key(match: re.Match[str], min_run: int) -> str:
    token = match.group(0)
    return redact_value(token) if _looks_like_key(token, min_run) else token


def is_secret_param(name: str) -> bool:
    """Whether a query parameter of that name carries a secret (``key``, ``api-key``, ``sig``…)."""
    norm = unquote(name).strip().lower().replace("-", "_")
    return norm in SECRET_PARAMS or norm.endswith(SECRET_SUFFIXES)


def _mask_params(params: str) -> str:
    """``a=1&key=sk-…`` → ``a=1&key=***``: the values of secret-named parameters masked, the
    rest of the string as it was (no re-encoding)."""
    pieces = []
    for piece in params.split("&"):
        name, equals, _ = piece.partition("=")
        pieces.append(f"{name}={MASK}" if equals and is_secret_param(name) else piece)
    return "&".join(pieces)


def redact_url(url: str) -> str:
    """``url`` with its userinfo (``user:key@``) and the values of its secret-named query and
    fragment parameters masked: ``https://***@host/v1?key=***&api-version=1``. Scheme, host,
    port, path and other parameters stay, so the message still says where the call went."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    cut = min((i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0), default=-1)
    authority, tail = (rest, "") if cut < 0 else (rest[:cut], rest[cut:])
    if "@" in authority:
        authority = f"{MASK}@{authority.rsplit('@', 1)[1]}"
    path, hash_sign, fragment = tail.partition("#")
    path, question, query = path.partition("?")
    if question:
        query = _mask_params(query)
    if hash_sign:
        fragment = _mask_params(fragment)
    return f"{scheme}://{authority}{path}{question}{query}{hash_sign}{fragment}"


def redact_urls(text: str) -> str:
    """``text`` with every URL in it passed through ``redact_url``."""
    if "://" not in text:
        return text
    return _URL.sub(lambda m: redact_url(m.group(0)), text)


def redact_text(text: str) -> str:
    """``text`` with every URL's credentials masked and every key-shaped token replaced by
    ``redact_value`` of it."""
    text = redact_urls(text)
    text = _PREFIXED.sub(lambda m: _redact_if_key(m, _PREFIXED_RUN), text)
    return _LONG_TOKEN.sub(lambda m: _redact_if_key(m, _LONG_RUN), text)


def looks_like_key(text: str) -> bool:
    """Whether ``text`` holds a key: a token shaped like one, or a URL with credentials. The one
    rule behind every refusal of a key-shaped name (a judge's label, an annotator)."""
    return redact_text(text) != text


def key_shaped_name(name: str, shown: str, instead: str = "use a name") -> str | None:
    """Why ``name`` is refused (it looks like a key, or holds one), or None. ``shown`` says what
    the name is and where it appears, e.g. "a label is shown in every report"; ``instead``
    what to write."""
    if not looks_like_key(name):
        return None
    return f"looks like an API key; {shown} — {instead}"


def has_credentials(url: str) -> bool:
    """Whether ``url`` carries a secret ``redact_url`` would mask (``user:key@``, ``?key=…``)."""
    return redact_url(url) != url


def is_masked_url(url: str) -> bool:
    """Whether ``url`` had its credentials masked (``redact_url``) when it was stored."""
    return MASK in url and redact_url(url) == url


def redact_stored(value: Any) -> Any:
    """What a value becomes before it is written to a file or the run database: secret-named
    fields redacted, and every URL inside a string masked. Other text is kept as it is (a
    prompt or an answer is the user's data, not a secret)."""
    return redact_secret_fields(value, redact_urls)


def is_secret_header(name: str) -> bool:
    """Whether an HTTP header of that name carries a credential (``Authorization``,
    ``x-api-key``, ``Ocp-Apim-Subscription-Key``)."""
    norm = str(name).strip().lower().replace("-", "_")
    return norm in SECRET_HEADERS or is_secret_param(norm)


def from_environment(value: str) -> bool:
    """Whether a header's value is read from the environment: a ``${VAR}`` placeholder, with at
    most a scheme word before it (``Bearer ${GATEWAY_KEY}``). It names the variable, not the
    key, so it is written as it is, and a resumed run reads the variable again."""
    rest = ENV_PLACEHOLDER.sub("", value)
    return rest != value and re.fullmatch(r"\s*([A-Za-z]+\s+)?", rest) is not None


def redact_headers(headers: dict[Any, Any]) -> dict[Any, Any]:
    """HTTP headers as they may be written down: a credential header's value shortened
    (``Bea…1234``) unless it comes from the environment, a key-shaped token in any other
    header's value masked."""
    return {name: _redact_header(str(name), value) for name, value in headers.items()}


def _redact_header(name: str, value: Any) -> Any:
    if not isinstance(value, str):
        return redact_value(value) if is_secret_header(name) else value
    if from_environment(value):
        return value
    return redact_value(value) if is_secret_header(name) else redact_text(value)


def redact_secret_fields(value: Any, strings: Callable[[str], str] | None = None) -> Any:
    """A copy of a mapping (nested) with the values of secret-named fields redacted, headers
    masked (``redact_headers``), and every other string passed through ``strings`` where it
    is given."""
    if isinstance(value, dict):
        return {k: _redact_field(str(k), v, strings) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_secret_fields(v, strings) for v in value]
    if isinstance(value, str) and strings is not None:
        return strings(value)
    return value


def _redact_field(name: str, value: Any, strings: Callable[[str], str] | None) -> Any:
    """One field of a mapping as ``redact_secret_fields`` writes it."""
    norm = name.lower().replace("-", "_")
    if norm in SECRET_FIELDS:
        return redact_value(value)
    if norm in HEADER_FIELDS and isinstance(value, dict):
        return redact_headers(value)
    return redact_secret_fields(value, strings)
