"""The judge steps of every metric, on the scripted judge: through the runner and standalone."""

from __future__ import annotations

import pytest

from judgegrid import run_grid, score_sample
from judgegrid.core.sample import Dataset, Sample
from judgegrid.metrics import (
    METRICS,
    AnswerRelevancy,
    ContextEntityRecall,
    NoiseSensitivity,
    ResponseRelevancy,
)
from support.demo_sets import english_demo

ALL_METRICS = [
    "response_relevancy",
    "faithfulness",
    "context_precision",
    "context_recall",
    "context_entity_recall",
    {"name": "noise_sensitivity", "mode": "relevant"},
    "answer_relevancy",
]

# Reference and one context agree; the other context is noise that one response statement
# repeats. Word-overlap verdicts of the scripted judge: a0 correct (context 0), a1 wrong and
# supported only by the noise context 1.
BRIDGE = Sample(
    id="bridge",
    user_input="Who designed the Brooklyn bridge?",
    response="Roebling designed the Brooklyn bridge. Gustave Eiffel designed the tower in Paris.",
    retrieved_contexts=[
        "Roebling designed the Brooklyn bridge in New York.",
        "Gustave Eiffel designed the tower in Paris.",
    ],
    reference="Roebling designed the Brooklyn bridge.",
)


def run_metrics(write_matrix, tmp_path, metrics, samples=None, **overrides):
    data = Dataset("mem", tuple(samples)) if samples else english_demo()
    matrix = write_matrix(metrics=metrics, **{"repeats": 1, **overrides})
    return run_grid(matrix, data, run_dir=tmp_path / "run")


def completion_steps(provider) -> list[str]:
    return [c["step"] for c in provider.calls if c["kind"] == "completion"]


def test_all_seven_metrics_score_the_demo_set(write_matrix, tmp_path):
    result = run_metrics(write_matrix, tmp_path, ALL_METRICS, strictness=[1])
    assert result.complete
    assert set(result.scores["metric"]) == set(METRICS)
    assert set(result.scores["status"]) == {"scored"}
    assert result.scores["score"].between(0, 1).all()
    summary = (result.run_dir / "summary.md").read_text()
    for metric in METRICS.values():
        assert f"## {metric.title}" in summary
    assert "## Calls per metric" in summary and "calls_per_score" in summary


def test_hallucinated_faithfulness_example_scores_at_most_0_7(write_matrix, tmp_path):
    result = run_metrics(write_matrix, tmp_path, ["faithfulness"])
    scores = result.scores.set_index(["judge", "sample_id"])["score"]
    for judge in ("a", "b"):
        assert scores[(judge, "canal-hallucinated")] <= 0.7
        assert scores[(judge, "canal-grounded")] > scores[(judge, "canal-hallucinated")]


def test_noise_sensitivity_modes_on_a_hand_built_sample(write_matrix, tmp_path):
    metrics = [
        {"name": "noise_sensitivity", "mode": "relevant"},
    ]
    relevant = run_metrics(write_matrix, tmp_path, metrics, [BRIDGE])
    irrelevant = run_metrics(
        write_matrix,
        tmp_path / "irr",
        [{"name": "noise_sensitivity", "mode": "irrelevant"}],
        [BRIDGE],
    )
    assert list(relevant.scores["score"]) == [0.0, 0.0]
    assert list(irrelevant.scores["score"]) == [0.5, 0.5]
    assert irrelevant.scores["reason"].str.contains("1 of 2 response statements").all()


def test_noise_sensitivity_makes_2k_plus_3_calls_and_shares_them_with_faithfulness(
    write_matrix, tmp_path, scripted_provider
):
    # One metric entry per mode would be two entries with one name; the modes share calls
    # anyway, so run faithfulness beside it and count.
    run_metrics(write_matrix, tmp_path, ["noise_sensitivity", "faithfulness"], [BRIDGE])
    steps = completion_steps(scripted_provider)
    k = len(BRIDGE.retrieved_contexts)
    per_judge_statements = 2  # reference and response, the response's shared with faithfulness
    per_judge_nli = 2 * k + 1 + 1  # per context ×2, vs reference; faithfulness' joined contexts
    assert steps.count("statements") == 2 * per_judge_statements
    assert steps.count("verdicts") == 2 * per_judge_nli


def test_noise_sensitivity_refuses_a_verdict_table_of_the_wrong_size(
    write_matrix, tmp_path, scripted_provider
):
    from support import scripted

    def one_verdict_short(step, prompt, model):
        answer = scripted.default_answer(step, prompt, model)
        if step == "verdicts":
            answer["statements"] = answer["statements"][:-1]
        return answer

    scripted_provider.answer = one_verdict_short
    result = run_metrics(write_matrix, tmp_path, ["noise_sensitivity"], [BRIDGE])
    assert set(result.scores["status"]) == {"failed"}
    assert result.scores["error"].str.contains("verdicts for 2 statements").all()
    assert result.scores["score"].isna().all()


