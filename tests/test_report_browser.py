"""The HTML report opened in headless Chromium (Debian's ``chromium``) over the DevTools
protocol: it renders, every section is there, the console stays free of errors, every figure
decodes, and a sample holding ``<script>`` is shown as text, not run.

Outside CI a machine without chromium skips this test; under CI=true a missing chromium fails
it, so CI cannot pass without having looked at the report.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from judgegrid import run_grid
from judgegrid.html_report import SECTIONS
from test_report import HOSTILE, demo_with_hostile_sample

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


@pytest.fixture
def report_page(tmp_path, write_matrix) -> Path:
    result = run_grid(write_matrix(), demo_with_hostile_sample(), run_dir=tmp_path / "run")
    return result.run_dir / "report.html"


def test_report_renders_in_headless_chromium(tmp_path, report_page):
    binary = chromium_binary()
    profile = tmp_path / "profile"
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
            tools.send("Page.navigate", url=report_page.as_uri())
            tools.wait_for("Page.loadEventFired")
            state = tools.send(
                "Runtime.evaluate",
                returnByValue=True,
                expression="""({
                    sections: [...document.querySelectorAll('section')].map(s => s.id),
                    scripts: document.querySelectorAll('script').length,
                    text: document.body.innerText,
                    images: [...document.images].map(i => i.complete && i.naturalWidth > 0),
                    hostileCells: [...document.querySelectorAll('td')]
                        .filter(td => td.textContent.includes("<script>alert")).length,
                })""",
            )["result"]["value"]
            shot = tools.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
            time.sleep(0.3)  # let late console messages arrive
            tools.send("Runtime.evaluate", expression="1")
        finally:
            tools.close()
    finally:
        process.terminate()
        process.wait(timeout=20)
    assert state["sections"] == list(SECTIONS)
    assert state["scripts"] == 0  # the hostile sample's <script> did not become an element
    assert HOSTILE in state["text"]  # ... it is shown as text
    assert state["hostileCells"] >= 1
    assert state["images"] and all(state["images"])
    png = base64.b64decode(shot["data"])
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    (tmp_path / "report.png").write_bytes(png)
    errors = [
        e
        for e in tools.events
        if e.get("method") == "Runtime.exceptionThrown"
        or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")
        or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")
    ]
    assert errors == []
