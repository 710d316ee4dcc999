"""Headless Chromium (Debian's ``chromium``) driven over the DevTools protocol, for the tests
that look at a page as a person would: the HTML report and the labelling page.

Outside CI a machine without chromium skips those tests; under CI=true a missing chromium fails
them, so CI cannot pass without having looked.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--remote-debugging-port=0",
]


def chromium_binary() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    message = "chromium is not installed (Debian: apt-get install -y chromium)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


class DevTools:
    """A minimal DevTools-protocol client: send commands, collect events."""

    def __init__(self, url: str):
        self.ws = connect(url, max_size=None, open_timeout=20)
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, timeout: float = 30, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == method for e in self.events):
            self.events.append(
                json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            )

    def close(self) -> None:
        self.ws.close()


def devtools_port(profile: Path, process: subprocess.Popen, timeout: float = 30) -> int:
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if marker.exists() and marker.read_text().strip():
            return int(marker.read_text().splitlines()[0])
        if process.poll() is not None:
            raise AssertionError(f"chromium exited with {process.returncode}")
        time.sleep(0.1)
    raise AssertionError("chromium did not open its DevTools port")


@contextlib.contextmanager
def browser_page(profile: Path, width: int = 1280, height: int = 900) -> Iterator[DevTools]:
    """A blank page in a fresh headless Chromium, Page/Runtime/Log events on, at ``width``."""
    binary = chromium_binary()
    process = subprocess.Popen(
        [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port = devtools_port(profile, process)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
            pages = [t for t in json.load(answer) if t["type"] == "page"]
        tools = DevTools(pages[0]["webSocketDebuggerUrl"])
        try:
            for domain in ("Page", "Runtime", "Log"):
                tools.send(f"{domain}.enable")
            tools.send(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=False,
            )
            yield tools
        finally:
            tools.close()
    finally:
        process.terminate()
        process.wait(timeout=20)


def navigate(tools: DevTools, url: str) -> None:
    tools.events.clear()
    tools.send("Page.navigate", url=url)
    tools.wait_for("Page.loadEventFired")


def evaluate(tools: DevTools, expression: str) -> Any:
    reply = tools.send(
        "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
    )
    if "exceptionDetails" in reply:
        raise AssertionError(f"{expression}: {reply['exceptionDetails']}")
    return reply["result"].get("value")


# what the browser says when the page navigates while an expression is evaluated: the
# question is asked again of the new page (a wait for ``location.pathname`` meets it)
NAVIGATED = ("Inspected target navigated or closed", "Execution context was destroyed")


def wait_until(tools: DevTools, expression: str, timeout: float = 15) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = evaluate(tools, expression)
        except AssertionError as error:
            if not any(words in str(error) for words in NAVIGATED):
                raise
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {expression}")


def click(tools: DevTools, selector: str) -> None:
    """A real mouse click at the middle of the element (not element.click())."""
    box = evaluate(
        tools,
        f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
        " const r = e.getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()",
    )
    for kind in ("mousePressed", "mouseReleased"):
        tools.send(
            "Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1
        )


def press(tools: DevTools, key: str) -> None:
    """A key typed as a person types it (keyDown with its text, then keyUp)."""
    codes = {"Enter": 13, "ArrowRight": 39, "ArrowLeft": 37, "Escape": 27}
    code = codes.get(key, ord(key.upper()) if len(key) == 1 else 0)
    text = "\r" if key == "Enter" else (key if len(key) == 1 else "")
    tools.send(
        "Input.dispatchKeyEvent", type="keyDown", key=key, text=text, windowsVirtualKeyCode=code
    )
    tools.send("Input.dispatchKeyEvent", type="keyUp", key=key, windowsVirtualKeyCode=code)


def console_errors(tools: DevTools) -> list[dict[str, Any]]:
    return [
        e
        for e in tools.events
        if e.get("method") == "Runtime.exceptionThrown"
        or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")
        or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")
    ]
