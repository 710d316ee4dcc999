"""A labelling session's values: one question of its queue (``QueueItem``), what one session
serves (``LabelSession``) and what it asks, as ``judgegrid label``'s options say it
(``SessionAsk``).

The bottom of the page's modules: the queue, the views and the answers all read these, and
none of them needs another to know what a session is.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from judgegrid.analyses import LabelRun, RunFacts
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import OptionError, Problem
from judgegrid.core.options import duration_words
from judgegrid.core.pairwise import Order
from judgegrid.core.records import PREFERENCE, LabelDraw
from judgegrid.core.run_options import check_margin
from judgegrid.core.sample import Sample
from judgegrid.inputs.pairwise import DEFAULT_SEED
from judgegrid.labels.files import check_annotator_option
from judgegrid.labels.pairwise import shown_order
from judgegrid.labels.pool import HELD_S, MIN_HELD_S
from judgegrid.store.run_db import DB_NAME


def label_run_of(
    scores: pd.DataFrame,
    sample_info: dict[str, dict[str, Any]],
    criteria: dict[str, CriterionSpec],
    margin: float | None,
    jury_panels: tuple[tuple[str, ...], ...] = (),
) -> LabelRun:
    """The scores as the state line and the adaptive queue read them: made once, before the
    session exists, where its first queue needs them, else by ``LabelSession.label_run``.
    The matrix's juries count as judges here as in the report's card, so that the page's line
    and the card weigh the same judges."""
    facts = RunFacts(
        sample_info=sample_info, criteria=criteria, margin=margin, jury_panels=jury_panels
    )
    return LabelRun.of(scores, facts)


@dataclass
class QueueItem:
    """One question of the page: a sample for a metric, or (``members`` set) a preference pair,
    whose ``sample_id`` is the pair and ``members`` its two samples in the order shown."""

    sample_id: str
    metric: str
    reason: str  # with the judges' names and scores (shown with --show-judges)
    members: tuple[str, str] | None = None
    aspect: str = ""
    blind_reason: str = ""  # the same without them (shown by default)
    # the sample's probability a draw when the queue drew it (None: not drawn, as an unscored
    # pair: its label counts as drawn uniformly)
    probability: float | None = None
    # chosen by the person on ``judgegrid view``'s page, not drawn: its label is no probability
    # sample (``records.Label.chosen``)
    chosen: bool = False


@dataclass
class LabelSession:
    """What one ``judgegrid label`` process serves: one annotator's queue over one run."""

    run_dir: Path
    samples: dict[str, Sample]
    annotator: str
    queue: list[QueueItem]
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    show_judges: bool = False  # False: blind, no judge's score, name or preference on the page
    criteria: dict[str, CriterionSpec] = field(default_factory=dict)  # the run's, by name
    seed: int = DEFAULT_SEED  # draws the order each person sees a pair's answers in
    # what the state line reads besides the labels and draws (``analyses.label_state_of``)
    scores: pd.DataFrame = field(default_factory=pd.DataFrame)
    sample_info: dict[str, dict[str, Any]] = field(default_factory=dict)
    # this session's new draws, stored when its page is made (``add_label_routes``): after the
    # server's socket is bound, so a port in use leaves the run as it was
    unrecorded: list[LabelDraw] = field(default_factory=list)
    limit: int = 20  # the labels this session asks for (--n)
    # draws made at a time: a metric's next batch is drawn, from the adaptive design as the
    # labels so far make it, when its items run out (None: all ``limit`` at once)
    batch: int | None = None
    metrics: tuple[str, ...] = ()  # what this session labels (a pairs run's: the preference)
    # the non-inferiority margin (``--margin``, else the matrix's ``decision: {margin}``): the
    # state line's rule asks it
    margin: float | None = None
    # the matrix's juries (``juries: true``), each one more judge to the state line, as on the
    # report's card
    jury_panels: tuple[tuple[str, ...], ...] = ()
    # samples (or pairs) of these metrics other people drew or labelled and this person did
    # not: out of this person's pool, as the pool is one for everyone (``pool.taken_by_anyone``)
    others: int = 0
    # of them, drawn and not yet answered by a person still labelling (``Pool.held``)
    held: int = 0
    # this session's draws taken over from people who left them unanswered (``labels.pool``)
    taken_over: int = 0
    # ``--again``: the queue asks what other people labelled, undrawn (``again_queue``)
    again: bool = False
    # how long another person's unanswered draws stay theirs before this session may take them
    # over (``--left-after``, ``labels.pool``)
    left_after: float = HELD_S
    # the scores as the state line and the adaptive queue read them, made once (``label_run``)
    prepared: LabelRun | None = field(default=None, repr=False, compare=False)

    def label_run(self) -> LabelRun:
        """The session's scores, sample info, criteria and margin as the state line and the
        adaptive queue read them (``analyses.LabelRun``), made on first use and kept: none of
        them changes while the page serves, and made again after every answer they were most
        of its wait on a run of thousands of samples."""
        if self.prepared is None:
            self.prepared = label_run_of(
                self.scores, self.sample_info, self.criteria, self.margin, self.jury_panels
            )
        return self.prepared

    def why(self, item: QueueItem) -> str:
        """Why the page asks about ``item``: blind unless the judges are to be shown."""
        return item.reason if self.show_judges else item.blind_reason or item.reason

    def order(self, pair: str) -> Order:
        """The order this annotator sees a pairwise criterion's pair in (``labels.pairwise``)."""
        return shown_order(pair, self.annotator, self.seed)

    @property
    def database(self) -> Path:
        return self.run_dir / DB_NAME

    def _held_words(self) -> str:
        """The others' draws not yet answered, and when they pass on (``labels.pool``)."""
        if not self.held:
            return ""
        drawn = f"{self.held} drawn and not yet answered"
        hold = duration_words(self.left_after)
        return (
            f"; the {drawn} pass to whoever asks once their person has not labelled for {hold}"
            if self.held != 1
            else f"; the 1 drawn and not yet answered passes to whoever asks once its person has "
            f"not labelled for {hold}"
        )

    def fewer_words(self, n: int) -> str:
        """Why a session asked for ``n`` labels has fewer questions, drawn all at once: the
        judges scored no more, or the rest are answered, skipped or drawn (a person told "4
        questions" after asking for 8 would think the rest were lost). Empty when it has ``n``."""
        if len(self.queue) >= n:
            return ""
        head = f" (all that is left of --n {n}"
        if self.again:
            return f"{head}: what other people labelled and you did not)"
        if PREFERENCE in self.metrics:  # a pairs run's pairs are its data set's, not scored
            return f"{head}{self._others_words()})"
        names = ", ".join(self.metrics)
        rest = len(self._scored_keys() - {(i.sample_id, i.metric) for i in self.queue})
        if not rest:
            return f"{head}: the judges scored no other sample of {names})"
        return (
            f"{head}: the other {rest} sample{'s' if rest != 1 else ''} of {names} the judges "
            f"scored {'are' if rest != 1 else 'is'} answered, skipped or drawn"
            f"{self._others_words()})"
        )

    def _scored_keys(self) -> set[tuple[str, str]]:
        """(sample, metric) of this session's metrics that some judge scored."""
        if self.scores.empty:
            return set()
        scored = self.scores[
            self.scores["metric"].isin(self.metrics) & (self.scores["status"] == "scored")
        ]
        return set(zip(scored["sample_id"], scored["metric"], strict=True))

    def _others_words(self) -> str:
        """How many of them other people took, and when their unanswered ones pass on."""
        return f", {self.others} of them by other people{self._held_words()}" if self.others else ""

    def nothing_to_ask(self, run_ref: str) -> str:
        """Why the queue is empty and what would give it a question, said by ``judgegrid
        label`` in place of a page with nothing on it: no judge scored a sample of these
        metrics yet, or this person answered or skipped every one the judges scored."""
        names = ", ".join(self.metrics)
        if not self._scored_keys() and PREFERENCE not in self.metrics:
            return (
                f"nothing to label: no judge scored a sample of {names} (its cells were not run "
                f"yet, or skipped or failed: judgegrid report {run_ref} says which)"
            )
        what = "pair" if PREFERENCE in self.metrics else "sample"
        if self.again:
            return (
                f"nothing to label again: no {what} of {names} another person labelled is left "
                f"that {self.annotator!r} has not answered or skipped; without --again the "
                f"queue draws new ones; where labelling stands: judgegrid report {run_ref}"
            )
        if self.others:
            head = (
                f"nothing to label: every {what} of {names} the judges scored is answered, "
                f"skipped or drawn, {self.others} of them by other people (the queue asks each "
                f"{what} once, whoever labels{self._held_words()})"
            )
        else:
            head = (
                f"nothing to label: {self.annotator!r} has answered or skipped every {what} "
                f"of {names} the judges scored (a skip is not asked again)"
            )
        return (
            f"{head}; add {what}s to the data set and score them, or label what others "
            f"labelled again on purpose (judgegrid label --again, or judgegrid view, l); "
            f"where labelling stands: judgegrid report {run_ref}"
        )


