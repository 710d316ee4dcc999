"""The embedded judges' log-probabilities, as the sampler stage records them (no model)."""

from __future__ import annotations

import numpy as np
import pytest

from judgegrid.calls.providers.grammar_sampler import TokenRecorder

VOCAB = 50_000


def candidates(seed: int) -> np.recarray:
    """llama.cpp's candidates as the stage sees them: interleaved id, logit, p."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)
    data = np.recarray((VOCAB,), dtype=dtype)
    data.id = rng.permutation(VOCAB)
    data.logit = rng.standard_normal(VOCAB).astype(np.single) * 4
    return data


def log_softmax(logits: np.ndarray) -> np.ndarray:
    x = logits.astype(np.float64)
    return x - (x.max() + np.log(np.exp(x - x.max()).sum()))


@pytest.mark.parametrize("seed", range(3))
def test_the_top_alternatives_are_the_softmax_of_the_raw_logits_most_likely_first(seed):
    data = candidates(seed)
    recorder = TokenRecorder(top=20)
    seen = recorder.before_mask(data.id, data.logit)
    full = log_softmax(np.asarray(data.logit))
    order = np.argsort(full)[::-1][:20]
    assert [token for token, _ in seen[1]] == [int(data.id[i]) for i in order]
    assert [lp for _, lp in seen[1]] == pytest.approx(full[order].tolist(), abs=1e-5)

    position = int(order[7])  # the grammar made the sampler take the 8th most likely token
    recorder.record(seen, int(data.id[position]), float(data.logit[position]))
    ((token, logprob, alternatives),) = recorder.steps
    assert token == int(data.id[position])
    assert logprob == pytest.approx(full[position], abs=1e-5)
    assert alternatives == seen[1]


def test_tokens_far_below_the_most_likely_are_left_out_and_top_zero_gives_none():
    logits = np.full(VOCAB, -30.0, dtype=np.single)
    logits[[3, 9, 11]] = [5.0, 4.0, -6.0]  # the last is 11 below the top: weighs nothing
    ids = np.arange(VOCAB, dtype=np.intc)
    _, alternatives = TokenRecorder(top=20).before_mask(ids, logits)
    assert [token for token, _ in alternatives] == [3, 9]
    assert sum(np.exp(lp) for _, lp in alternatives) == pytest.approx(1.0, abs=1e-4)
    assert TokenRecorder(top=0).before_mask(ids, logits)[1] == []
