"""A scripted annotator labels through the page's own API until the state line says a verdict is
reached, and ``judgegrid report`` then names the same state (issue 42). The run: 60 samples of
faithfulness, judge a passing half of them, judge b answering as a but for every third sample;
the annotator answers as judge a did, so a is right on every label and b on two of three. The
page draws without replacement, in batches, from the adaptive design (``decision.kinds``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import yaml
from typer.testing import CliRunner

from conftest import matrix_dict
from judgegrid import run_grid
from judgegrid.cli import app
from judgegrid.core.records import ScoreRow
from judgegrid.labels.page import serve
from judgegrid.labels.queue import open_session
from judgegrid.labels.session import SessionAsk
from judgegrid.store.run_db import RunStore
from support import scripted
from support.servers import LabelServer, in_thread

SAMPLES = 60
METRIC = "faithfulness"
LINE = re.compile(r"(\d+) labels? · ")


def _passes(k: int) -> float:
    return float(k % 2 == 0)


def _run(root: Path, margin: float | None = None, every: int = 3, juries: bool = False) -> Path:
    """The scripted run, then the judges' faithfulness scores set: a passes the even samples,
    b answers as a but for every ``every``-th sample; ``margin``: the matrix's
    ``decision: {margin}``; ``juries``: the matrix's ``juries: true`` (a and b's jury)."""
    scripted.register()
    scripted.SCRIPT.reset()
    data = root / "data.jsonl"
    rows = [
        {
            "id": f"s{k:02d}",
            "user_input": f"Which river runs through city number {k}?",
            "response": f"The river of city {k} is the Nile.",
            "retrieved_contexts": [f"City {k} lies on the Nile."],
        }
        for k in range(SAMPLES)
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    matrix = root / "m.yaml"
    settings = matrix_dict(
        dataset=str(data), metrics=[METRIC], embeddings=[], strictness=[1], repeats=1
    )
    if margin is not None:
        settings["decision"] = {"margin": margin}
    settings["juries"] = juries
    matrix.write_text(yaml.safe_dump(settings))
    run_dir = run_grid(matrix, run_dir=root / "run").run_dir
    store = RunStore(run_dir / "run.sqlite")
    for row in store.scores_frame().itertuples(index=False):
        k = int(str(row.sample_id)[1:])
        score = _passes(k) if row.judge == "a" or k % every else 1.0 - _passes(k)
        store.write_score(ScoreRow(**{**row._asdict(), "score": score}), replace=True)
    store.close()
    return run_dir


BLIND = SessionAsk(n=SAMPLES, batch=5)  # the page as people see it: blind, in batches


def _label_until_a_verdict(run_dir: Path, ask: SessionAsk = BLIND) -> tuple[list[str], int]:
    """The annotator answers as judge a did, through the page's API, until the line says a
    verdict is reached (blind), or names one (judges shown: "better than" is said of a verdict
    alone), or the queue ends: every line seen, and the labels given."""
    session = open_session(run_dir, "ann", [METRIC], ask)
    reached = "better than" if ask.show_judges else "a verdict is reached"
    lines: list[str] = []
    with in_thread(serve, session) as (runner, port):
        server = LabelServer(session, port, runner)
        asked = 0
        while asked < len(session.queue) and reached not in "".join(lines[-1:]):
            item = session.queue[asked]
            k = int(item.sample_id[1:])
            status, reply = server.label(item.sample_id, METRIC, value=_passes(k))
            assert status == 200, reply
            lines.append(str(reply["state"]))
            asked += 1
    return lines, asked


def test_a_scripted_annotator_reaches_a_verdict_through_the_page_and_the_report_names_it(
    tmp_path,
):
    run_dir = _run(tmp_path)
    lines, asked = _label_until_a_verdict(run_dir)
    blind = lines[-1]
    assert "a verdict is reached" in blind, lines[-5:]
    assert len(set(lines)) == len(lines)  # the line moved with every answer
    found = LINE.search(blind)
    assert found is not None, blind
    labels = int(found.group(1))
    assert labels == asked < SAMPLES  # a verdict before every sample was asked
    assert blind == f"{labels} labels · a verdict is reached"  # blind: no judge named
    draws = RunStore(run_dir / "run.sqlite").draws_frame()
    assert draws["sample_id"].is_unique  # drawn without replacement
    result = CliRunner().invoke(app, ["report", str(run_dir)])
    assert result.exit_code == 0, result.output
    card = pd.read_csv(run_dir / "tables" / "decision_card.csv").set_index("metric")
    stated = str(card.loc[METRIC, "label_state"])
    assert stated.startswith(f"{labels} labels · ")
    assert stated.endswith("a is better than b and chance"), stated


def test_under_the_matrixs_margin_the_page_and_the_report_reach_the_margins_verdict(tmp_path):
    """``decision: {margin: 0.2}``, b answering as a but for every sixth sample: the page's line
    and the report's card read the margin from the run's matrix, and the verdict they reach is
    the margin's (a at most 0.2 below b and above chance), not a plain win, and sooner than
    the plain rule's on the same run: the page's line reads the margin too. a is right on every
    label, b on five of six: the card says a leads, not only that it is at most 0.2 below b."""
    (tmp_path / "plain").mkdir()
    _, plain = _label_until_a_verdict(_run(tmp_path / "plain", every=6))
    run_dir = _run(tmp_path, margin=0.2, every=6)
    lines, asked = _label_until_a_verdict(run_dir)
    assert lines[-1] == f"{asked} labels · a verdict is reached", lines[-5:]
    assert asked < plain
    result = CliRunner().invoke(app, ["report", str(run_dir)])
    assert result.exit_code == 0, result.output
    card = pd.read_csv(run_dir / "tables" / "decision_card.csv").set_index("metric")
    assert str(card.loc[METRIC, "label_state"]) == (
        f"{asked} labels · pass/fail at 0.5: a leads b on the labels, shown at most 0.2 below it "
        "and better than chance"
    )


def test_label_margin_on_a_run_without_one_gives_the_line_report_margin_gives_the_card(tmp_path):
    """`judgegrid label --margin 0.2` (``SessionAsk(margin=0.2)``) on a run whose matrix has no
    margin: the page's line, judges shown, reaches the margin's verdict after as many labels as
    under the matrix's ``decision: {margin: 0.2}`` (the queue is designed under it too), and
    says what `judgegrid report --margin 0.2` puts on the card; the card without --margin, the
    matrix's, does not: the two agree when both are given the same margin."""
    (tmp_path / "matrix").mkdir()
    _, by_matrix = _label_until_a_verdict(_run(tmp_path / "matrix", margin=0.2, every=6))
    run_dir = _run(tmp_path, every=6)
    ask = SessionAsk(n=SAMPLES, batch=5, show_judges=True, margin=0.2)
    lines, asked = _label_until_a_verdict(run_dir, ask)
    assert asked == by_matrix
    assert lines[-1] == (
        f"{asked} labels · pass/fail at 0.5: a leads b on the labels, shown at most 0.2 below it "
        "and better than chance"
    ), lines[-5:]

    def card_line(*options: str) -> str:
        result = CliRunner().invoke(app, ["report", str(run_dir), *options])
        assert result.exit_code == 0, result.output
        card = pd.read_csv(run_dir / "tables" / "decision_card.csv").set_index("metric")
        return str(card.loc[METRIC, "label_state"])

    assert card_line("--margin", "0.2") == lines[-1]
    assert "at most" not in card_line()


def test_with_juries_the_page_and_the_report_weigh_the_same_judges(tmp_path):
    """``juries: true``: the report's card counts the jury of a and b as one more judge; the
    page's line, judges shown, must too, or the two say different things of the same labels
    (the page once left the jury out: "a and b are level" beside the card's "a, jury(a + b)
    and b are level")."""
    run_dir = _run(tmp_path, juries=True)
    shown = SessionAsk(n=6, show_judges=True)
    lines, asked = _label_until_a_verdict(run_dir, shown)
    assert asked == 6
    result = CliRunner().invoke(app, ["report", str(run_dir)])
    assert result.exit_code == 0, result.output
    card = pd.read_csv(run_dir / "tables" / "decision_card.csv").set_index("metric")
    stated = str(card.loc[METRIC, "label_state"])
    assert "jury(a + b)" in stated, stated
    assert lines[-1].endswith(stated), (lines[-1], stated)
