"""The cross-run cache on the scripted judge: what is reused, and what must never be."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from conftest import CELL_KEY
from judgegrid import run_grid
from judgegrid.cli import app
from judgegrid.store.cache import CACHE_FILE, ResultCache, default_cache_path


def run(write_matrix, tmp_path: Path, name: str, limit: int = 2, **overrides):
    matrix = write_matrix(f"{name}.yaml", **overrides)
    return run_grid(matrix, limit=limit, run_dir=tmp_path / name)


def judge_calls(script, model_suffix: str | None = None) -> list[dict]:
    return [
        c
        for c in script.calls
        if c["kind"] == "completion" and (model_suffix is None or c["model"].endswith(model_suffix))
    ]


def sorted_scores(result):
    return result.scores.sort_values(CELL_KEY)[[*CELL_KEY, "status", "score"]].reset_index(
        drop=True
    )


def test_the_cache_lives_where_the_environment_says(cache_dir):
    assert default_cache_path() == cache_dir / CACHE_FILE
    assert not (Path.home() / ".cache" / "judgegrid" / "never-created-by-tests").exists()


def test_rerunning_an_identical_grid_makes_no_call(write_matrix, tmp_path, scripted_provider):
    first = run(write_matrix, tmp_path, "first")
    assert len(first.calls) > 0 and scripted_provider.calls
    scripted_provider.calls.clear()

    second = run(write_matrix, tmp_path, "second")
    assert scripted_provider.calls == []
    assert second.calls.empty
    assert second.tally.cached_answers > 0 and second.tally.cached_vectors > 0
    assert sorted_scores(second).equals(sorted_scores(first))
    # the rerun's own steps table is filled, so it resumes like any run
    with sqlite3.connect(tmp_path / "second" / "run.sqlite") as con:
        steps = con.execute("SELECT count(*) FROM steps").fetchone()[0]
    with sqlite3.connect(tmp_path / "first" / "run.sqlite") as con:
        assert steps == con.execute("SELECT count(*) FROM steps").fetchone()[0]


def test_changing_one_judges_temperature_recalls_only_that_judge(
    write_matrix, tmp_path, scripted_provider
):
    run(write_matrix, tmp_path, "first")
    first_b = len(judge_calls(scripted_provider, "judge-b"))
    scripted_provider.calls.clear()

    judges = [
        {"id": "scripted/judge-a", "label": "a"},
        {"id": "scripted/judge-b", "label": "b", "options": {"temperature": 0.5}},
    ]
    second = run(write_matrix, tmp_path, "second", judges=judges)
    assert judge_calls(scripted_provider, "judge-a") == []
    assert len(judge_calls(scripted_provider, "judge-b")) == first_b
    assert {c["params"]["temperature"] for c in judge_calls(scripted_provider)} == {0.5}
    assert set(second.calls["label"]) == {"b"}
    # vectors of texts already embedded come from the cache; b's questions are the same texts
    assert (second.calls["kind"] == "completion").all()


def test_two_judges_with_identical_prompts_never_share_an_entry(
    write_matrix, tmp_path, scripted_provider, cache_dir
):
    same_model = [
        {"id": "scripted/judge-a", "label": "x"},
        {"id": "scripted/judge-a", "label": "y"},
    ]
    result = run(write_matrix, tmp_path, "twins", judges=same_model)
    per_label = result.calls[result.calls["kind"] == "completion"].groupby("label").size()
    assert per_label["x"] == per_label["y"] > 0  # y did not reuse x's answers
    with sqlite3.connect(cache_dir / CACHE_FILE) as con:
        by_label = dict(con.execute("SELECT label, count(*) FROM answers GROUP BY label"))
    assert by_label == {"x": per_label["x"], "y": per_label["y"]}


def test_the_judges_model_id_is_part_of_the_key(write_matrix, tmp_path, scripted_provider):
    """ragas #2983: the same label and prompts on another model must not get the first's answers."""
    run(write_matrix, tmp_path, "first", judges=[{"id": "scripted/judge-a", "label": "j"}])
    scripted_provider.calls.clear()
    run(write_matrix, tmp_path, "second", judges=[{"id": "scripted/judge-b", "label": "j"}])
    assert judge_calls(scripted_provider, "judge-b")
    assert judge_calls(scripted_provider, "judge-a") == []


