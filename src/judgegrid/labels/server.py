"""The loopback server core that ``judgegrid label`` and ``judgegrid view`` share.

aiohttp on 127.0.0.1 only. Every ``/api`` request carries the access token printed with the URL
(as Jupyter does) in the ``X-Judgegrid-Token`` header, and every request a Host header naming
this machine's loopback address at the server's port, so another site open in the same browser
cannot read or write (a DNS-rebinding page sends its own host name). Pages ship in the package,
load nothing from elsewhere and are served under a strict Content-Security-Policy; bodies and
query strings have size limits, and a JSON body a depth limit (``json_body``, the one reader of
both apps' POSTs). A refusal is a JSON ``{"error": why}`` with a 4xx status.

Both apps read their query parameters and path numbers through this module's parsers
(``whole_number``, ``only``): ASCII digits only, within a stated range, so a number SQLite
cannot take or a unicode digit never reaches a query. A judgegrid input error raised by a
handler (a page past the last one) is a 400 with its message, never a 500.
"""

from __future__ import annotations

import errno
import hmac
import json
import math
import socket
from collections.abc import Awaitable, Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web
from multidict import MultiMapping

from judgegrid.core.errors import InputError, OptionError, Problem

MAX_BODY_BYTES = 64 * 1024  # a label with a long note is a few KiB; anything larger is refused
# A label or a queue request is an object of flat fields; Python's parser recurses once a level
# and a body of 5,000 brackets would pass its limit (a 500), so a deep one is refused unread.
MAX_JSON_DEPTH = 32
MAX_QUERY_CHARS = 2048  # a page of samples with every filter set is a few hundred characters
MAX_NUMBER = 1_000_000_000  # no page, repeat or position of a run comes near; SQLite takes it
TOKEN_HEADER = "X-Judgegrid-Token"
SHARED_SCRIPT = "loopback.js"  # token, $ and api: loaded by every page before its own script
CONTENT_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'none'"
)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def error(status: int, message: str) -> web.Response:
    """A refusal that says why, as JSON."""
    return web.json_response({"error": message}, status=status)


def bad_request(message: str) -> web.HTTPException:
    """A 400 to raise from inside a handler."""
    return refusal(web.HTTPBadRequest, message)


def refusal(kind: type[web.HTTPException], message: str) -> web.HTTPException:
    """A 4xx of aiohttp's ``kind`` with a JSON ``{"error": message}`` body, to raise from inside
    a handler."""
    return kind(text=json.dumps({"error": message}), content_type="application/json")


async def json_body(request: web.Request, what: str) -> Any:
    """The request's body read as JSON, or a JSON refusal raised: 415 for another content
    type, 413 past ``MAX_BODY_BYTES`` (aiohttp's ``client_max_size``, caught by the guard), and
    400 for bytes that are not UTF-8, text that is not JSON (``NaN``, ``Infinity`` and
    ``1e400`` included), or brackets nested past
    ``MAX_JSON_DEPTH``. ``what`` names the body in the 415's advice ("the label")."""
    if request.content_type != "application/json":
        raise refusal(web.HTTPUnsupportedMediaType, f"send {what} as application/json")
    try:
        text = (await request.read()).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise bad_request(f"the body is not UTF-8 (byte {exc.start})") from None
    if nests_deeper_than(text, MAX_JSON_DEPTH):
        raise bad_request(f"JSON nested deeper than {MAX_JSON_DEPTH} levels; send flat fields")
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except ValueError as exc:  # JSONDecodeError, or an integer past Python's digit limit
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise bad_request(f"not valid JSON ({reason})") from None


def _finite_float(text: str) -> float:
    """A JSON number as a float, refused when it overflows to infinity (``1e400``)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is too large for a number")
    return value


def _refuse_constant(name: str) -> Any:
    """``NaN``, ``Infinity`` and ``-Infinity`` are not JSON (RFC 8259), though Python reads
    them: a label's value of NaN would be stored as a score that is not one."""
    raise ValueError(f"{name} is not a JSON number")


