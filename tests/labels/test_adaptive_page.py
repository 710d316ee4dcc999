"""The labelling page draws from the adaptive design as labels arrive (``decision.adaptive``):
a session drawing in batches draws a metric's next batch when its items run out, each draw
stored with its probability and bounds before the page shows it, from the labels given by then;
once the rule's leader beats chance, the draws go where it and its open rival pass or fail
differently. A scripted run (two judges a and b, made to disagree on two samples), answered
through the page's own API."""

from __future__ import annotations

import json
import shutil
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import test_labelling as labelling
from typer.testing import CliRunner

from judgegrid.analyses import ADAPTIVE_SHARE, LabelRun, RunFacts, metric_design
from judgegrid.analyses.decision.kinds import TINY
from judgegrid.analyses.decision.label_state import pass_fail
from judgegrid.cli import app
from judgegrid.core.records import Label, LabelDraw
from judgegrid.core.scales import PLAIN
from judgegrid.labels.queue import adapter, open_session
from judgegrid.labels.session import SessionAsk
from judgegrid.store.run_db import RunStore
from judgegrid.store.run_dir import stored_sample_info
from judgegrid.view.app import ViewSession
from support.servers import LabelServer, command_server

# the labelling tests' scripted run, a fresh copy a test
base_run, run_dir = labelling.base_run, labelling.run_dir
DISAGREED = labelling.DISAGREED
METRIC = "faithfulness"
ROUNDS = 15  # an earlier annotator's uniform draws: each of EARLIER samples this many times
EARLIER = 4  # the samples the earlier annotator drew (where the judges agree)


def _an_earlier_annotator(folder, person) -> list[str]:
    """60 uniform draws with replacement (as an older judgegrid drew: a repeat counts again)
    of four samples where judges a and b agree, and their labels by another annotator: both
    judges right on every draw, so the rule finds its leader clear of chance and not separated
    from its rival. Those four are out of the pool (one for everyone): the samples drawn."""
    store = RunStore(folder / "run.sqlite")
    samples = [s for s in sorted(person.index) if s not in DISAGREED][:EARLIER]
    n = len(person)
    draws = [
        LabelDraw(METRIC, "adam", k + 1, samples[k % EARLIER], 1 / n, n)
        for k in range(ROUNDS * EARLIER)
    ]
    store.write_draws(draws)
    store.write_labels([Label(s, METRIC, "adam", float(person[s])) for s in samples])
    store.close()
    return samples


def test_the_next_batches_follow_the_adaptive_design_of_the_labels_so_far(run_dir):
    scores = labelling._stored(run_dir, RunStore.scores_frame)
    judged = pass_fail(scores, METRIC, PLAIN.threshold(METRIC))
    assert set(judged.index[judged["a"] != judged["b"]]) == set(DISAGREED)
    person = judged["a"].copy()
    person[DISAGREED[0]] = judged.loc[DISAGREED[0], "b"]
    earlier = _an_earlier_annotator(run_dir, person)
    session = open_session(run_dir, "ann", [METRIC], SessionAsk(n=6, batch=2))
    assert len(session.queue) == 2  # the first batch alone
    asked: list[str] = []
    grown = 0
    for server in labelling._running(session):
        while len(asked) < len(session.queue):
            item = session.queue[len(asked)]
            status, reply = server.label(
                item.sample_id, METRIC, value=float(person[item.sample_id])
            )
            assert status == 200, reply
            asked.append(item.sample_id)
            if "items" in reply:  # the next batch, drawn after this answer
                grown += 1
                assert len(reply["items"]) == len(session.queue)
                assert all("gives" not in i["reason"] for i in reply["items"])  # still blind
                assert "a leads" not in reply["state"] and "b leads" not in reply["state"]
    assert grown >= 2 and len(asked) == 6  # batches of up to two (fewer where its draws ran out)
    draws = labelling.stored_draws(run_dir)
    mine = draws[draws["annotator"] == "ann"]
    assert set(asked) <= set(mine["sample_id"])
    assert mine["sample_id"].is_unique  # drawn without replacement: every draw a new label
    # the two samples where a and b differ carry 95% of a draw while open: drawn first
    assert set(mine["sample_id"][:2]) == set(DISAGREED)
    # every draw of every batch: 95% on the two samples where a and b differ, 5% uniform,
    # among the samples not yet drawn; each weighs its kind's share over the chance a draw is
    # of its kind (a kind: the stratum and a's and b's pass or fail), stored as 1 / (N w)
    n = len(judged)
    focus = ADAPTIVE_SHARE / n + (1 - ADAPTIVE_SHARE) / len(DISAGREED)
    q = pd.Series(np.where(judged.index.isin(DISAGREED), focus, ADAPTIVE_SHARE / n), judged.index)
    design = metric_design(scores, METRIC)
    stratum = pd.Series(design.stratum, list(design.samples)).reindex(judged.index)
    kind = stratum.astype(str) + "/" + judged["a"].astype(str) + "/" + judged["b"].astype(str)
    share = kind.map(kind.value_counts() / n)
    drawn = set(earlier)  # out of ann's pool from the start: the earlier annotator's
    for sid, stored, text in zip(
        *(mine[c] for c in ("sample_id", "probability", "bounds")), strict=True
    ):
        open_q = q[~q.index.isin(drawn)]
        rho = open_q.groupby(kind[open_q.index]).sum() / open_q.sum()
        weight = share[sid] / rho[kind[sid]]
        assert 1 / (n * stored) == pytest.approx(weight)
        bounds = json.loads(text)
        weights = share.groupby(kind).first()[rho.index] / rho
        assert bounds["largest"] == pytest.approx(weights.max())
        apart = [k for k in rho.index if k.split("/")[1] != k.split("/")[2]]
        reach = weights[apart].max() if apart else TINY  # no drawable sample tells them apart
        assert bounds["pairs"] == [["a", "b", pytest.approx(reach)]]
        gone = kind.isin(set(kind) - set(rho.index))
        assert bounds["gone"] == pytest.approx(float(gone.mean()))
        apart_gone = gone & (judged["a"] != judged["b"])
        assert bounds["gone_pairs"] == [["a", "b", pytest.approx(float(apart_gone.mean()))]]
        drawn.add(sid)
    # the earlier annotator's draws (of the fixed design: read first, by name) carry no bounds
    assert draws.loc[draws["annotator"] == "adam", "bounds"].isna().all()


