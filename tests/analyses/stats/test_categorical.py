"""Agreement on categories, checked against independent implementations: scikit-learn's
cohen_kappa_score (plain, linear, quadratic), statsmodels' fleiss_kappa, the krippendorff
package (nominal, ordinal, interval, with missing ratings), and for Gwet's AC1 the worked
example of Gwet (2008) and values computed by irrCAC 0.4.4, Gwet's own package (it pins
scipy 1.12 and pandas < 3, so it cannot be a test dependency here); the large-sample standard
errors of Fleiss' kappa, nominal alpha and AC1 (Gwet 2008, 2014) against irrCAC's, the Handbook's
worked example, and the coverage of their intervals in simulation."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from judgegrid.analyses.stats.categorical import (
    ac1_from_counts,
    ac1_linearized,
    alpha_from_counts,
    alpha_linearized,
    category_counts,
    cohen_kappa,
    fleiss_from_counts,
    fleiss_kappa,
    fleiss_linearized,
    gwet_ac1,
    interval,
    krippendorff_alpha,
    normal_interval,
)


def _ratings(seed: int, units: int = 40, raters: int = 4, k: int = 4, missing: float = 0.2):
    """Raters who copy the first one now and then (so agreement is neither 0 nor 1), with ties
    and missing ratings."""
    rng = np.random.default_rng(seed)
    table = rng.integers(0, k, size=(units, raters)).astype(float)
    for r in range(1, raters):
        copy = rng.random(units) < 0.5
        table[copy, r] = table[copy, 0]
    table[rng.random((units, raters)) < missing] = np.nan
    return table


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_matches_scikit_learn(seed, weights):
    table = _ratings(seed, raters=2, missing=0.15)
    both = ~np.isnan(table).any(axis=1)
    expected = cohen_kappa_score(table[both, 0], table[both, 1], weights=weights)
    assert cohen_kappa(table[:, 0], table[:, 1], 4, weights) == pytest.approx(expected)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [2, 3, 5])
def test_fleiss_kappa_matches_statsmodels_on_the_units_every_rater_rated(seed, k):
    table = _ratings(seed, k=k, missing=0.1)
    complete = table[~np.isnan(table).any(axis=1)].astype(int)
    counts, _ = aggregate_raters(complete, n_cat=k)
    assert fleiss_kappa(table, k) == pytest.approx(statsmodels_fleiss(counts, method="fleiss"))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_matches_the_krippendorff_package(seed, level):
    table = _ratings(seed)
    expected = krippendorff.alpha(
        reliability_data=table.T, level_of_measurement=level, value_domain=[0, 1, 2, 3]
    )
    assert krippendorff_alpha(table, 4, level) == pytest.approx(expected)


def test_ac1_resists_the_kappa_paradox_as_in_gwets_worked_example():
    """Gwet (2008), 125 subjects: both raters '+' on 118, A '+' B '-' on 5, A '-' B '+' on 2.
    The raters agree on 94% of subjects, yet kappa is below 0; AC1 is 0.9408."""
    a = np.array([1] * 118 + [1] * 5 + [0] * 2, float)
    b = np.array([1] * 118 + [0] * 5 + [1] * 2, float)
    assert gwet_ac1(np.column_stack([a, b]), 2) == pytest.approx(0.94078, abs=5e-6)
    assert (
        cohen_kappa(a, b, 2) == pytest.approx(cohen_kappa_score(a, b)) and cohen_kappa(a, b, 2) < 0
    )


@pytest.mark.parametrize(
    ("seed", "missing", "expected"),
    [(1, 0.2, -0.01651), (1, 0.0, -0.08254)],  # irrCAC 0.4.4: CAC(df, categories=[0, 1, 2]).gwet()
)
def test_ac1_with_many_raters_and_missing_ratings_matches_irrcac(seed, missing, expected):
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 3, size=(30, 4)).astype(float)
    holes = rng.random((30, 4)) < 0.2
    if missing:
        table[holes] = np.nan
    else:
        table = rng.integers(0, 3, size=(30, 4)).astype(float)  # the next table drawn, complete
    assert gwet_ac1(table, 3) == pytest.approx(expected, abs=5e-6)


@pytest.mark.parametrize("statistic", [alpha_from_counts, ac1_from_counts])
def test_a_bootstrap_draw_is_the_statistic_of_the_units_it_drew(statistic):
    """Weighting each unit by how often a draw took it equals computing on the drawn table."""
    table = _ratings(7, units=25)
    counts = category_counts(table, 4)
    rng = np.random.default_rng(0)
    for _ in range(5):
        drawn = rng.integers(0, len(table), len(table))
        weights = np.bincount(drawn, minlength=len(table))[None].astype(float)
        on_weights = statistic(counts, weights)[0]
        on_table = statistic(category_counts(table[drawn], 4), np.ones((1, len(drawn))))[0]
        assert on_weights == pytest.approx(on_table)


def test_raters_at_random_get_an_interval_around_zero_and_copies_an_interval_near_one():
    rng = np.random.default_rng(3)
    random = rng.integers(0, 2, size=(60, 3)).astype(float)
    point, low, high = interval(alpha_from_counts, category_counts(random, 2))
    assert low < 0 < high and low <= point <= high
    copies = np.repeat(rng.integers(0, 2, size=(60, 1)), 3, axis=1).astype(float)
    copies[0, 2] = 1 - copies[0, 2]
    point, low, high = interval(ac1_from_counts, category_counts(copies, 2))
    assert 0.85 < low <= point <= high <= 1


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_a_bootstrap_draws_alpha_is_alpha_of_the_units_repeated_as_drawn(level):
    """A draw weighs each unit by how often it was taken: the krippendorff package on the
    table with each unit repeated that often must agree (every level's kernel, the interval
    level's from the units' moments included)."""
    rng = np.random.default_rng(11)
    table = rng.integers(0, 4, size=(25, 3)).astype(float)
    table[rng.random(table.shape) < 0.15] = np.nan
    taken = rng.integers(0, 3, size=25)
    repeated = np.repeat(table, taken, axis=0)
    expected = krippendorff.alpha(
        reliability_data=repeated.T, level_of_measurement=level, value_domain=[0, 1, 2, 3]
    )
    drawn = alpha_from_counts(category_counts(table, 4), taken[None, :].astype(float), level)
    assert drawn[0] == pytest.approx(expected)


def test_alpha_of_scores_is_the_interval_alpha_of_the_values_themselves():
    rng = np.random.default_rng(5)
    scores = rng.random((30, 4))
    scores[rng.random(scores.shape) < 0.2] = np.nan
    expected = krippendorff.alpha(reliability_data=scores.T, level_of_measurement="interval")
    assert krippendorff_alpha(scores) == pytest.approx(expected)


def _gwet_table(missing: bool) -> np.ndarray:
    """400 units, 5 raters who each give the unit's true category (of 3) 60% of the time."""
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 3, 400)
    table = np.where(rng.random((400, 5)) < 0.6, truth[:, None], rng.integers(0, 3, (400, 5)))
    table = table.astype(float)
    if missing:
        table[rng.random(table.shape) < 0.2] = np.nan
    return table