def nests_deeper_than(text: str, limit: int) -> bool:
    """Whether JSON ``text`` opens more than ``limit`` arrays or objects inside each other
    (brackets inside strings do not count); read without recursion, stopping at the first
    level past the limit."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def whole_number(
    text: str | None, name: str, low: int = 1, high: int = MAX_NUMBER, default: int | None = None
) -> int:
    """A whole number from ``low`` to ``high`` written in ASCII digits (no sign, space or other
    script's digits), or a 400 naming ``name``. ``text`` None: ``default``, if there is one."""
    if text is None and default is not None:
        return default
    digits = text or ""
    in_range = (
        digits.isascii()
        and digits.isdigit()
        and len(digits) <= len(str(high))
        and low <= int(digits) <= high
    )
    if not in_range:
        raise bad_request(f"{name}: expected a whole number from {low} to {high}, got {text!r}")
    return int(digits)


def query_number(
    query: MultiMapping[str], name: str, low: int = 1, high: int = MAX_NUMBER, default: int = 1
) -> int:
    """A query parameter given at most once, as ``whole_number`` reads it."""
    return whole_number(once(query, name), name, low, high, default)


def once(query: MultiMapping[str], name: str) -> str | None:
    """A query parameter's value (None when absent), or a 400 when it is given twice."""
    values = query.getall(name, [])
    if len(values) > 1:
        raise bad_request(f"{name}: given {len(values)} times; give it once")
    return values[0] if values else None


def only(request: web.Request, known: set[str]) -> None:
    """A 400 naming the first query parameter the route does not know."""
    unknown = sorted(set(request.query) - known)
    if unknown:
        have = ", ".join(sorted(known)) or "none"
        raise bad_request(f"unknown parameter {unknown[0]!r}; known: {have}")


def loopback_app(token: str) -> web.Application:
    """An application that answers only requests addressed to this loopback server, its API
    only with the token, and refuses oversized bodies and query strings. It serves the script
    every page shares (``static/loopback.js``), so each page's app need not."""

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        port = request.transport.get_extra_info("sockname")[1] if request.transport else None
        if request.host not in {f"127.0.0.1:{port}", f"localhost:{port}"}:
            return error(403, f"Host {request.host!r} is not this machine's loopback address")
        if request.path.startswith("/api/"):
            given = request.headers.get(TOKEN_HEADER, "")
            if not given or not hmac.compare_digest(given, token):
                return error(403, "missing or wrong access token (open the URL printed at start)")
        if len(request.query_string) > MAX_QUERY_CHARS:
            return error(414, f"query string longer than {MAX_QUERY_CHARS} characters")
        try:
            return await handler(request)
        except web.HTTPRequestEntityTooLarge:
            return error(413, f"request body larger than {MAX_BODY_BYTES} bytes")
        except InputError as exc:
            return error(400, "; ".join(problem.render(exc.source) for problem in exc.problems))
        except web.HTTPException as exc:  # aiohttp's own (no such route, method): JSON too
            if exc.status < 400 or exc.content_type == "application/json":
                raise
            return error(exc.status, exc.reason)

    app = web.Application(middlewares=[guard], client_max_size=MAX_BODY_BYTES)
    app.router.add_get("/favicon.ico", _no_content)
    add_static(app, "judgegrid.labels", {f"/{SHARED_SCRIPT}": SHARED_SCRIPT})
    return app


def add_static(app: web.Application, package: str, files: Mapping[str, str]) -> None:
    """Serve ``files`` (URL path -> file name under ``package``'s ``static/``)."""

    def handler(name: str) -> Handler:
        async def page(request: web.Request) -> web.StreamResponse:
            text = resources.files(package).joinpath("static", name).read_text("utf-8")
            headers = {"Content-Security-Policy": CSP, "Cache-Control": "no-store"}
            kind = CONTENT_TYPES[Path(name).suffix]
            return web.Response(text=text, content_type=kind, headers=headers)

        return page

    for path, name in files.items():
        app.router.add_get(path, handler(name))


async def _no_content(request: web.Request) -> web.Response:
    return web.Response(status=204)  # no icon, and no 404 in the browser's console


def page_url(port: int, token: str, path: str = "/") -> str:
    return f"http://127.0.0.1:{port}{path}?token={token}"


def bind_loopback(port: int = 0) -> socket.socket:
    """A socket listening on 127.0.0.1 (``port`` 0: a free one), bound before the app opens the
    run's database for its labels, so a port in use is refused with the run left as it was."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen()
    except OSError as exc:
        sock.close()
        raise port_refused(port, exc) from None
    return sock


async def start(app: web.Application, sock: socket.socket) -> tuple[web.AppRunner, int]:
    """Serve ``app`` on the bound socket (``bind_loopback``); returns the runner and its port."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    return runner, int(sock.getsockname()[1])


def port_refused(port: int, exc: OSError) -> OptionError:
    """Why the server could not listen, in one line that says what to do."""
    why = "is in use" if exc.errno == errno.EADDRINUSE else f"cannot be used ({exc.strerror})"
    message = f"port {port} on 127.0.0.1 {why}; choose another, or --port 0 for a free one"
    return OptionError("--port", [Problem("", message)])