def test_what_a_session_keeps_of_its_scores_never_goes_stale_as_labels_come(run_dir, tmp_path):
    """The page keeps what it reads of the run's scores for the whole session
    (``LabelSession.label_run``), and reads the labels and draws afresh on every answer. Two
    copies of one run, answered alike: a session keeping it, and one made to read the scores
    afresh before every answer (as a session opened then would), give the same state line
    after every answer, the same next batches, and store the same draws with the same
    probabilities and bounds. Were a label or a draw kept with the scores, the kept line
    would stop moving, or the next batch follow the labels of an earlier one."""
    scores = labelling._stored(run_dir, RunStore.scores_frame)
    judged = pass_fail(scores, METRIC, PLAIN.threshold(METRIC))
    person = judged["a"].copy()
    person[DISAGREED[0]] = judged.loc[DISAGREED[0], "b"]
    _an_earlier_annotator(run_dir, person)
    fresh_dir = tmp_path / "fresh"
    shutil.copytree(run_dir, fresh_dir)
    answered = {}
    for folder, afresh in ((run_dir, False), (fresh_dir, True)):
        session = open_session(folder, "ann", [METRIC], SessionAsk(n=6, batch=2))
        replies: list[tuple[str, str, object]] = []
        for server in labelling._running(session):
            kept = session.label_run()
            while len(replies) < len(session.queue):
                if afresh:
                    session.prepared = None
                item = session.queue[len(replies)]
                status, reply = server.label(
                    item.sample_id, METRIC, value=float(person[item.sample_id])
                )
                assert status == 200, reply
                replies.append((item.sample_id, reply["state"], reply.get("items")))
            assert (session.prepared is kept) is not afresh  # kept all session, or made anew
        answered[folder] = replies
    assert answered[run_dir] == answered[fresh_dir]
    lines = [line for _, line, _ in answered[run_dir]]
    assert len(lines) == 6 and len(set(lines)) == 6  # every answer moved the line
    assert sum(items is not None for _, _, items in answered[run_dir]) >= 2  # batches drawn
    columns = ["annotator", "draw", "sample_id", "probability", "population", "bounds"]
    kept_draws, fresh_draws = (labelling.stored_draws(f)[columns] for f in (run_dir, fresh_dir))
    assert (kept_draws["annotator"] == "ann").sum() == 6
    pd.testing.assert_frame_equal(kept_draws, fresh_draws)


