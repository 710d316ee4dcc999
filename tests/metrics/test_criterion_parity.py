"""A criterion's arithmetic against the peers' own code, on the same inputs.

- The probability-weighted score (``expected_level`` on the alternatives ``score_alternatives``
  reads at the score token) equals DeepEval's G-Eval weighting
  (``deepeval.metrics.g_eval.utils.calculate_weighted_summed_score``), handed the same
  ``openai`` ChatCompletion with the same log-probabilities. Where the two differ by design,
  the test says how, with DeepEval's own output: DeepEval drops alternatives under 1 %, counts
  any digit (also one off the scale), and falls back silently to the plain score when none is
  left (deepeval #1029), where judgegrid returns None, which the cell records as "missing".
- The majority verdict of a binary criterion equals Ragas' AspectCritic's
  (``AspectCritic._compute_score``) on the same verdicts; the share of passes equals the mean of
  AspectCritic's single-verdict scores (Ragas keeps no share).

Both are test-only dependencies (the ``dev`` extra).
"""

from __future__ import annotations

import math
import os
import random

import pytest

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

from deepeval.metrics.g_eval.utils import calculate_weighted_summed_score
from openai.types.chat import ChatCompletion
from ragas.metrics import AspectCritic
from ragas.metrics._aspect_critic import AspectCriticOutput

from judgegrid.calls.providers.logprobs import score_alternatives
from judgegrid.metrics.criterion import expected_level, majority
from judgegrid.testing.logprob_tokens import scripted_logprobs

LEVELS = (1, 2, 3, 4, 5)


def completion(level: int, alternatives: dict[str, float]) -> ChatCompletion:
    """A G-Eval reply (``{"score": ..., "reason": ...}``, the score first) as OpenAI returns it,
    the given alternatives at the score's token."""
    text = f'{{"score": {level}, "reason": "The reply is clear and kind."}}'
    logprobs = scripted_logprobs(text, alternatives, top=20)
    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-parity",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": text},
                    "logprobs": logprobs,
                }
            ],
        }
    )


def ours(reply: ChatCompletion, levels: tuple[int, ...] = LEVELS) -> float | None:
    """judgegrid's weighted score of a reply: the score token's alternatives, then G-Eval."""
    alternatives = score_alternatives(reply.choices[0].logprobs.content, "score")
    assert alternatives is not None
    return expected_level(alternatives, levels)


def random_alternatives(rng: random.Random, chosen: int) -> dict[str, float]:
    """Log-probabilities of some of the levels (the chosen one among them), each at least 1 %."""
    levels = sorted({chosen, *rng.sample(LEVELS, rng.randint(0, len(LEVELS)))})
    mass = rng.uniform(0.6, 1.0)  # the rest on other tokens
    floor = 0.011
    shares = [rng.random() for _ in levels]
    spread = (mass - floor * len(levels)) / sum(shares)
    return {
        str(level): math.log(floor + spread * s) for level, s in zip(levels, shares, strict=True)
    }


@pytest.mark.parametrize("seed", range(40))
def test_the_weighted_score_equals_deepevals_g_eval_weighting(seed):
    rng = random.Random(seed)
    chosen = rng.choice(LEVELS)
    reply = completion(chosen, random_alternatives(rng, chosen))
    theirs = calculate_weighted_summed_score(chosen, reply)
    assert ours(reply) == pytest.approx(theirs, rel=1e-12)


def test_a_worked_example_equals_deepevals():
    """0.6 on 4, 0.3 on 3, 0.1 on 5: 4·0.6 + 3·0.3 + 5·0.1 = 3.8."""
    reply = completion(4, {"4": math.log(0.6), "3": math.log(0.3), "5": math.log(0.1)})
    assert ours(reply) == pytest.approx(3.8)
    assert calculate_weighted_summed_score(4, reply) == pytest.approx(3.8)


def test_where_deepeval_differs_by_design_it_says_so_in_its_own_output():
    # under 1 %: DeepEval drops the token, judgegrid keeps it (renormalised over the levels)
    faint = completion(4, {"4": math.log(0.9), "1": math.log(0.005)})
    assert calculate_weighted_summed_score(4, faint) == 4
    assert ours(faint) == pytest.approx((4 * 0.9 + 1 * 0.005) / 0.905)
    # a digit off the scale: DeepEval counts it, judgegrid keeps to the allowed levels
    off = completion(5, {"5": math.log(0.5), "9": math.log(0.5)})
    assert calculate_weighted_summed_score(5, off) == pytest.approx(7.0)
    assert ours(off) == pytest.approx(5.0)


def test_no_usable_alternative_is_none_here_where_deepeval_falls_back_silently():
    """The score's token has alternatives, none an allowed level among them (the chosen one
    too faint for DeepEval, off the scale for judgegrid)."""
    reply = completion(7, {"7": math.log(0.004), "high": math.log(0.9)})
    assert calculate_weighted_summed_score(7, reply) == 7  # the plain score, unannounced
    assert ours(reply) is None  # the caller records weighting "missing"


@pytest.mark.parametrize(
    "verdicts",
    [
        [1],
        [0],
        [1, 0, 1],
        [0, 0, 1],
        [1, 1, 0, 0, 0],
        [0, 1, 1, 1, 0],
        [1, 0],  # an even count: both keep the verdict met first
        [0, 1],
        [1] * 15,
    ],
)
def test_the_majority_and_pass_share_equal_ragas_aspect_critic(verdicts):
    critic = AspectCritic(name="polite", definition="Is it polite?", strictness=len(verdicts))
    answers = [AspectCriticOutput(reason="r", verdict=v) for v in verdicts]
    winner, share = majority(verdicts)
    assert winner == critic._compute_score(answers)
    single = AspectCritic(name="polite", definition="Is it polite?", strictness=1)
    per_verdict = [single._compute_score([answer]) for answer in answers]
    assert share == pytest.approx(sum(per_verdict) / len(per_verdict))


@pytest.mark.parametrize("seed", range(20))
def test_the_majority_equals_ragas_on_random_odd_votes(seed):
    rng = random.Random(seed)
    verdicts = [rng.randint(0, 1) for _ in range(rng.choice([1, 3, 5, 7, 9]))]
    critic = AspectCritic(name="polite", definition="Is it polite?", strictness=len(verdicts))
    answers = [AspectCriticOutput(reason="r", verdict=v) for v in verdicts]
    assert majority(verdicts)[0] == critic._compute_score(answers)