def test_context_entity_recall_through_the_runner(write_matrix, tmp_path, scripted_provider):
    sample = Sample(
        id="curie",
        reference="Marie Curie won prizes in 1903 and 1911 in Paris.",
        retrieved_contexts=["Marie Curie received the prize in 1903.", "It was cold."],
    )
    result = run_metrics(write_matrix, tmp_path, ["context_entity_recall"], [sample])
    # reference entities: Marie, Curie, Paris, 1903, 1911; found in the contexts: three
    assert list(result.scores["score"]) == [0.6, 0.6]
    assert result.scores["reason"].str.contains("missing: 1911, paris").all()
    assert completion_steps(scripted_provider).count("entities") == 2 * 2


def test_answer_relevancy_verdicts_reason_and_success(write_matrix, tmp_path, scripted_provider):
    sample = Sample(
        id="water",
        user_input="At what temperature does water boil at sea level?",
        response="Water boils at 100 degrees at sea level. Penguins live in Antarctica.",
    )
    result = run_metrics(write_matrix, tmp_path, ["answer_relevancy"], [sample])
    row = result.scores.iloc[0]
    assert row["score"] == 0.5
    assert row["reason"].startswith("The score is 0.50")
    assert '"success": true' in row["details"] and '"threshold": 0.5' in row["details"]
    assert completion_steps(scripted_provider).count("ar_reason") == 2

    scripted_provider.calls.clear()
    strict = run_metrics(
        write_matrix,
        tmp_path / "strict",
        [{"name": "answer_relevancy", "strict_mode": True, "include_reason": False}],
        [sample],
    )
    assert list(strict.scores["score"]) == [0.0, 0.0]
    assert strict.scores["reason"].isna().all()
    assert '"success": false' in strict.scores.iloc[0]["details"]
    assert "ar_reason" not in completion_steps(scripted_provider)


def test_garbage_relevance_verdicts_are_a_recorded_failure(
    write_matrix, tmp_path, scripted_provider
):
    from support import scripted

    scripted_provider.answer = lambda step, prompt, model: (
        '{"verdicts": [{"verdict": "maybe"}]}'
        if step == "relevance"
        else scripted.default_answer(step, prompt, model)
    )
    result = run_metrics(write_matrix, tmp_path, ["answer_relevancy"], [BRIDGE])
    assert set(result.scores["status"]) == {"failed"}
    assert result.scores["error"].str.contains("RelevanceVerdicts schema").all()
    assert result.scores["details"].str.contains("maybe").all()


def test_standalone_response_relevancy_carries_score_and_trace():
    sample = {
        "question": "Where is the Great Barrier Reef?",
        "answer": "The Great Barrier Reef lies off Queensland, Australia.",
    }
    result = score_sample(
        ResponseRelevancy(strictness=3),
        sample,
        judge="scripted/judge-a",
        embeddings="scripted/bow",
        judge_options={"seed": 3},
    )
    assert 0.0 < result.score <= 1.0
    kinds = [c["kind"] for c in result.calls]
    assert kinds.count("completion") == 3 and kinds.count("embedding") == 1
    assert result.usage.calls == 4
    assert len(result.details["questions"]) == 3


def test_standalone_answer_relevancy_with_deepeval_options():
    metric = AnswerRelevancy(threshold=0.5, include_reason=True, strict_mode=False)
    result = score_sample(
        metric,
        {"user_input": "Who designed the Brooklyn bridge?", "response": BRIDGE.response},
        judge="scripted/judge-b",
    )
    assert result.score == 0.5  # the Eiffel statement is off the question
    assert result.details["success"] is True
    assert result.reason and result.reason.startswith("The score is 0.50")
    assert len(result.calls) == 3  # statements, verdicts, reason


def test_standalone_refuses_a_sample_lacking_a_field():
    from judgegrid.core.errors import InputError

    with pytest.raises(InputError, match="has no reference"):
        score_sample(ContextEntityRecall(), {"retrieved_contexts": ["x"]}, judge="scripted/judge-a")


def test_standalone_noise_sensitivity_mode():
    result = score_sample(NoiseSensitivity(mode="irrelevant"), BRIDGE, judge="scripted/judge-a")
    assert result.score == 0.5
    assert result.details["response_vs_context"] == [[1, 0], [0, 1]]


def test_a_failed_cell_accounts_for_the_calls_it_made(write_matrix, tmp_path, scripted_provider):
    from support import scripted

    scripted_provider.answer = lambda step, prompt, model: (
        "not json at all" if step == "verdicts" else scripted.default_answer(step, prompt, model)
    )
    result = run_metrics(write_matrix, tmp_path, ["faithfulness"], [BRIDGE])
    assert set(result.scores["status"]) == {"failed"}
    # statements (1) + verdicts (1) + its corrective retry (1), per judge
    assert list(result.scores["calls"]) == [3, 3]
    summary = (result.run_dir / "summary.md").read_text()
    by_step = summary.split("Calls made by step:")[1]
    assert "| nli " in by_step and "| statements " in by_step and "(unknown)" not in by_step
