"""ContextPrecision and ContextRecall through the runner, on the scripted judge."""

from __future__ import annotations

import pytest

from judgegrid import run_grid
from judgegrid.core.errors import MatrixError
from judgegrid.core.sample import Dataset, Sample
from judgegrid.inputs.matrix import parse_matrix
from support.demo_sets import english_demo


def run_metrics(write_matrix, tmp_path, metrics, samples=None):
    data = Dataset("mem", tuple(samples)) if samples else english_demo()
    matrix = write_matrix(metrics=metrics, repeats=1)
    return run_grid(matrix, data, run_dir=tmp_path / "run")


def test_noise_first_contexts_score_lower_than_relevant_first(write_matrix, tmp_path):
    result = run_metrics(write_matrix, tmp_path, ["context_precision"])
    scores = result.scores.set_index(["judge", "sample_id"])["score"]
    for judge in ("a", "b"):
        relevant_first = scores[(judge, "photosynthesis-relevant-first")]
        noise_first = scores[(judge, "photosynthesis-noise-first")]
        # the scripted judge finds the first photosynthesis context useful, not the second:
        # rank 1 of 4 when relevant contexts come first, rank 3 of 4 when noise comes first
        assert relevant_first == pytest.approx(1.0)
        assert noise_first == pytest.approx(1 / 3)
        assert noise_first < relevant_first


def test_context_precision_asks_once_per_context_and_shares_nothing_between_judges(
    write_matrix, tmp_path, scripted_provider
):
    sample = english_demo().by_id()["photosynthesis-noise-first"]
    run_metrics(write_matrix, tmp_path, ["context_precision"], [sample])
    calls = [c for c in scripted_provider.calls if c["step"] == "usefulness"]
    assert len(calls) == 2 * len(sample.retrieved_contexts)


def test_context_precision_mode_decides_what_usefulness_is_judged_against(write_matrix, tmp_path):
    no_reference = Sample(
        id="no-ref",
        user_input="Q?",
        response="Paris is the capital.",
        retrieved_contexts=["Paris is the capital of France."],
    )
    # beside a sample it can score: a run where every cell would be skipped is refused (issue 25)
    referenced = no_reference.model_copy(update={"id": "ref", "reference": "Paris."})
    result = run_metrics(
        write_matrix,
        tmp_path,
        [{"name": "context_precision", "mode": "reference"}],
        [no_reference, referenced],
    )
    skipped = result.scores[result.scores["sample_id"] == "no-ref"]
    assert set(skipped["status"]) == {"skipped"}
    assert skipped["error"].str.contains("has no reference").all()
    assert set(result.scores.loc[result.scores["sample_id"] == "ref", "status"]) == {"scored"}
    auto = run_metrics(write_matrix, tmp_path / "auto", ["context_precision"], [no_reference])
    assert set(auto.scores["status"]) == {"scored"}


def test_unknown_context_precision_mode_is_a_matrix_error():
    with pytest.raises(MatrixError, match=r"metrics\[0\]\.mode"):
        parse_matrix(
            "judges: [{id: scripted/a}]\nmetrics: [{name: context_precision, mode: sideways}]\n"
        )


def test_context_recall_scores_the_attributed_share(write_matrix, tmp_path):
    sample = Sample(
        id="r",
        user_input="Who built it and when?",
        retrieved_contexts=["The bridge was built by Roebling engineers."],
        reference="The bridge was built by Roebling engineers. It opened in 1883.",
    )
    result = run_metrics(write_matrix, tmp_path, ["context_recall"], [sample])
    assert list(result.scores["score"]) == [0.5, 0.5]
    assert result.scores["reason"].str.contains("1 of 2 reference sentences supported").all()


def test_context_recall_skips_samples_without_reference(write_matrix, tmp_path):
    sample = Sample(id="no-ref", user_input="Q?", response="A.", retrieved_contexts=["c"])
    referenced = sample.model_copy(update={"id": "ref", "reference": "A."})
    scores = run_metrics(write_matrix, tmp_path, ["context_recall"], [sample, referenced]).scores
    assert set(scores.loc[scores["sample_id"] == "no-ref", "status"]) == {"skipped"}
    assert set(scores.loc[scores["sample_id"] == "ref", "status"]) == {"scored"}
