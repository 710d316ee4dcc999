"""Where labelling stands for one metric or criterion: how many labels, whether the anytime
rule (``decision.anytime``) has reached a verdict, and about how many more labels would reach
one if the present differences hold. The labelling page shows it after every answer (blind:
no judge named), the card and the report with the judges named.

Each draw of an annotator's queue (``decision.sampling``, stored in order as ``label_draws``)
is one draw of the rule: per judge, right or wrong against the people's label of the drawn
sample, as the card's people rung defines it (``PeopleRight``: a criterion's answer against the
people's modal label, a pairwise criterion's verdict against the people's; for a built-in
metric, ``threshold_right``: pass or fail at the metric's threshold, as the accuracy of
``validity.people``), weighted ``1 / (N q)``.

Order: the draws as they were answered. Each annotator's draws are read in draw order, up to
the first draw the annotator has not answered (the rest are not yet drawn as far as the rule
knows), each at the time its label was given, or the time the draw before it was, if later (a
draw answered out of turn is read when its turn comes); the labels no draw stands behind (a
data set's, at time 0, ``labels import``'s) each as a uniform draw (``q = 1 / N``) at its own
time, once a sample (and not at all where a stored draw stands behind the sample: the draw is
read); all of them in time order, then by annotator, then by draw. Two people's draws are so
read interleaved as they came, not one person's after another's by name: each draw's design
(``decision.adaptive``) was made from the labels given before it, and each bet of the rule
must be fixed by the draws before it, so the order the rule reads is the order they were made.

A label a person chose on ``judgegrid view``'s page (``chosen``) with no draw of theirs behind it
is no draw of any design: it is left out of the rule and of the labels the line counts, and
counted apart (``ReadSequence.chosen``), as the card's figures count it (``frames.label_weights``).

Missing data: a draw whose sample has no people's label (the annotator skipped it: seen and
declined) stays in the stored sequence but is left out of the rule, as missing; the state says
how many were skipped, a skip no draw stands behind (``labels import``'s, a pair no judge
compared) among them. A judge with no answer on a draw counts as wrong there (the rule's own).
A pairwise criterion's pairs no judge compared are outside the design: the line counts those
nobody labelled (``uncompared_counts``; a skip is no label) and names them once every pair
the judges compared is labelled, as the labelling page does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from judgegrid.analyses.decision.anytime import (
    AnytimeVerdict,
    anytime_verdict,
    count_words,
    labels_to_come,
    more_words,
    state_words,
    stays_level,
)
from judgegrid.analyses.decision.kinds import DrawBounds, bounds_of, shifts_of
from judgegrid.analyses.decision.ladder import CardSources, pair_right
from judgegrid.analyses.decision.sampling import LabelDesign, metric_design, preference_design
from judgegrid.analyses.decision.selection import uncompared_pairs
from judgegrid.analyses.frames.keys import among, person_item
from judgegrid.analyses.frames.ratings import pooled_by_choice, ratings
from judgegrid.analyses.validity.criteria import PeopleRight, no_information_rate
from judgegrid.analyses.validity.people import mean_labels
from judgegrid.core.records import PREFERENCE
from judgegrid.core.scales import Scales

BINARY_CHANCE = 0.5  # a preference pair's, as on the card's pairs rung

SEQUENCE_COLUMNS = ["sample_id", "probability", "population", "bounds"]
SequenceRow = tuple[str, float, int, str | None]  # a row of SEQUENCE_COLUMNS


@dataclass(frozen=True)
class LabelState:
    """One metric's labelling state: ``labels`` the samples people labelled (``given`` the
    labels on them, where several people labelled one; neither counts a label ``chosen`` on
    the view page with no draw behind it, which the rule leaves out), ``skipped`` the draws
    declined (and the skips no draw stands behind), the rule's ``verdict`` on the draws,
    ``more`` the new labels still needed in expectation (0 once a verdict is reached; inf:
    more than the run has), and ``measure`` what a judge's right or wrong is where that is not
    the card's own figure (a built-in metric's pass or fail at its threshold, while the card
    ranks by rho: the two may lead with different judges)."""

    metric: str
    judges: tuple[str, ...]
    labels: int
    skipped: int
    verdict: AnytimeVerdict
    more: float
    given: int | None = None
    measure: str = ""
    chosen: int = 0  # labels chosen on the view page with no draw behind them: left out
    # a pairwise criterion's pairs left to label that no judge compared (outside the design,
    # so ``more`` does not count them): known to the labelling page, which offers them; None:
    # not known (the run's data set can no longer be read)
    uncompared: int | None = 0

    def words(self, named: bool) -> str:
        """The state line: with the judges ``named`` (``23 labels · a leads b, not yet
        separated · about 15 more``), or blind, naming no judge and no score (``23 labels ·
        no verdict yet · about 15 more``)."""
        if named:
            line = state_words(
                self.labels, self.verdict, self.judges, self.more, self.given, self.uncompared
            )
            if self.measure:
                head, _, rest = line.partition(" · ")
                line = f"{head} · {self.measure}: {rest}"
        else:
            line = blind_words(self.labels, self.verdict, self.more, self.given, self.uncompared)
        return line + skipped_words(self.skipped) + _chosen_words(self.chosen)


def blind_words(
    labels: int,
    found: AnytimeVerdict,
    more: float,
    given: int | None = None,
    uncompared: int | None = 0,
) -> str:
    """The state line a blind page shows: whether a verdict is reached, never whose."""
    head = count_words(labels, given)
    if found.named is not None:
        return f"{head} · a verdict is reached"
    if found.leader is None:
        return f"{head} · no verdict yet"
    level = "the leading judges" if stays_level(found) else ""
    return f"{head} · no verdict yet · {more_words(more, uncompared, level)}"


def skipped_words(skipped: int) -> str:
    """`` · 3 skipped (left out)`` after a state line, or nothing: the page says it too where
    only skips were given, so no verdict can be read yet."""
    return f" · {skipped} skipped (left out)" if skipped else ""


def _chosen_words(chosen: int) -> str:
    """The labels chosen on the view page, said apart from the count the line starts with."""
    if not chosen:
        return ""
    noun = "labels" if chosen != 1 else "label"
    return f" · {chosen} {noun} chosen on the view page, left out (not drawn)"


def threshold_right(
    scores: pd.DataFrame,
    labels: pd.DataFrame,
    metric: str,
    threshold: float,
    once: ScoredOnce | None = None,
) -> PeopleRight | None:
    """A built-in metric's draws as the rule reads them: per labelled sample and judge, right
    when the judge's rating (the mean of its scored repeats, pooled as the user chooses) and
    the people's mean label fall on the same side of ``threshold`` (the accuracy of
    ``validity.people``); NaN where the judge has no rating (a sample no judge rated, as one
    the metric skips for lacking a field, takes no part). Chance: the no-information rate
    of the people's pass/fail. None without a label of ``metric`` on the 0-1 scale.
    ``once``: what is read of ``scores`` alone, if already made (``ScoredOnce``)."""
    labels = labels[labels["metric"] == metric]
    if labels.empty or not labels["value"].dropna().between(0, 1).all():
        return None  # no label, or a criterion's levels: not a built-in metric's 0-1 scale
    means = mean_labels(labels)
    human = means[means["metric"] == metric].set_index("sample_id")["label"]
    judged = (once or ScoredOnce(scores)).judged(metric, threshold)
    if human.empty or judged.empty:
        return None
    judged = judged.reindex(human.index).dropna(how="all")  # a sample no judge rated: no part
    if judged.empty:
        return None
    passed = human.reindex(judged.index).to_numpy(float) >= threshold
    right = judged.to_numpy(float) == passed[:, None]
    table = pd.DataFrame(
        np.where(judged.notna().to_numpy(), right.astype(float), np.nan),
        index=judged.index,
        columns=judged.columns,
    )
    return PeopleRight(table, no_information_rate(passed.astype(float)))


def pass_fail(scores: pd.DataFrame, metric: str, threshold: float) -> pd.DataFrame:
    """Per sample and judge of a built-in metric: 1 where the judge's rating (the mean of its
    scored repeats, pooled as the user chooses) passes ``threshold``, 0 where it fails, NaN
    where it has none. Two judges' right and wrong against a label differ only where these
    differ: what the adaptive queue reads (``decision.adaptive``)."""
    pooled = ratings(pooled_by_choice(scores[scores["metric"] == metric]))
    if pooled.empty:
        return pd.DataFrame()
    wide = pooled.pivot_table(index="sample_id", columns="judge", values="rating")
    judged = (wide >= threshold).astype(float).where(wide.notna())
    judged.columns = [str(c) for c in judged.columns]
    return judged


@dataclass
class ScoredOnce:
    """What a metric's state reads of the run's scores alone, made once a metric and kept: the
    judges' pass/fail (``pass_fail``), the queue's design (``queue_design``) and the samples
    the judges scored. The labelling page asks for the state after every answer, and the
    scores do not change while it serves: made again each time, these were most of the wait
    on a run of thousands of samples. The caller keeps ``scores`` as they were (a value read
    from the memo is shared: read it, never change it)."""

    scores: pd.DataFrame
    _judged: dict[tuple[str, float], pd.DataFrame] = field(default_factory=dict, repr=False)
    _designs: dict[str, LabelDesign | None] = field(default_factory=dict, repr=False)
    _scored: dict[str, int] = field(default_factory=dict, repr=False)

    def judged(self, metric: str, threshold: float) -> pd.DataFrame:
        """``pass_fail`` of the scores."""
        key = (metric, threshold)
        if key not in self._judged:
            self._judged[key] = pass_fail(self.scores, metric, threshold)
        return self._judged[key]

    def design(self, metric: str) -> LabelDesign | None:
        """``queue_design`` of the scores."""
        if metric not in self._designs:
            self._designs[metric] = queue_design(self.scores, metric)
        return self._designs[metric]

    def scored(self, metric: str) -> int:
        """How many samples of ``metric`` are in the scores."""
        if metric not in self._scored:
            mine = self.scores.loc[self.scores["metric"] == metric, "sample_id"]
            self._scored[metric] = int(mine.nunique())
        return self._scored[metric]


@dataclass(frozen=True)
class ReadSequence:
    """What the rule reads of ``metric``'s labels and draws (``read_sequence``), made in one
    pass: the draws in order (``SEQUENCE_COLUMNS``), how many were skipped, and the labels
    (annotator, sample) it leaves out as chosen on the view page (``_left_out``)."""

    rows: pd.DataFrame
    skipped: int
    chosen: frozenset[tuple[str, str]]


def draw_sequence(
    draws: pd.DataFrame,
    labels: pd.DataFrame,
    metric: str,
    population: int,
    per_person: bool = False,
) -> tuple[pd.DataFrame, int]:
    """The draws the rule reads for ``metric`` and how many of them were skipped
    (``read_sequence``, where the arguments are said)."""
    found = read_sequence(draws, labels, metric, population, per_person)
    return found.rows, found.skipped


def read_sequence(
    draws: pd.DataFrame,
    labels: pd.DataFrame,
    metric: str,
    population: int,
    per_person: bool = False,
) -> ReadSequence:
    """The draws the rule reads for ``metric`` (``SEQUENCE_COLUMNS``, in the order they were
    answered, module docstring), how many of them were skipped and the labels chosen on the
    view page it leaves out. ``draws``: the stored draws (``records.DRAW_COLUMNS``);
    ``labels``: the stored answers and the data set's, with ``sample_id, metric, annotator,
    value`` (value None: a skip) and, where known, ``labelled_at`` (without it: label order)
    and ``chosen`` (a label chosen on ``judgegrid view``'s page, which no draw stands behind,
    is left out: ``ReadSequence.chosen``). ``per_person``: each person's answer is an item of its
    own, ``sample/annotator`` (a preference: the pairs rung scores each person's preference as
    one pair)."""
    answers = _answers_of(labels, metric)
    drawn = draws[draws["metric"] == metric] if not draws.empty else draws
    covered = _covered(drawn)
    # a sample some draw stands behind is read as that draw: another label of it (imported,
    # the data set's, another person's) is one more label of it, not a draw of its own
    behind = set() if per_person else {sample for _, sample in covered}
    timed: list[tuple[float, str, int, SequenceRow]] = []
    undrawn: set[str] = set()
    skipped = 0
    in_time = sorted(answers.items(), key=lambda entry: entry[1][1])  # stable: label order
    for (annotator, sample), (value, when, chosen) in in_time:
        item = _item(sample, annotator, per_person)
        if (annotator, sample) in covered:
            continue
        if pd.isna(value):  # a skip no draw stands behind (``labels import``'s): declined too
            skipped += 1
            continue
        if chosen or item in undrawn or sample in behind:
            continue
        undrawn.add(item)  # one draw a sample: several people's labels of it are not
        row: SequenceRow = (item, 1.0 / population, population, None)  # independent draws
        timed.append((when, annotator, len(timed), row))
    for person, block in drawn.groupby("annotator", sort=True) if not drawn.empty else []:
        block = block.sort_values("draw", kind="stable")
        stored = block["bounds"] if "bounds" in block else pd.Series(None, index=block.index)
        reached = -np.inf  # a draw is read once it and every draw before it are answered
        columns = ("draw", "sample_id", "probability", "population")
        for number, sample, q, n, bounds in zip(*(block[c] for c in columns), stored, strict=True):
            key = (str(person), str(sample))
            if key not in answers:
                break  # drawn, not yet answered: the sequence ends here
            value, when, _ = answers[key]
            reached = max(reached, when)
            if pd.isna(value):
                skipped += 1
                continue
            text = bounds if isinstance(bounds, str) else None
            row = (_item(str(sample), str(person), per_person), float(q), int(n), text)
            timed.append((reached, str(person), int(number), row))
    timed.sort(key=lambda entry: entry[:3])  # time, then annotator, then draw: a stable order
    rows = pd.DataFrame([entry[3] for entry in timed], columns=SEQUENCE_COLUMNS)
    return ReadSequence(rows, skipped, _left_out(labels, answers, covered, rows))


def _left_out(
    labels: pd.DataFrame,
    answers: Mapping[tuple[str, str], tuple[float, float, bool]],
    covered: set[tuple[str, str]],
    sequence: pd.DataFrame,
) -> frozenset[tuple[str, str]]:
    """The labels (annotator, sample) of ``answers`` the rule leaves out as chosen on
    ``judgegrid view``'s page: chosen with no draw of their annotator behind them (``covered``),
    of a sample not in the ``sequence`` otherwise. Not a probability sample, as the weighted
    figures also leave them out (``frames.label_weights``); the state line says how many."""
    if "chosen" not in labels or not labels["chosen"].fillna(0).astype(bool).any():
        return frozenset()  # the common case, without a look at every label
    read = set(sequence["sample_id"].astype(str))
    return frozenset(
        key
        for key, (value, _, chosen) in answers.items()
        if chosen and pd.notna(value) and key not in covered and key[1] not in read
    )


def _answers_of(
    labels: pd.DataFrame, metric: str
) -> dict[tuple[str, str], tuple[float, float, bool]]:
    """(annotator, sample) -> (value, when given, chosen on the view page) of ``metric``'s
    labels; a label of unknown time (the data set's) counts as given first, one with no time
    column at all in label order."""
    mine = labels[labels["metric"] == metric]
    if "labelled_at" in mine:
        when = mine["labelled_at"].astype(float).fillna(0.0).to_numpy()
    else:
        when = np.arange(len(mine), dtype=float)
    chosen = (
        mine["chosen"].fillna(0).astype(bool).tolist() if "chosen" in mine else [False] * len(mine)
    )
    columns = (mine[c].tolist() for c in ("annotator", "sample_id", "value"))  # not Arrow's scalars
    return {
        (str(a), str(s)): (v, t, c)
        for a, s, v, t, c in zip(*columns, when.tolist(), chosen, strict=True)
    }


def _covered(drawn: pd.DataFrame) -> set[tuple[str, str]]:
    """The (annotator, sample) pairs some stored draw points to."""
    if drawn.empty:
        return set()
    return set(zip(drawn["annotator"].astype(str), drawn["sample_id"].astype(str), strict=True))


def _item(sample: str, annotator: str, per_person: bool) -> str:
    return person_item(sample, annotator) if per_person else sample


def label_state(
    metric: str,
    right: PeopleRight | None,
    sequence: pd.DataFrame,
    design: LabelDesign | None,
    skipped: int = 0,
    given: int | None = None,
    measure: str = "",
    labelled: pd.Index | None = None,
    margin: float = 0.0,
) -> LabelState | None:
    """The state of ``metric`` from the people's right/wrong per sample and judge (``right``),
    the draws in order (``draw_sequence``) and the queue's design (for how many new labels the
    draws still needed would ask; None: uniform over the labelled samples' population). None
    when no judge can be measured (no label, or no judge's answer on one, or none the rule
    reads yet: a data set's label of a sample a draw stands behind waits for the draw's
    answer, ``read_sequence``). ``labelled``: the
    design's samples people labelled, where the rule's items name them otherwise (a
    preference: ``pair/person``); by default the items of ``right``. ``margin``: the card's
    non-inferiority margin, under which the rule shows judges at most it below the others
    (``decision.anytime``)."""
    if right is None or right.right.empty or sequence.empty:
        return None
    table = right.right
    judges = tuple(str(j) for j in table.columns)
    usable = sequence[among(sequence["sample_id"], table.index)]
    if usable.empty:
        return None
    values = table.reindex(usable["sample_id"]).to_numpy(float)
    weight = 1.0 / (usable["population"].to_numpy(float) * usable["probability"].to_numpy(float))
    share = design.uniform_share if design is not None else 1.0
    bound, pair_bounds, stored = draw_bounds_of(usable, judges, values, weight, share)
    shifts = shifts_of(stored, judges, right.chance) if any(stored) else None
    found = anytime_verdict(
        judges,
        values,
        weight,
        bound,
        right.chance,
        pair_bounds=pair_bounds,
        shifts=shifts,
        margin=margin,
    )
    labels = int(table.index.nunique())
    done = table.index.astype(str) if labelled is None else labelled.astype(str)
    more = 0.0 if found.named is not None else _new_labels(design, done, found.about_more)
    return LabelState(metric, judges, labels, skipped, found, more, given, measure)


def draw_bounds_of(
    usable: pd.DataFrame,
    judges: tuple[str, ...],
    values: np.ndarray,
    weight: np.ndarray,
    share: float,
) -> tuple[float | np.ndarray, dict[tuple[str, str], np.ndarray] | None, list[DrawBounds | None]]:
    """The bounds the rule bets within, draw by draw, and each draw's stored bounds (None where
    it has none), whose shares gone shift its tests (``kinds.shifts_of``): a queue's draw
    carries its own (``kinds.bounds_of``: the largest weight it could carry, and per pair of
    judges the largest where they answer differently); a fixed design's draw stored before
    draws carried bounds, or a label no queue drew, the fixed design's largest weight ``1 /
    share`` (or the largest weight among them, if more). Where the scores changed since a draw
    (a resumed run), two judges may now differ where its design saw them agree: that draw's
    pair bound falls back to its largest weight."""
    texts = usable["bounds"] if "bounds" in usable else pd.Series(dtype=object)
    if not texts.notna().any():
        return max(1.0 / share, float(weight.max(initial=1.0))), None, [None] * len(usable)
    fixed = weight[texts.isna().to_numpy()]
    default = max(1.0 / share, float(fixed.max(initial=1.0)))
    largest = np.full(len(usable), default)
    pairs = {(a, b): np.full(len(usable), default) for a in judges for b in judges if a < b}
    values = np.nan_to_num(values, nan=0.0)
    stored: list[DrawBounds | None] = [None] * len(usable)
    for t, text in enumerate(texts):
        if not isinstance(text, str):
            continue
        found = stored[t] = bounds_of(text)
        largest[t] = found.largest
        for (a, b), column in pairs.items():
            reach = found.pair(a, b)
            gap = weight[t] * abs(values[t, judges.index(a)] - values[t, judges.index(b)])
            column[t] = reach if gap <= reach + 1e-12 else largest[t]
    return largest, pairs, stored


def _new_labels(design: LabelDesign | None, labelled: pd.Index, draws: float) -> float:
    """The new labels ``draws`` more draws of the design ask for (``labels_to_come``: one a
    draw, among the samples not yet labelled); without a design, the draws themselves (a
    uniform queue over a population much larger than the labels)."""
    if design is None:
        return draws
    left = int((~among(pd.Index(design.samples), labelled)).sum())
    return labels_to_come(left, draws)


def right_of(
    metric: str,
    people_right: Mapping[str, PeopleRight],
    scores: pd.DataFrame,
    labels: pd.DataFrame,
    scales: Scales,
    once: ScoredOnce | None = None,
) -> PeopleRight | None:
    """The card's right/wrong for ``metric``: a criterion's (``people_right``, made by the
    criteria's analyses), else a built-in metric's at its threshold (``threshold_right``)."""
    found = people_right.get(metric)
    if found is not None:
        return found
    return threshold_right(scores, labels, metric, scales.threshold(metric), once)


def metric_state(
    metric: str,
    right: PeopleRight | None,
    scores: pd.DataFrame,
    answers: pd.DataFrame,
    draws: pd.DataFrame,
    measure: str = "",
    margin: float = 0.0,
    once: ScoredOnce | None = None,
) -> LabelState | None:
    """``label_state`` of ``metric`` from the scores (the queue's design, ``metric_design``),
    the answers in label order (skips with no value) and the stored draws; ``measure``: what
    right or wrong is, where the card's figure is another (``right_of``); ``margin``:
    ``label_state``'s; ``once``: what is read of ``scores`` alone, if already made."""
    once = once or ScoredOnce(scores)
    design = once.design(metric)
    population = design.population if design is not None else max(once.scored(metric), 1)
    read = read_sequence(draws, answers, metric, population)
    mine = answers[(answers["metric"] == metric) & answers["value"].notna()]
    given = mine[among(mine["sample_id"], right.right.index.astype(str))] if right else mine
    counted = _without(given, read.chosen)
    found = label_state(
        metric, right, read.rows, design, read.skipped, len(counted), measure, margin=margin
    )
    if found is None or not read.chosen:
        return found
    only_chosen = set(given["sample_id"].astype(str)) - set(counted["sample_id"].astype(str))
    return replace(found, labels=found.labels - len(only_chosen), chosen=len(read.chosen))


def _without(labels: pd.DataFrame, left_out: frozenset[tuple[str, str]]) -> pd.DataFrame:
    """``labels`` less the (annotator, sample) labels ``left_out``: the labels the rule reads
    (or will: a draw answered out of turn), as the line counts them."""
    if not left_out:
        return labels
    keys = zip(labels["annotator"].astype(str), labels["sample_id"].astype(str), strict=True)
    return labels[[key not in left_out for key in keys]]


def queue_design(scores: pd.DataFrame, metric: str) -> LabelDesign | None:
    """The labelling queue's design of ``metric`` (None: no judge scored a sample of it)."""
    try:
        return metric_design(scores, metric)
    except ValueError:
        return None


def preference_state(
    metric: str,
    scores: pd.DataFrame,
    pairs: pd.DataFrame,
    scales: Scales,
    answers: pd.DataFrame,
    draws: pd.DataFrame,
    margin: float = 0.0,
) -> LabelState | None:
    """The labelling state of ``metric`` in a pairs run, from people's preferences (``pairs``
    of source ``people``, one per person and pair, as the card's pairs rung scores them): per
    preference and judge, whether the judge rates the preferred answer better (``pair_right``;
    chance one half); the draws are the preference queue's (metric ``preference``), its design
    from the data set's pairs. None without a person's preference for ``metric``. ``margin``:
    ``label_state``'s."""
    people = pairs[(pairs["source"] == "people") & (pairs["metric"] == metric)]
    right = pair_right(scores, people, scales) if not people.empty else None
    if right is None:
        return None
    given = pairs[pairs["source"] == "labels"].drop_duplicates("pair")
    members = dict(
        zip(given["pair"], zip(given["preferred"], given["other"], strict=True), strict=True)
    )
    design = _preference_design(scores, members)
    population = design.population if design is not None else max(len(members), 1)
    sequence, skipped = draw_sequence(draws, answers, PREFERENCE, population, per_person=True)
    found = PeopleRight(right.astype(float), BINARY_CHANCE)
    mine = answers[(answers["metric"] == PREFERENCE) & answers["value"].notna()]
    pairs_done = pd.Index(mine["sample_id"].astype(str).unique())  # the design names pairs
    return label_state(metric, found, sequence, design, skipped, labelled=pairs_done, margin=margin)


def _preference_design(
    scores: pd.DataFrame, members: Mapping[str, tuple[str, str]]
) -> LabelDesign | None:
    try:
        return preference_design(scores, members) if members else None
    except ValueError:
        return None


def state_of(
    metric: str, sources: CardSources, once: ScoredOnce | None = None
) -> LabelState | None:
    """The labelling state of ``metric`` from what the card reads: people's preferences where
    the pairs rung has them for it (``preference_state``), else its labels and draws
    (``metric_state``, the card's right/wrong of the metric: ``right_of``). None where people
    labelled nothing of it. ``once``: what is read of ``sources.scores`` alone, if already made
    (the labelling page keeps it for its session)."""
    answers, pairs = sources.answers, sources.pairs
    margin = sources.margin or 0.0
    if answers.empty:
        return None
    if not pairs.empty and ((pairs["source"] == "people") & (pairs["metric"] == metric)).any():
        return preference_state(
            metric, sources.scores, pairs, sources.scales, answers, sources.draws, margin
        )
    if not (answers["metric"] == metric).any():
        return None
    labelled = answers[answers["value"].notna()]
    once = once or ScoredOnce(sources.scores)
    right = right_of(metric, sources.people_right, sources.scores, labelled, sources.scales, once)
    measure = "" if metric in sources.people_right else threshold_words(sources.scales, metric)
    found = metric_state(
        metric, right, sources.scores, answers, sources.draws, measure, margin, once
    )
    uncompared = sources.uncompared.get(metric, 0)
    if found is None or uncompared == 0:
        return found
    return replace(found, uncompared=uncompared)


def uncompared_counts(
    pairs: Mapping[str, Sequence[str]], scores: pd.DataFrame, answers: pd.DataFrame
) -> dict[str, int]:
    """Per pairwise criterion (``pairs``: its pairs in the data set), the pairs no judge
    compared that no person labelled (``selection.uncompared_pairs``): what the card's state
    line names where every pair the judges compared is labelled, as the labelling page does
    for one person. A skip is no label: someone else may still label the pair."""
    given = answers[answers["value"].notna()] if not answers.empty else answers
    counts = {}
    for metric, mine in pairs.items():
        done = given.loc[given["metric"] == metric, "sample_id"] if not given.empty else ()
        counts[metric] = len(uncompared_pairs(scores, metric, mine, set(map(str, done))))
    return counts


def threshold_words(scales: Scales, metric: str) -> str:
    """What a built-in metric's right or wrong is on the state line (the card ranks by rho)."""
    return f"pass/fail at {scales.threshold(metric):g}"
