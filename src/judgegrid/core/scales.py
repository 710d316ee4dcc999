"""How each metric's scores read, as one value: where pass turns to fail (the threshold the
analyses that cut scores in two use: stability's flips, agreement's and people's kappa) and
which way is better (pairs, probes, the ranking and the card read a lower-is-better metric's
fall as a rise). The report builds it once, from the metrics' classes and the run's criteria,
and every analysis takes it whole instead of a threshold and a direction of its own."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

DEFAULT_THRESHOLD = 0.5


@dataclass(frozen=True)
class Scale:
    """One metric's: its pass/fail threshold and its direction."""

    threshold: float = DEFAULT_THRESHOLD
    higher_is_better: bool = True


@dataclass(frozen=True)
class Scales:
    """Each metric's ``Scale``; a metric not among ``metrics`` has ``default``."""

    metrics: Mapping[str, Scale] = field(default_factory=dict)
    default: Scale = Scale()

    def of(self, metric: str) -> Scale:
        return self.metrics.get(metric, self.default)

    def threshold(self, metric: str) -> float:
        return float(self.of(metric).threshold)

    def lower_is_better(self, metric: str) -> bool:
        return not self.of(metric).higher_is_better

    def with_metrics(self, more: Mapping[str, Scale]) -> Scales:
        """These scales with ``more`` beside them (``more`` wins for a metric in both)."""
        return Scales({**self.metrics, **more}, self.default)

    def lower_is_better_of(self, metrics: Iterable[str]) -> frozenset[str]:
        """Those of ``metrics`` whose lower score is the better one."""
        return frozenset(m for m in metrics if self.lower_is_better(str(m)))


PLAIN = Scales()  # every metric cut at 0.5, a higher score the better
