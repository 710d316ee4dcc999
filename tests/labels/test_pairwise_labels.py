"""People's labels of a pairwise criterion: the page shows a pair's two answers as A and B in an
order drawn per person (stable for that person), takes A, B or tie (or a graded level), and
stores the answer in the pair's own terms; blind to the judges; a criterion's extra columns are
shown under their titles; label files carry a, b and tie both ways.

The run is laid out with the store's own functions (a resolved matrix, the samples, a few judge
cells), not by executing a grid: all the page reads of a run is its samples, its matrix and,
to order its queue, the judges' scores."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from judgegrid.core.records import ScoreRow
from judgegrid.core.sample import Dataset, Sample
from judgegrid.inputs.matrix import parse_matrix
from judgegrid.inputs.pairwise import person_order
from judgegrid.labels.files import import_labels
from judgegrid.labels.page import serve
from judgegrid.labels.queue import open_session
from judgegrid.labels.session import LabelSession, SessionAsk
from judgegrid.store.run_db import DB_NAME, RunStore
from judgegrid.store.run_dir import RESOLVED_MATRIX, SAMPLE_INFO, resolved_matrix_yaml, sample_info
from support.servers import LabelServer as Server
from support.servers import in_thread

PAIRS = 12
# What a judge's cell holds that a blind page must never show: its reason and verdict words.
JUDGE_SECRET = "JUDGE-REASON-7f3a"
CRITERIA: list[dict[str, Any]] = [
    {
        "name": "better_reply",
        "type": "pairwise",
        "definition": "Which reply answers the customer's question better, within the policy?",
        "fields": ["user_input", "policy"],
        "compare": ["response", "response_b"],
    },
    {
        "name": "graded_reply",
        "type": "pairwise",
        "definition": "How much better is one reply than the other?",
        "compare": ["response", "response_b"],
        "ties": False,
        "scale": {1: "A is much better", 2: "A is better", 3: "B is better", 4: "B is much better"},
    },
    {
        "name": "follows_policy",
        "type": "binary",
        "definition": "Does the reply follow the store's policy?",
        "fields": ["user_input", "policy", "response"],
    },
]


def pair_samples() -> list[Sample]:
    """Twelve customer questions, each with two replies (``response``: the first system's,
    the ``response_b`` column: the second's, which ``model_b`` names) and the ``policy`` column
    a criterion shows; the last lacks its second reply (no pair to compare, still a sample for
    the binary criterion)."""
    samples = []
    for k in range(PAIRS):
        extra = {
            "policy": f"Refunds within {k + 10} days; be polite.",
            "response_b": f"reply B{k}",
            "model_b": "system-2",  # as a pairwise criterion's ``systems`` column would be kept
        }
        if k == PAIRS - 1:
            del extra["response_b"]
        samples.append(
            Sample(
                id=f"p{k:02d}",
                user_input=f"Can I return item {k}?",
                response=f"reply A{k}",
                extra=extra,
            )
        )
    return samples


def matrix_text(criteria: list[dict[str, Any]] = CRITERIA) -> str:
    return yaml.safe_dump(
        {
            "name": "pairs",
            "dataset": "pairs.jsonl",
            "judges": [
                {"id": "scripted/judge-a", "label": "a"},
                {"id": "scripted/judge-b", "label": "b"},
            ],
            "metrics": [],
            "criteria": criteria,
            "repeats": 1,
        },
        sort_keys=False,
    )


def judge_rows(
    samples: list[Sample], metrics: tuple[str, ...] = ("better_reply", "follows_policy")
) -> list[ScoreRow]:
    """Judges a and b on the first six samples for ``metrics`` (a always 1, for ``a``; b always
    0, for ``b``: they disagree), each cell holding the words a page must not show."""
    cell = {"embedding": "", "dimension": 0, "strictness": 0, "repeat": 0, "wording": 0}
    usage = {"calls": 1, "tokens_in": 10, "tokens_out": 2, "cost": 0.0, "latency_s": 0.1}
    rows = []
    for sample in samples[:6]:
        for judge, score in (("a", 1.0), ("b", 0.0)):
            for metric in metrics:
                details = json.dumps({"winner": "a" if score else "b", "note": JUDGE_SECRET})
                rows.append(
                    ScoreRow(
                        sample_id=sample.id,
                        metric=metric,
                        judge=judge,
                        **cell,
                        status="scored",
                        score=score,
                        answer=score,
                        weighting="none",
                        reason=JUDGE_SECRET,
                        error=None,
                        details=details,
                        **usage,
                        finished_at=1.0,
                    )
                )
    return rows


def lay_out_run(
    target: Path,
    criteria: list[dict[str, Any]] = CRITERIA,
    samples: list[Sample] | None = None,
    rows: list[ScoreRow] | None = None,
) -> Path:
    """A run directory made with the store's functions: the resolved matrix, the samples (and
    their info) and the judges' cells (by default ``pair_samples`` and ``judge_rows``)."""
    target.mkdir(parents=True)
    samples = pair_samples() if samples is None else samples
    matrix = parse_matrix(matrix_text(criteria))
    source = str(target / "pairs.jsonl")
    (target / RESOLVED_MATRIX).write_text(resolved_matrix_yaml(matrix, source), encoding="utf-8")
    store = RunStore(target / DB_NAME)
    try:
        store.set_meta("dataset", source)
        store.save_samples(samples)
        store.set_meta(SAMPLE_INFO, sample_info(Dataset(source, tuple(samples))))
        for row in judge_rows(samples) if rows is None else rows:
            store.write_score(row)
    finally:
        store.close()
    return target