def _standard_error(linearized: np.ndarray) -> float:
    return float(np.std(linearized, ddof=1) / np.sqrt(len(linearized)))


@pytest.mark.parametrize(
    ("linearized", "missing", "expected"),
    # irrCAC 0.4.4: CAC(pd.DataFrame(table), categories=[0., 1., 2.], digits=7).<coefficient>()
    [(fleiss_linearized, False, 0.0197329), (alpha_linearized, True, 0.0220744),
     (ac1_linearized, True, 0.023418)],
)  # fmt: skip
def test_the_linearized_standard_errors_match_irrcac(linearized, missing, expected):
    counts = category_counts(_gwet_table(missing), 3)
    assert _standard_error(linearized(counts)) == pytest.approx(expected, abs=5e-7)


def test_ac1s_standard_error_is_gwets_on_his_handbooks_four_raters():
    """Gwet (2014)'s 12 subjects, 4 raters, 5 categories, with missing ratings (irrCAC's
    ``cac.raw4raters``): AC1 0.77544, standard error 0.14295, as irrCAC documents it."""
    table = np.array(
        [[1, 1, np.nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
         [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [np.nan, 5, 5, 5], [np.nan, np.nan, 1, 1],
         [np.nan, np.nan, 3, np.nan]]
    ) - 1  # fmt: skip
    counts = category_counts(table, 5)
    value, low, high = normal_interval(ac1_from_counts, counts, ac1_linearized(counts))
    assert value == pytest.approx(0.77544, abs=5e-6)
    assert _standard_error(ac1_linearized(counts)) == pytest.approx(0.14295, abs=5e-6)
    assert (high - low) / 2 == pytest.approx(1.959964 * 0.14295, abs=1e-4)


@pytest.mark.parametrize(
    ("statistic", "linearized"),
    [(fleiss_from_counts, fleiss_linearized), (ac1_from_counts, ac1_linearized),
     (lambda c, w: alpha_from_counts(c, w, "nominal"), alpha_linearized)],
)  # fmt: skip
def test_the_normal_intervals_cover_the_populations_value(statistic, linearized):
    """Samples of 300 units from a population of 100,000 (raters right 70% of the time on a
    skewed truth): about 95% of the intervals hold the population's value."""
    rng = np.random.default_rng(5)
    truth = rng.choice(3, size=100_000, p=[0.6, 0.3, 0.1])
    noise = rng.choice(3, size=(100_000, 4))
    population = category_counts(np.where(rng.random((100_000, 4)) < 0.7, truth[:, None], noise), 3)
    value = statistic(population, np.ones((1, len(population))))[0]
    held = 0
    for _ in range(400):
        counts = population[rng.integers(0, len(population), 300)]
        _, low, high = normal_interval(statistic, counts, linearized(counts))
        held += low <= value <= high
    assert 0.92 <= held / 400 <= 0.98