@dataclass(frozen=True)
class SessionAsk:
    """What one labelling session asks, as ``judgegrid label``'s options say it, one value from
    the command to the queue: ``n`` labels (``--n``); the judges shown, or the page blind (no
    judge's score, name or preference before the answer; ``--show-judges``); drawn ``batch``
    of each metric at a time, a metric's next batch when its items run out, each from the
    adaptive design of the labels given by then (``--batch``; None: all ``n`` at once; a
    preference or a pairwise criterion is drawn all at once regardless); or what other people
    labelled, asked ``again`` and undrawn (``--again``, ``again_queue``); the state line's
    rule and the queue's design under ``margin`` (``--margin``; None: the matrix's ``decision:
    {margin}``), so that the page and ``report --margin`` given the same one agree; and how long
    another person's unanswered draws stay theirs before this session takes them over, in
    seconds (``--left-after``, ``labels.pool``)."""

    n: int = 20
    show_judges: bool = False
    batch: int | None = None
    again: bool = False
    margin: float | None = None
    left_after: float = HELD_S

    def check(self, annotator: str) -> None:
        """The options' own errors (and ``annotator``'s), raised before the run is looked at."""
        if not annotator.strip():
            problem = Problem("", "a name is needed (who gave the labels)")
            raise OptionError("--annotator", [problem])
        check_annotator_option(annotator)
        check_margin(self.margin)
        if self.n < 1:
            raise OptionError("--n", [Problem("", f"expected a whole number ≥ 1, got {self.n}")])
        if self.batch is not None and self.batch < 1:
            problem = Problem("", f"expected a whole number ≥ 1, got {self.batch}")
            raise OptionError("--batch", [problem])
        if not self.left_after >= MIN_HELD_S:  # NaN too
            least, got = duration_words(MIN_HELD_S), duration_words(self.left_after)
            message = (
                f"expected at least {least}, got {got}: a person reading a sample would lose it "
                "to whoever opened a page meanwhile"
            )
            raise OptionError("--left-after", [Problem("", message)])
        if self.again and self.batch is not None:
            message = "draws nothing (it asks what other people labelled): --batch has no draw"
            raise OptionError("--again", [Problem("", message + " to pace")])


DEFAULT_ASK = SessionAsk()  # what `judgegrid label` asks without options
