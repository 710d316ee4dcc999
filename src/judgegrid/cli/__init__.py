"""The `judgegrid` command: one module per command group, each command a thin function over
``judgegrid.api`` that prints what it returns.

Every input error is printed as one line per problem (file: path.inside.it: what is wrong) with
exit code 2 and no traceback. May import: ``api`` and ``core`` only; the layers below ``api`` are
reached through it.
"""

from judgegrid.cli.command import app, main
from judgegrid.cli.common import (
    DEFAULT_MATRIX,
    EXIT_BAD_INPUT,
    EXIT_BELOW_FAIL_UNDER,
    EXIT_FAILED_CELLS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    INSTALLED_MATRIX,
    default_matrix,
)
from judgegrid.cli.run import run_exit_code

__all__ = [
    "DEFAULT_MATRIX",
    "EXIT_BAD_INPUT",
    "EXIT_BELOW_FAIL_UNDER",
    "EXIT_FAILED_CELLS",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "INSTALLED_MATRIX",
    "app",
    "default_matrix",
    "main",
    "run_exit_code",
]