def test_judgegrid_label_batch_draws_a_batch_at_a_time_through_the_command(run_dir):
    """``judgegrid label --batch 2 --n 4``: the page first asks two, stores only their draws,
    and draws the next two once both are answered, as ``open_session(batch=2)`` does."""
    options = ["--annotator", "kim", "--metric", METRIC, "--n", "4", "--batch", "2"]
    with command_server("label", str(run_dir), *options) as url:
        port, token = int(url.split(":")[2].split("/")[0]), url.split("token=")[1]
        session = SimpleNamespace(token=token)
        server = LabelServer(session, port, None)
        status, state = server.get("/api/state")
        assert status == 200 and len(state["items"]) == 2  # the first batch alone
        first = labelling.stored_draws(run_dir)
        assert (
            first.loc[first["annotator"] == "kim", "sample_id"]
            .isin([i["sample_id"] for i in state["items"]])
            .all()
        )
        replies = [server.label(item["sample_id"], METRIC, value=1.0)[1] for item in state["items"]]
        assert "items" not in replies[0]  # the batch is not answered yet
        assert len(replies[1]["items"]) == 4  # the next batch, drawn after the last answer
    labels = labelling.stored_labels(run_dir)
    assert sorted(labels["sample_id"]) == sorted(i["sample_id"] for i in state["items"])


def test_judgegrid_label_batch_0_is_refused_before_anything_is_served(run_dir):
    result = CliRunner().invoke(app, ["label", str(run_dir), "--batch", "0"])
    assert result.exit_code == 2 and "--batch" in result.output
    assert labelling.stored_draws(run_dir).empty


def test_a_batch_session_over_several_metrics_asks_each_of_them(run_dir):
    """``judgegrid label RUN --batch 2`` over a run of two metrics: the first batch is each
    metric's first two (a metric's next batch is drawn when its own run out), not two in all,
    which left context_precision with no question the whole session: only the metric answered
    last ever grew."""
    session = open_session(run_dir, "ann", ask=SessionAsk(n=8, batch=2))
    asked = [i.metric for i in session.queue]
    assert asked == ["faithfulness", "context_precision"] * 2
    for server in labelling._running(session):
        while todo := [
            i for i in session.queue if (i.sample_id, i.metric) not in answered(run_dir)
        ]:
            item = todo[0]
            answer = (
                {"value": 1.0}
                if item.metric == METRIC
                else {"useful": [1] * contexts(session, item)}
            )
            status, reply = server.label(item.sample_id, item.metric, **answer)
            assert status == 200, reply
    labels = labelling.stored_labels(run_dir)
    assert len(labels) == 8
    assert labels["metric"].value_counts().to_dict() == {METRIC: 4, "context_precision": 4}


def answered(run_dir) -> set[tuple[str, str]]:
    labels = labelling.stored_labels(run_dir)
    return set(zip(labels["sample_id"], labels["metric"], strict=True))


def contexts(session, item) -> int:
    return len(session.samples[item.sample_id].retrieved_contexts or [])


def _pairs_run(tmp_path, write_matrix):
    """A `judgegrid pairs` run of the demo's four pairs (scripted judges): its faithfulness
    aspect's run directory."""
    from judgegrid import run_pairs
    from support.demo_sets import PAIR_RECORDS

    pairs_file = tmp_path / "pairs.jsonl"
    pairs_file.write_text("".join(json.dumps(r) + "\n" for r in PAIR_RECORDS))
    matrix = write_matrix(repeats=1, strictness=[1])
    return run_pairs(matrix, pairs_file, reports_dir=tmp_path / "r").run_dir / METRIC


def test_a_batch_session_of_preferences_asks_n_pairs_not_one_batch(tmp_path, write_matrix):
    """A pairs run's preference queue is drawn all at once (its design stays fixed, so no
    batch follows the first): ``--batch`` must not cut it to the first batch."""
    from support.demo_sets import PAIR_RECORDS

    run = _pairs_run(tmp_path, write_matrix)
    session = open_session(run, "ann", ask=SessionAsk(n=len(PAIR_RECORDS), batch=1))
    assert len(session.queue) == len(PAIR_RECORDS) > 1


def test_once_every_pair_is_preferred_the_line_says_none_is_left(tmp_path, write_matrix):
    """A person states a preference on every pair of a pairs run: no pair is left to ask, and
    the line must say so, as for a metric's samples. The pairs the design draws are named by
    pair, the rule's items by pair and person: read as the same, else every pair looked
    unlabelled and the line said "none in sight" or "about N more" of pairs all answered."""
    from support.demo_sets import PAIR_RECORDS

    session = open_session(
        _pairs_run(tmp_path, write_matrix), "ann", ask=SessionAsk(n=len(PAIR_RECORDS))
    )
    assert len(session.queue) == len(PAIR_RECORDS)
    for server in labelling._running(session):
        for k, item in enumerate(session.queue):
            status, reply = server.label(item.sample_id, "preference", choice=k % 2)
            assert status == 200, reply
    assert reply["state"].startswith(f"{METRIC}: {len(PAIR_RECORDS)} labels · ")
    assert reply["state"].endswith(" · no sample left to label"), reply["state"]