def test_repeat_r_never_gets_repeat_r_primes_sample(write_matrix, tmp_path, scripted_provider):
    run(write_matrix, tmp_path, "one", repeats=1)
    first = len(judge_calls(scripted_provider))
    scripted_provider.calls.clear()
    run(write_matrix, tmp_path, "two", repeats=2)
    # repeat 0 comes from the cache; repeat 1 is asked afresh, every step of it
    calls = judge_calls(scripted_provider)
    assert len(calls) == first
    assert all(c["params"]["seed"] >= 1 + 1000 for c in calls)


def test_failed_answers_are_not_cached(write_matrix, tmp_path, scripted_provider):
    from support.scripted import default_answer

    def garbage_from_b(step, prompt, model):
        if model.endswith("judge-b") and step == "statements":
            return "no JSON here"
        return default_answer(step, prompt, model)

    scripted_provider.answer = garbage_from_b
    first = run(write_matrix, tmp_path, "first")
    failed = first.scores[first.scores["status"] == "failed"]
    assert len(failed) and set(failed["judge"]) == {"b"}
    scripted_provider.reset()

    second = run(write_matrix, tmp_path, "second")
    assert (second.scores["status"] == "scored").all()
    asked = {c["step"] for c in judge_calls(scripted_provider)}
    assert asked == {"statements", "verdicts"}  # only the steps that failed, and what follows
    assert all(c["model"].endswith("judge-b") for c in judge_calls(scripted_provider))


def test_cache_commands_and_no_cache(write_matrix, tmp_path, scripted_provider, cache_dir):
    cli = CliRunner()
    matrix = write_matrix()
    args = ["run", str(matrix), "--limit", "1", "--no-progress"]
    first = cli.invoke(app, [*args, "--reports-dir", str(tmp_path / "r1")])
    assert first.exit_code == 0, first.output
    made = len(scripted_provider.calls)

    stats = cli.invoke(app, ["cache", "stats"])
    assert stats.exit_code == 0, stats.output
    assert str(cache_dir / CACHE_FILE) in stats.stdout
    assert (
        "judge-a" in stats.stdout and "judge-b" in stats.stdout and "scripted/bow" in stats.stdout
    )

    scripted_provider.calls.clear()
    again = cli.invoke(app, [*args, "--reports-dir", str(tmp_path / "r2")])
    assert again.exit_code == 0 and scripted_provider.calls == []
    assert "from the cache:" in again.stdout

    uncached = cli.invoke(app, [*args, "--no-cache", "--reports-dir", str(tmp_path / "r3")])
    assert uncached.exit_code == 0, uncached.output
    assert len(scripted_provider.calls) == made

    cleared = cli.invoke(app, ["cache", "clear"])
    assert cleared.exit_code == 0 and "deleted" in cleared.stdout
    cache = ResultCache()
    try:
        assert cache.stats().answers == 0 and cache.stats().vectors == 0
    finally:
        cache.close()


def test_clear_one_model_keeps_the_others(cache_dir):
    import numpy as np

    cache = ResultCache()
    try:
        for model in ("m1", "m2"):
            cache.put_answer(f"k-{model}", model=model, label=model, step="s", answer={}, usage={})
            cache.put_vectors(f"{model}|abc", 0, {"text": np.ones(3)})
        assert cache.clear("m1") == (1, 1)
        assert cache.stats().answers_by_model == {"m2": 1}
        assert cache.stats().vectors_by_model == {"m2|abc": 1}
    finally:
        cache.close()