@pytest.fixture(scope="module")
def base_run(tmp_path_factory) -> Path:
    return lay_out_run(tmp_path_factory.mktemp("pairlabels") / "run")


@pytest.fixture
def run_dir(base_run, tmp_path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(base_run, target)
    return target


def running(session: LabelSession) -> Iterator[Server]:
    with in_thread(serve, session) as (runner, port):
        yield Server(session, port, runner)


@pytest.fixture
def ann(run_dir) -> Iterator[Server]:
    yield from running(open_session(run_dir, "ann", ["better_reply"], SessionAsk(n=PAIRS)))


def stored(run_dir: Path) -> pd.DataFrame:
    store = RunStore(run_dir / DB_NAME)
    try:
        return store.labels_frame().set_index(["sample_id", "metric", "annotator"])
    finally:
        store.close()


def detail(text: Any) -> Any:
    """A stored label's detail (None for a skip's, which a frame holds as NaN)."""
    return None if not isinstance(text, str) else json.loads(text)


def first_shown(server: Server, position: int) -> str:
    status, view = server.request("GET", f"/api/pair/{position}/0")
    assert status == 200, view
    return str(view["answer"])


def position_of(server: Server, pair: str) -> int:
    return next(k for k, item in enumerate(server.session.queue) if item.sample_id == pair)


# -- the queue and the order shown ----------------------------------------------------------------


def test_every_pair_with_both_answers_is_offered_the_judged_ones_first(ann):
    status, state = ann.request("GET", "/api/state")
    assert status == 200 and state["blind"] is True
    ids = [item["sample_id"] for item in state["items"]]
    # p11 has one answer only; p00..p05 have the judges' cells (they disagree), so come first
    assert sorted(ids) == [f"p{k:02d}" for k in range(PAIRS - 1)]
    assert set(ids[:6]) == {f"p{k:02d}" for k in range(6)}
    assert ids[6:] == [f"p{k:02d}" for k in range(6, PAIRS - 1)]  # then the data set's order
    assert all(item["pair"] for item in state["items"])
    assert {item["reason"] for item in state["items"][6:]} == {"a pair no judge has compared yet"}
    form = state["metrics"]["better_reply"]
    assert form["answers"] == ["Answer A", "Answer B"] and form["kind"] == "pairwise"
    assert [(c["value"], c["text"]) for c in form["choices"]] == [
        ("A", "A is better"),
        ("tie", "About the same"),
        ("B", "B is better"),
    ]
    assert form["fields"] == ["user_input", "policy"]
    assert form["titles"] == {"user_input": "Question", "policy": "Policy"}


def test_a_batch_session_offers_every_pair_at_once(run_dir):
    """A pairwise criterion's design stays fixed (no batch follows the first), so ``--batch``
    must not cut its queue to the first batch: every pair is offered, as without it."""
    whole = open_session(run_dir, "ann", ["better_reply"], SessionAsk(n=PAIRS))
    batched = open_session(run_dir, "ann", ["better_reply"], SessionAsk(n=PAIRS, batch=2))
    assert [i.sample_id for i in batched.queue] == [i.sample_id for i in whole.queue]
    assert len(batched.queue) == PAIRS - 1


def test_each_person_sees_the_answers_in_their_own_order_the_same_on_every_visit(
    run_dir, base_run, tmp_path
):
    """ann and bob see some pairs in opposite orders (drawn per person, seeded); ann, back on a
    new server, sees each pair as before. Answer A is reply A{k} exactly where the order is
    "ab" (``person_order``, the draw the page must follow). bob labels a copy of the run: on
    one run the queue, one pool for everyone, would not ask him the pairs ann drew."""
    copy = tmp_path / "copy"
    shutil.copytree(base_run, copy)
    shown: dict[str, dict[str, str]] = {}
    for person, folder in (("ann", run_dir), ("bob", copy), ("ann", run_dir)):
        for server in running(open_session(folder, person, ["better_reply"], SessionAsk(n=PAIRS))):
            seen = {
                item.sample_id: first_shown(server, k)
                for k, item in enumerate(server.session.queue)
            }
            if person in shown:
                assert seen == shown[person]  # stable for one person
            shown[person] = seen
    for person, seen in shown.items():
        for pair, first in seen.items():
            k = int(pair[1:])
            assert first == (f"reply A{k}" if person_order(pair, person) == "ab" else f"reply B{k}")
    differ = [pair for pair in shown["ann"] if shown["ann"][pair] != shown["bob"][pair]]
    assert 0 < len(differ) < PAIRS - 1, differ  # random per person: some differ, some agree


def test_the_order_is_random_over_people():
    """Over 200 people, each pair's answer ``a`` comes first for about half of them: no
    position is the pair's (a fixed order would give 0 or 200)."""
    for pair in (f"p{k:02d}" for k in range(PAIRS)):
        firsts = sum(person_order(pair, f"person{n}") == "ab" for n in range(200))
        assert 70 <= firsts <= 130, (pair, firsts)


# -- what is stored -------------------------------------------------------------------------------


def test_a_click_on_A_stores_the_answer_shown_as_A_in_the_pairs_terms(ann, run_dir):
    queue = ann.session.queue
    flipped = next(item.sample_id for item in queue if ann.session.order(item.sample_id) == "ba")
    straight = next(item.sample_id for item in queue if ann.session.order(item.sample_id) == "ab")
    tie = next(i.sample_id for i in queue if i.sample_id not in (flipped, straight))
    assert first_shown(ann, position_of(ann, flipped)) == f"reply B{int(flipped[1:])}"
    status, reply = ann.label(flipped, "better_reply", value="A")
    assert (status, reply["saved"], reply["value"]) == (200, True, "A")
    assert ann.label(straight, "better_reply", value="A")[0] == 200
    assert ann.label(tie, "better_reply", value="tie")[0] == 200
    labels = stored(run_dir)
    rows = {pair: labels.loc[(pair, "better_reply", "ann")] for pair in (flipped, straight, tie)}
    assert rows[flipped]["value"] == 0.0  # b: the answer shown as A
    assert json.loads(rows[flipped]["detail"]) == {"answer": "b", "shown": "ba"}
    assert rows[straight]["value"] == 1.0
    assert json.loads(rows[straight]["detail"])["answer"] == "a"
    assert rows[tie]["value"] == 0.5 and json.loads(rows[tie]["detail"])["answer"] == "tie"
    assert set(labels["blind"]) == {1}


def test_a_graded_level_is_read_in_the_pairs_terms(run_dir):
    for server in running(open_session(run_dir, "ann", ["graded_reply"], SessionAsk(n=PAIRS))):
        _, state = server.request("GET", "/api/state")
        form = state["metrics"]["graded_reply"]
        assert (form["choices"][0]["value"], form["choices"][0]["description"]) == (
            1,
            "A is much better",
        )
        by_order = {
            server.session.order(item.sample_id): item.sample_id for item in server.session.queue
        }
        assert server.label(by_order["ba"], "graded_reply", value=1)[0] == 200  # A much better
        assert server.label(by_order["ab"], "graded_reply", value=3)[0] == 200  # B is better
        status, reply = server.label(by_order["ab"], "graded_reply", value="tie")
        assert status == 400 and "expected one of 1, 2, 3, 4" in reply["error"]
    labels = stored(run_dir)
    flipped = labels.loc[(by_order["ba"], "graded_reply", "ann")]
    assert flipped["value"] == 0.0  # b, much better: level 4 in the pair's terms
    assert json.loads(flipped["detail"]) == {"answer": "b", "shown": "ba", "level": 4}
    straight = labels.loc[(by_order["ab"], "graded_reply", "ann")]
    assert straight["value"] == 0.0 and json.loads(straight["detail"])["level"] == 3


@pytest.mark.parametrize(
    ("metric", "value"),
    [
        ("better_reply", "a"),  # the pair's own terms: the page speaks of positions only
        ("better_reply", 1.0),
        ("better_reply", True),
        ("better_reply", None),
        ("graded_reply", 5),
        ("graded_reply", "A"),
    ],
)
def test_an_answer_off_the_pairwise_form_gets_a_400_and_writes_nothing(run_dir, metric, value):
    for server in running(open_session(run_dir, "ann", [metric], SessionAsk(n=PAIRS))):
        status, reply = server.label("p00", metric, value=value)
        assert status == 400 and "as shown on the page" in reply["error"]
    assert stored(run_dir).empty


def test_no_tie_is_offered_or_taken_when_ties_are_off(tmp_path):
    no_ties = [{**CRITERIA[0], "ties": False}]
    run = lay_out_run(tmp_path / "run", no_ties)
    for server in running(open_session(run, "ann", ask=SessionAsk(n=PAIRS))):
        _, state = server.request("GET", "/api/state")
        assert [c["value"] for c in state["metrics"]["better_reply"]["choices"]] == ["A", "B"]
        status, reply = server.label("p00", "better_reply", value="tie")
        assert status == 400 and "expected one of A, B" in reply["error"]
        status, reply = server.label("p00", "better_reply", skip=True)
        assert (status, reply["saved"], reply["value"]) == (200, True, None)


# -- blind ----------------------------------------------------------------------------------------


def test_no_judges_score_verdict_or_column_name_reaches_the_page(ann):
    """The state, each answer and the sample the page reads: no judge's reason, verdict or
    figure, and neither the pair's ids with an answer nor the compared columns' names (which
    say whose answer is whose)."""
    texts = [json.dumps(ann.request("GET", "/api/state")[1])]
    for k in range(len(ann.session.queue)):
        for member in (0, 1):
            status, view = ann.request("GET", f"/api/pair/{k}/{member}")
            assert status == 200 and "id" not in view
            assert view["extra"] == {"policy": view["extra"]["policy"]}  # the one it shows
            assert "response" not in view
            texts.append(json.dumps(view))
    page = " ".join(texts)
    for word in (JUDGE_SECRET, "winner", "gives", "prefers", "response_b", "system-2"):
        assert word not in page, word
    assert ann.request("GET", f"/api/pair/{PAIRS}/0")[0] == 404
    assert ann.request("GET", "/api/pair/0/2")[0] == 404


def test_with_the_judges_shown_their_verdicts_are_said_in_the_positions_shown(run_dir):
    """--show-judges: judge a chose the pair's ``a``, judge b its ``b`` (``judge_rows``); on a
    pair this person sees with ``b`` first, that is B for judge a and A for judge b."""
    session = open_session(run_dir, "seer", ["better_reply"], SessionAsk(n=PAIRS, show_judges=True))
    for server in running(session):
        _, state = server.request("GET", "/api/state")
        reasons = {item["sample_id"]: item["reason"] for item in state["items"]}
    for pair in (f"p{k:02d}" for k in range(6)):
        first, second = ("A", "B") if session.order(pair) == "ab" else ("B", "A")
        said = f"the judges disagree on this one: a prefers {first}, b prefers {second}"
        assert reasons[pair] == said
    assert {session.order(f"p{k:02d}") for k in range(6)} == {"ab", "ba"}  # both seen
    assert reasons["p08"] == "a pair no judge has compared yet"


# -- extra columns --------------------------------------------------------------------------------


def test_a_criterions_extra_column_is_sent_with_its_title(run_dir):
    for server in running(open_session(run_dir, "ann", ["follows_policy"], SessionAsk(n=PAIRS))):
        _, state = server.request("GET", "/api/state")
        form = state["metrics"]["follows_policy"]
        assert form["fields"] == ["user_input", "policy", "response"]
        assert form["titles"]["policy"] == "Policy"
        _, sample = server.request("GET", "/api/sample/p03")
        assert sample["extra"]["policy"] == "Refunds within 13 days; be polite."
        assert server.label("p03", "follows_policy", value=1)[1]["value"] == 1.0


# -- label files ----------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_pairwise_labels_survive_export_and_import(ann, run_dir, tmp_path, suffix):
    """a, b and tie (and a skip) given on the page, exported, imported into a fresh copy of the
    run: the same values and details, by pair and annotator."""
    from typer.testing import CliRunner

    from judgegrid.cli import app

    answers = {"p00": "A", "p01": "B", "p02": "tie", "p03": None}
    for pair, value in answers.items():
        body = {"skip": True} if value is None else {"value": value}
        assert ann.label(pair, "better_reply", **body)[0] == 200
    path = tmp_path / f"labels{suffix}"
    out = CliRunner().invoke(app, ["labels", "export", str(run_dir), "-o", str(path)])
    assert out.exit_code == 0, out.output
    fresh = lay_out_run(tmp_path / "fresh")
    back = CliRunner().invoke(app, ["labels", "import", str(fresh), str(path)])
    assert back.exit_code == 0 and f"{len(answers)} labels imported" in back.output, back.output
    before, after = stored(run_dir), stored(fresh)
    assert after.index.equals(before.index)
    for key in before.index:
        assert (after.loc[key, "value"] == before.loc[key, "value"]) or (
            pd.isna(after.loc[key, "value"]) and pd.isna(before.loc[key, "value"])
        )
        assert detail(after.loc[key, "detail"]) == detail(before.loc[key, "detail"])
    words = {
        pair: {1.0: "a", 0.0: "b", 0.5: "tie"}[after.loc[(pair, "better_reply", "ann"), "value"]]
        for pair in ("p00", "p01", "p02")
    }
    expected = {
        pair: json.loads(before.loc[(pair, "better_reply", "ann"), "detail"])["answer"]
        for pair in words
    }
    assert words == expected


def test_a_label_file_may_say_a_b_or_tie_in_the_pairs_terms(run_dir, tmp_path):
    rows = [
        {"sample_id": "p00", "metric": "better_reply", "annotator": "cat", "value": "a"},
        {"sample_id": "p01", "metric": "better_reply", "annotator": "cat", "value": "B"},
        {"sample_id": "p02", "metric": "better_reply", "annotator": "cat", "value": "tie"},
        {"sample_id": "p03", "metric": "graded_reply", "annotator": "cat", "value": "b"},
    ]
    path = tmp_path / "people.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    assert import_labels(run_dir, path) == 4
    values = stored(run_dir)["value"].to_dict()
    assert values == {
        ("p00", "better_reply", "cat"): 1.0,
        ("p01", "better_reply", "cat"): 0.0,
        ("p02", "better_reply", "cat"): 0.5,
        ("p03", "graded_reply", "cat"): 0.0,
    }
    bad = tmp_path / "bad.csv"
    pd.DataFrame([{**rows[0], "value": "tie"} | {"metric": "graded_reply"}]).to_csv(
        bad, index=False
    )
    from judgegrid.core.errors import DatasetError

    with pytest.raises(DatasetError) as err:
        import_labels(run_dir, bad)
    assert "a (1), b (0)" in err.value.problems[0].message
