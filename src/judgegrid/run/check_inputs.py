"""`judgegrid validate`: every problem of a matrix and its data set, found without a call.

The command only prints what ``check_inputs`` finds: problems as located lines, else the grid's
size, how the data set's fields were read, and what could not be checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from judgegrid.core.errors import InputError
from judgegrid.core.sample import Dataset
from judgegrid.inputs.formats import mapping_lines
from judgegrid.inputs.matrix import Matrix, inspect_matrix, read_matrix_text
from judgegrid.inputs.tasks import (
    grid_size_problems,
    probe_notes,
    probed_cell_count,
    with_probes,
)
from judgegrid.run.orchestrate import resolve_dataset
from judgegrid.run.preflight import (
    check_environment,
    cluster_problems,
    criterion_field_problems,
    matrix_problems,
    sample_problems,
    unchecked_dimensions,
)


@dataclass
class InputsCheck:
    """What ``validate`` found: ``problems`` (rendered, one per line) or a readable grid."""

    problems: list[str] = field(default_factory=list)
    matrix: Matrix | None = None
    data: Dataset | None = None
    unchecked: list[str] = field(default_factory=list)

    def summary(self, matrix_path: Path) -> list[str]:
        """The lines of a clean check: the grid's size, then how the fields were read."""
        assert self.matrix is not None and self.data is not None
        parsed, data = self.matrix, self.data
        probed = with_probes(parsed, data)
        probes = [s for s in probed if s.probe is not None]
        cells = probed_cell_count(parsed, probed)
        lines = [
            f"{matrix_path}: ok — {_count(len(parsed.judges), 'judge')}, "
            f"{_count(len(parsed.embeddings), 'embedding model')}, "
            f"{_count(len(parsed.metrics), 'metric')}, "
            + (
                f"{_count(len(parsed.criteria), 'criterion', 'criteria')}, "
                if parsed.criteria
                else ""
            )
            + f"{_count(parsed.repeats, 'repeat')}; "
            f"{_count(len(data), 'sample')} from {data.source}"
            + (f" and {_count(len(probes), 'probe')} made from them" if probes else "")
            + f": {_count(cells, 'cell')}"
        ]
        if data.mapping is not None:
            lines.append(f"{data.source}: read as {data.mapping.scheme or 'mapped by --columns'}")
            lines += [f"  {line}" for line in mapping_lines(data.mapping)]
        lines += [f"note: {note}" for note in probe_notes(parsed, probed)]
        return lines + [f"not checked: {note}" for note in self.unchecked]


def _count(n: int, one: str, many: str | None = None) -> str:
    """``n`` and its noun, singular for one: "1 judge", "2 judges"."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def check_inputs(
    matrix_path: Path,
    dataset: str | None,
    columns: Mapping[str, str],
    list_delimiter: str | None,
) -> InputsCheck:
    """Every problem of the matrix (fields, models, metrics, keys) and of its data set.

    Raises InputError only when the matrix file cannot be read at all."""
    text = read_matrix_text(matrix_path)
    parsed, problems = inspect_matrix(text, str(matrix_path))
    if parsed is not None:
        problems += matrix_problems(parsed) + cluster_problems(parsed.execution)
    check = InputsCheck([p.render(str(matrix_path)) for p in problems], parsed)
    if parsed is None:
        return check
    try:
        check_environment(parsed, use_cache=True)
    except InputError as exc:
        check.problems += [p.render(exc.source) for p in exc.problems]
    try:
        data = resolve_dataset(parsed, matrix_path, dataset, columns, list_delimiter)
        check.data = data.head(parsed.limit)
        unread = criterion_field_problems(parsed, check.data)
        check.problems += [p.render(str(matrix_path)) for p in unread]
        too_long, check.unchecked = sample_problems(parsed, check.data)
        check.unchecked += unchecked_dimensions(parsed)
        check.problems += [p.render(check.data.source) for p in too_long]
        if not problems:  # a matrix with faults cannot be counted (an unknown metric)
            too_big = grid_size_problems(parsed, check.data)
            check.problems += [p.render(str(matrix_path)) for p in too_big]
    except InputError as exc:
        check.problems += [p.render(exc.source) for p in exc.problems]
    return check