def test_the_opening_line_counts_in_words_and_says_a_batch_is_a_first_batch(run_dir, monkeypatch):
    """`judgegrid label --n 60 --batch 10` opens on 10 questions: the line must say more follow
    (a person told "10 questions" after asking for 60 thinks the rest were lost), and one
    question is "1 question"."""
    from judgegrid.cli import labels

    opened: list[str] = []
    monkeypatch.setattr(labels, "serve_app", lambda session, port, opening: opened.append(opening))
    runner = CliRunner()
    base = ["label", str(run_dir), "--metric", METRIC]
    for options in (
        ["--annotator", "ann", "--n", "4", "--batch", "2"],
        ["--annotator", "bo", "--n", "1"],
    ):
        result = runner.invoke(app, [*base, *options])
        assert result.exit_code == 0, result.output
    assert opened[0].startswith(
        "labelling: 2 questions (a first batch: more are drawn as you answer them, up to --n 4) "
        f"about {run_dir}, as 'ann'"
    )
    assert opened[1].startswith(f"labelling: 1 question about {run_dir}, as 'bo'")


def test_judgegrid_label_margin_reaches_the_sessions_line_and_its_draws(run_dir, monkeypatch):
    """`judgegrid label --margin 0.5` on a run whose matrix has none: the session's line reads
    the margin (its rule, as `report --margin 0.5` gives the card) and its draws follow the
    margin's design: after the earlier annotator's labels, the leader a is shown at most 0.5
    below b and above chance, so the draw is uniform; without --margin a and b are open and
    the draws go to the two samples where they differ."""
    from judgegrid.cli import labels

    scores = labelling._stored(run_dir, RunStore.scores_frame)
    judged = pass_fail(scores, METRIC, PLAIN.threshold(METRIC))
    _an_earlier_annotator(run_dir, judged["a"])
    opened: list[ViewSession] = []
    monkeypatch.setattr(labels, "serve_app", lambda session, port, opening: opened.append(session))
    base = ["label", str(run_dir), "--metric", METRIC, "--n", "2"]
    for options in (["--annotator", "ann", "--margin", "0.5"], ["--annotator", "bo"]):
        result = CliRunner().invoke(app, [*base, *options])
        assert result.exit_code == 0, result.output
    wide, plain = (session.labels for session in opened)
    assert (wide.margin, plain.margin) == (0.5, None)
    open_samples = len(judged) - EARLIER  # the earlier annotator's are out of the pool
    # the margin's uniform draw favours no open sample; the plain one gives its 95% to two
    assert wide.unrecorded[0].probability <= 1 / open_samples
    assert {d.sample_id for d in plain.unrecorded} == set(DISAGREED)
    assert plain.unrecorded[0].probability >= (1 - ADAPTIVE_SHARE) / len(DISAGREED)


def test_under_the_runs_margin_the_next_draws_follow_the_margins_rule(run_dir):
    """The page designs its next draws from the rule its line shows: with the run's margin
    (``decision: {margin}``) the leader a, shown at most 0.5 below b and above chance, has no
    open rival, so the next draw is uniform; without it a and b are not separated and 95% of
    the draw goes to the two samples where they differ."""
    scores = labelling._stored(run_dir, RunStore.scores_frame)
    judged = pass_fail(scores, METRIC, PLAIN.threshold(METRIC))
    person = judged["a"].copy()
    person[DISAGREED[0]] = judged.loc[DISAGREED[0], "b"]
    _an_earlier_annotator(run_dir, person)
    store = RunStore(run_dir / "run.sqlite")
    try:
        info, draws, labels = stored_sample_info(store), store.draws_frame(), store.labels_frame()
        base = metric_design(scores, METRIC)
        plain_run = LabelRun.of(scores, RunFacts(sample_info=info))
        wide_run = LabelRun.of(scores, RunFacts(sample_info=info, margin=0.5))
        plain = adapter(plain_run, labels, draws)(METRIC, base)
        wide = adapter(wide_run, labels, draws)(METRIC, base)
    finally:
        store.close()
    assert plain is not None and wide is not None
    samples = list(base.samples)
    on_disagreed = [s in DISAGREED for s in samples]
    assert plain.design.probability[on_disagreed].sum() > 0.95
    assert wide.design.probability == pytest.approx(np.full(len(samples), 1 / len(samples)))
