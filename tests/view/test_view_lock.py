"""The view's labelling takes the run's lock for each label it writes: refused (409, naming the
holder) while another process writes the run, while browsing needs no lock at all."""

from __future__ import annotations

import os

from judgegrid.labels import page
from judgegrid.store.lock import LOCK_NAME, lock_run
from judgegrid.store.run_db import RunStore
from judgegrid.view.app import open_view, serve
from support.servers import LoopbackServer, in_thread
from support.view_runs import DISPUTED, make_view_run


def test_a_label_waits_for_no_run_and_browsing_for_nothing(tmp_path, monkeypatch):
    run_dir = make_view_run(tmp_path)
    monkeypatch.setattr(page, "LABEL_WAIT_S", 0.1)
    label = {"sample_id": DISPUTED, "metric": "faithfulness", "value": 0.5}
    session = open_view(run_dir, "ann")
    with in_thread(serve, session) as (runner, port):
        server = LoopbackServer(session, port, runner)
        queued = server.request(
            "POST", "/api/view/label", {k: label[k] for k in ("sample_id", "metric")}
        )
        assert queued[0] == 200, queued
        with lock_run(run_dir):  # a report or a resume at work on the run
            assert server.get("/api/view/meta")[0] == 200  # a reader: no lock
            status, refused = server.request("POST", "/api/label", label)
            assert status == 409, refused
            assert f"PID {os.getpid()}" in str(refused)
            assert "another judgegrid is writing" in str(refused)
        assert not (run_dir / LOCK_NAME).exists()
        status, saved = server.request("POST", "/api/label", label)
        assert status == 200 and saved["value"] == 0.5
    store = RunStore(run_dir / "run.sqlite")
    try:
        assert len(store.labels_frame()) == 1  # the refused label was not written
    finally:
        store.close()
